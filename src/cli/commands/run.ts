/** `pve-code-mcp run FILE.ts`: the same sandbox, policy and audit as `run_script`, from a terminal. */
import { readFile } from 'node:fs/promises';
import { runScriptAnswer, type RunScriptOutput } from '../../server/tools/run-script.js';
import { BatchProgress } from '../progress.js';
import { renderCsv, renderTable } from '../table.js';
import { boolOpt, EXIT, parseCommandArgs, stringOpt, UsageError, type ParsedArgs } from '../args.js';
import type { Command } from '../command.js';
import { appConfigFrom, CONFIG_OPTIONS, CONFIG_USAGE, openProduct } from '../context.js';

const FORMATS = ['json', 'table', 'csv'] as const;

const usage = `Usage: pve-code-mcp run FILE.ts [options]      (FILE "-" reads the script from stdin)

Run a TypeScript script and print its result: a file form (\`export default async (pve, args) => …\`,
see \`pve-code-mcp init\`) or the body of an async function using \`pve\`.
  --arg NAME=VALUE    an argument the script declares (repeat for each); checked before it runs
  --dry-run           run reads for real, record writes, print the plan and its planId
  --cluster NAME      cluster to run against (default: the config's default cluster)
  --no-typecheck      skip the type-check against the SDK declarations
  --format F          json (default), table or csv (for a returned array of objects)
${CONFIG_USAGE}

A batch's progress (tasks done of started, the current task, elapsed) goes to stderr.
Exit code 1 when the script fails or is blocked; the error says why.`;

export const runCommand: Command = {
  name: 'run',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      ...CONFIG_OPTIONS,
      arg: { type: 'string', multiple: true },
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
    if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be json, table or csv, got '${format}'`);
    const given = scriptArgs(args);
    const code = file === '-' ? await readStdin() : await readFile(file, 'utf8');

    const product = await openProduct(await appConfigFrom(args), io);
    const progress = new BatchProgress({ raw: (text) => (io.errRaw ? io.errRaw(text) : io.err(text.replace(/^\r\x1b\[K|\n$/g, ''))), tty: io.errIsTty === true });
    try {
      const output = runScriptAnswer(
        await product.runScript(
          {
            code,
            // The operator's own file: its declared patterns are tested too.
            ...(Object.keys(given).length > 0 ? { args: given, argsFromText: true } : {}),
            argPatterns: true,
            ...(boolOpt(args, 'dry-run') ? { dryRun: true } : {}),
            ...(stringOpt(args, 'cluster') ? { cluster: stringOpt(args, 'cluster') as string } : {}),
            ...(boolOpt(args, 'no-typecheck') ? { typecheck: false } : {}),
          },
          {
            onLog: (line) => {
              progress.finish();
              io.err(`log: ${line}`);
            },
            onProgress: (e) => progress.event(e),
          },
        ),
      );
      progress.finish();
      io.out(render(output, format as (typeof FORMATS)[number]));
      return output.ok ? EXIT.ok : EXIT.failed;
    } finally {
      await product.close();
    }
  },
};

/** `--arg pool=development --arg name=pre_upgrade` → `{ pool: 'development', name: 'pre_upgrade' }` (converted by type later). */
function scriptArgs(args: ParsedArgs): Record<string, string> {
  const raw = args.values.arg;
  const given: Record<string, string> = {};
  for (const item of Array.isArray(raw) ? raw : []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--arg takes NAME=VALUE, got '${item}'`);
    const name = item.slice(0, eq);
    if (Object.hasOwn(given, name)) throw new UsageError(`--arg ${name} is given twice`);
    given[name] = item.slice(eq + 1);
  }
  return given;
}

function render(output: RunScriptOutput, format: (typeof FORMATS)[number]): string {
  if (format !== 'json' && output.ok && Array.isArray(output.result)) return format === 'csv' ? renderCsv(output.result) : renderTable(output.result);
  return JSON.stringify(output, null, 2);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
