/** `pve-code-mcp init [DIR]`: a scripts folder with one example, ready for `types` and `run`. */
import { join, resolve } from 'node:path';
import { EXIT, parseCommandArgs, UsageError } from '../args.js';
import type { Command } from '../command.js';
import { ensureDir, EXAMPLE, EXAMPLE_NAME, TSCONFIG, writeNew } from '../script-folder.js';

const usage = `Usage: pve-code-mcp init [DIR]

Set up a scripts folder (default: ./scripts) with an example script in the file form and a
tsconfig.json; files that exist are left alone. Then write the cluster's declarations into it
with \`pve-code-mcp types --out DIR\`.`;

export const initCommand: Command = {
  name: 'init',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {});
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    if (args.positionals.length > 1) throw new UsageError('give at most one directory');
    const dir = resolve(args.positionals[0] ?? 'scripts');
    await ensureDir(dir);
    const written: string[] = [];
    for (const [name, text] of [
      [EXAMPLE_NAME, EXAMPLE],
      ['tsconfig.json', TSCONFIG],
    ] as const) {
      if (await writeNew(join(dir, name), text)) written.push(name);
    }
    io.out(
      [
        written.length > 0 ? `${dir}: wrote ${written.join(', ')}` : `${dir}: already set up (nothing overwritten)`,
        'Next:',
        `  pve-code-mcp types --out ${dir}        # the cluster's SDK declarations, for your editor and tsc`,
        `  npx tsc --noEmit -p ${dir}             # check every script as run_script does`,
        `  pve-code-mcp run ${join(dir, EXAMPLE_NAME)} --arg pool=development --arg name=pre_upgrade --dry-run`,
      ].join('\n'),
    );
    return EXIT.ok;
  },
};
