/** `pve-code-mcp types`: the cluster's SDK declarations and a tsconfig, for editors and `tsc --noEmit`. */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { sdkDeclarationFiles } from '../../typegen/index.js';
import { EXIT, parseCommandArgs, stringOpt, UsageError } from '../args.js';
import type { Command } from '../command.js';
import { CONFIG_OPTIONS, CONFIG_USAGE, modelFrom } from '../context.js';
import { ensureDir, TSCONFIG, typesDir, writeNew } from '../script-folder.js';

const usage = `Usage: pve-code-mcp types [options]

Write the connected cluster's SDK declarations (the ones run_script checks scripts against) to
DIR/pve-types/, and DIR/tsconfig.json unless it exists, so an editor or \`npx tsc --noEmit -p DIR\`
checks a script file as run_script does. Run it again after a PVE upgrade.
  --out DIR           the scripts folder (default: the current directory)
  --cluster NAME      which configured cluster's schema
  --schema FILE       use this apidoc.js instead of a cluster's schema
${CONFIG_USAGE}`;

export const typesCommand: Command = {
  name: 'types',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { ...CONFIG_OPTIONS, out: { type: 'string' }, cluster: { type: 'string' }, schema: { type: 'string' } }, false);
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    const out = resolve(stringOpt(args, 'out') ?? '.');
    if (stringOpt(args, 'out') === '') throw new UsageError('--out needs a directory');
    const files = sdkDeclarationFiles(await modelFrom(args, io));
    const dir = typesDir(out);
    await ensureDir(dir);
    for (const f of files) await writeFile(join(dir, f.fileName), f.text);
    const tsconfig = await writeNew(join(out, 'tsconfig.json'), TSCONFIG);
    io.out(`wrote ${files.map((f) => join(dir, f.fileName)).join(', ')}${tsconfig ? ` and ${join(out, 'tsconfig.json')}` : ''}`);
    return EXIT.ok;
  },
};
