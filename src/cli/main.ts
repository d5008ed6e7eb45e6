/**
 * `pve-code-mcp` entry point: dispatches to subcommands. Logs go to stderr (stdout is the MCP
 * channel under `serve`); exit codes are documented in `EXIT`.
 */
import { PveError } from '../client/errors.js';
import { PRODUCT_VERSION } from '../version.js';
import { EXIT, processIo, UsageError, type CliIo } from './args.js';
import type { Command } from './command.js';
import { approveCommand } from './commands/approve.js';
import { auditCommand } from './commands/audit.js';
import { configCommand } from './commands/config.js';
import { demoCommand } from './commands/demo.js';
import { runCommand } from './commands/run.js';
import { schemaCommand } from './commands/schema.js';
import { searchCommand } from './commands/search.js';
import { serveCommand } from './commands/serve.js';
import { simulatorCommand } from './commands/simulator.js';

export const COMMANDS: readonly Command[] = [
  serveCommand,
  demoCommand,
  runCommand,
  searchCommand,
  schemaCommand,
  approveCommand,
  auditCommand,
  simulatorCommand,
  configCommand,
];

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `pve-code-mcp ${PRODUCT_VERSION} — code-mode MCP server for Proxmox VE`,
    '',
    'Usage: pve-code-mcp <command> [options]   (pve-code-mcp <command> --help for details)',
    '',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Exit codes: 0 ok, 1 failed (script error, verification failed), 2 usage error, 3 configuration/connection error.',
  ].join('\n');
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(overview());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.out(PRODUCT_VERSION);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(`unknown command '${name}'\n\n${overview()}`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${command.name}: ${err.message}\n\n${command.usage}`);
      return EXIT.usage;
    }
    if (err instanceof PveError) {
      io.err(`${command.name}: ${err.message}`);
      return EXIT.config;
    }
    io.err(`${command.name}: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT.failed;
  }
}
