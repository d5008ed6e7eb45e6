/**
 * `pve-code-mcp` entry point: dispatches to subcommands. Logs go to stderr (stdout is the MCP
 * channel under `serve`); exit codes are documented in `EXIT`.
 */
import { isPveError } from '../client/error-codes.js';
import { PRODUCT_VERSION } from '../version.js';
import { EXIT, processIo, UsageError, type CliIo } from './args.js';
import type { Command } from './command.js';

interface CommandEntry {
  name: string;
  summary: string;
  /** Loaded on use: the heavy parts (TypeScript, the sandbox, the simulator) stay out of `--help` and `approve`. */
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'serve', summary: 'run the MCP server (stdio, or --http)', load: async () => (await import('./commands/serve.js')).serveCommand },
  {
    name: 'demo',
    summary: 'simulated cluster + server: a guided tour, or an MCP server to connect to',
    load: async () => (await import('./commands/demo.js')).demoCommand,
  },
  { name: 'run', summary: 'run a TypeScript script file against a cluster', load: async () => (await import('./commands/run.js')).runCommand },
  { name: 'types', summary: "write the cluster's SDK declarations and a tsconfig for script files", load: async () => (await import('./commands/types.js')).typesCommand },
  { name: 'init', summary: 'set up a scripts folder with an example script', load: async () => (await import('./commands/init.js')).initCommand },
  { name: 'runbook', summary: 'list runbooks, approve one for a bounded standing use, revoke', load: async () => (await import('./commands/runbook.js')).runbookCommand },
  { name: 'search', summary: 'search the API by intent', load: async () => (await import('./commands/search.js')).searchCommand },
  { name: 'schema', summary: 'show the TypeScript signature of operations', load: async () => (await import('./commands/schema.js')).schemaCommand },
  { name: 'approve', summary: 'approve a dry-run plan by its planId', load: async () => (await import('./commands/approve.js')).approveCommand },
  { name: 'undo', summary: 'reverse the changes of a run: shows the plan, asks, then runs it', load: async () => (await import('./commands/undo.js')).undoCommand },
  { name: 'console', summary: 'the web console on 127.0.0.1 with a one-time login link', load: async () => (await import('./commands/console.js')).consoleCommand },
  { name: 'audit', summary: 'verify the audit log (audit verify)', load: async () => (await import('./commands/audit.js')).auditCommand },
  { name: 'halt', summary: 'stop every change on this host at once (kill switch; --status shows it)', load: async () => (await import('./commands/halt.js')).haltCommand },
  { name: 'resume', summary: 'lift the halt: changes are allowed again', load: async () => (await import('./commands/halt.js')).resumeCommand },
  {
    name: 'simulator',
    summary: 'run the Proxmox VE simulator (HTTPS, for tests and trying things out)',
    load: async () => (await import('./commands/simulator.js')).simulatorCommand,
  },
  {
    name: 'config',
    summary: 'check the configuration and each cluster connection (config check)',
    load: async () => (await import('./commands/config.js')).configCommand,
  },
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
  if (name === undefined) {
    // A usage error: the overview goes to stderr so a script reading stdout sees nothing.
    io.err(overview());
    return EXIT.usage;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(overview());
    return EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.out(PRODUCT_VERSION);
    return EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.err(`unknown command '${name}'\n\n${overview()}`);
    return EXIT.usage;
  }
  const command = await entry.load();
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${command.name}: ${err.message}\n\n${command.usage}`);
      return EXIT.usage;
    }
    if (isPveError(err)) {
      io.err(`${command.name}: ${err.message}`);
      return EXIT.config;
    }
    io.err(`${command.name}: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT.failed;
  }
}
