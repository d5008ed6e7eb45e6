#!/usr/bin/env node
/** The executable behind `pve-code-mcp` (package.json `bin`). */
import { tuneV8ForCommand } from './v8-tuning.js';

// Before the command's modules load: the young generation's size is set by then (v8-tuning.ts).
tuneV8ForCommand(process.argv.slice(2));
const { main } = await import('./main.js');

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
