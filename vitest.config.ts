import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores here: more workers only add contention for the isolate-heavy suites.
    maxWorkers: 2,
    // The audit key is generated on first use under $XDG_CONFIG_HOME: tests, and the servers they
    // start, keep theirs out of the real home directory.
    env: { XDG_CONFIG_HOME: join(tmpdir(), 'pve-code-mcp-test-config') },
  },
});
