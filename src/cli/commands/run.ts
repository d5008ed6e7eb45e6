/** `pve-code-mcp run FILE.ts`: the same sandbox, policy and audit as `run_script`, from a terminal. */
import { readFile } from 'node:fs/promises';
import { runScriptAnswer, type RunScriptOutput } from '../../server/tools/run-script.js';
import { renderTable } from '../table.js';
import { boolOpt, EXIT, parseCommandArgs, stringOpt, UsageError } from '../args.js';
import type { Command } from '../command.js';
import { appConfigFrom, CONFIG_OPTIONS, CONFIG_USAGE, openProduct } from '../context.js';

const usage = `Usage: pve-code-mcp run FILE.ts [options]      (FILE "-" reads the script from stdin)

Run a TypeScript script (the body of an async function using \`pve\`) and print its result.
  --dry-run           run reads for real, record writes, print the plan and its planId
  --cluster NAME      cluster to run against (default: the config's default cluster)
  --no-typecheck      skip the type-check against the SDK declarations
  --format F          json (default) or table (for a returned array of objects)
${CONFIG_USAGE}

Exit code 1 when the script fails or is blocked; the error says why.`;

export const runCommand: Command = {
  name: 'run',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      ...CONFIG_OPTIONS,
      'dry-run': { type: 'boolean' },
      cluster: { type: 'string' },
      'no-typecheck': { type: 'boolean' },
      format: { type: 'string' },
    });
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    const [file, ...extra] = args.positionals;
    if (!file || extra.length > 0) throw new UsageError('give exactly one script file');
    const format = stringOpt(args, 'format') ?? 'json';
    if (format !== 'json' && format !== 'table') throw new UsageError(`--format must be json or table, got '${format}'`);
    const code = file === '-' ? await readStdin() : await readFile(file, 'utf8');

    const product = await openProduct(await appConfigFrom(args), io);
    try {
      const output = runScriptAnswer(await product.runScript(
        {
          code,
          ...(boolOpt(args, 'dry-run') ? { dryRun: true } : {}),
          ...(stringOpt(args, 'cluster') ? { cluster: stringOpt(args, 'cluster') as string } : {}),
          ...(boolOpt(args, 'no-typecheck') ? { typecheck: false } : {}),
        },
        {
          onLog: (line) => io.err(`log: ${line}`),
          onProgress: (e) => {
            if (io.isTty) io.err(`task ${e.upid}: ${e.status}${e.lines.length ? ` — ${e.lines[e.lines.length - 1]}` : ''}`);
          },
        },
      ));
      io.out(format === 'table' ? tableOrJson(output) : JSON.stringify(output, null, 2));
      return output.ok ? EXIT.ok : EXIT.failed;
    } finally {
      await product.close();
    }
  },
};

function tableOrJson(output: RunScriptOutput): string {
  if (output.ok && Array.isArray(output.result)) return renderTable(output.result);
  return JSON.stringify(output, null, 2);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
