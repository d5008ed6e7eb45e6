/** The product version, reported to MCP clients and by `--version`; kept in step with package.json by a test. */
export const PRODUCT_VERSION = '0.1.0';
