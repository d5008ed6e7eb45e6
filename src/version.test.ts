import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageRoot } from './schema/package-root.js';
import { PRODUCT_VERSION } from './version.js';

describe('PRODUCT_VERSION', () => {
  it('matches package.json, so MCP clients and --version report the released version', () => {
    const pkg = JSON.parse(readFileSync(`${packageRoot()}/package.json`, 'utf8')) as { version: string };
    expect(PRODUCT_VERSION).toBe(pkg.version);
  });
});
