/** `pve-code-mcp schema "METHOD /path"`: get_schema from a terminal. */
import { describeOperations } from '../../describe/index.js';
import { renderSchemaText } from '../../server/tools/get-schema.js';
import { EXIT, parseCommandArgs, stringOpt, UsageError } from '../args.js';
import type { Command } from '../command.js';
import { CONFIG_OPTIONS, CONFIG_USAGE, modelFrom } from '../context.js';

const usage = `Usage: pve-code-mcp schema SPEC... [options]

Print the TypeScript signature of operations. SPEC is "METHOD /path" or "/path" (all methods).
  --params a,b        show these parameters of large operations in full
  --schema FILE       use this apidoc.js instead of the configured cluster's schema
  --cluster NAME      which configured cluster's schema
${CONFIG_USAGE}`;

export const schemaCommand: Command = {
  name: 'schema',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { ...CONFIG_OPTIONS, params: { type: 'string' }, schema: { type: 'string' }, cluster: { type: 'string' } });
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    if (args.positionals.length === 0) throw new UsageError('give at least one operation, e.g. "GET /nodes/{node}/qemu"');
    const params = stringOpt(args, 'params')
      ?.split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const result = describeOperations(await modelFrom(args, io), args.positionals, params ? { params } : {});
    io.out(renderSchemaText(result));
    return result.notFound.length > 0 ? EXIT.failed : EXIT.ok;
  },
};
