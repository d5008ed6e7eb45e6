/** Where the client reports things a human should see (the insecure-TLS warning, retries). */
export interface PveLogger {
  warn(message: string): void;
  debug?(message: string): void;
}

/** Default logger: warnings to stderr (stdout may be an MCP stdio transport), no debug output. */
export const stderrLogger: PveLogger = {
  warn(message: string): void {
    process.stderr.write(`[pve-code-mcp] WARNING: ${message}\n`);
  },
};
