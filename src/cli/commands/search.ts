/** `pve-code-mcp search QUERY`: the search_api engine from a terminal. */
import { ApiSearch, formatHit } from '../../search/index.js';
import { HTTP_METHODS, RISK_CLASSES, type HttpMethod, type RiskClass } from '../../schema/model.js';
import { EXIT, intOpt, parseCommandArgs, stringOpt, UsageError } from '../args.js';
import type { Command } from '../command.js';
import { CONFIG_OPTIONS, CONFIG_USAGE, modelFrom } from '../context.js';

const usage = `Usage: pve-code-mcp search QUERY... [options]

Find API operations by intent, e.g. pve-code-mcp search "snapshot a vm".
  --limit N           number of hits (default 10, max 50)
  --method M          only GET, POST, PUT or DELETE
  --risk R            only read, write, destructive or privileged
  --path-prefix P     only operations under this path
  --schema FILE       search this apidoc.js instead of the configured cluster's schema
  --cluster NAME      which configured cluster's schema
${CONFIG_USAGE}`;

export const searchCommand: Command = {
  name: 'search',
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      ...CONFIG_OPTIONS,
      limit: { type: 'string' },
      method: { type: 'string' },
      risk: { type: 'string' },
      'path-prefix': { type: 'string' },
      schema: { type: 'string' },
      cluster: { type: 'string' },
    });
    if (args.help) {
      io.out(usage);
      return EXIT.ok;
    }
    const query = args.positionals.join(' ').trim();
    if (!query) throw new UsageError('give a query, e.g. "list vms"');
    const method = stringOpt(args, 'method')?.toUpperCase();
    if (method && !(HTTP_METHODS as readonly string[]).includes(method)) throw new UsageError(`--method must be one of ${HTTP_METHODS.join(', ')}`);
    const risk = stringOpt(args, 'risk');
    if (risk && !(RISK_CLASSES as readonly string[]).includes(risk)) throw new UsageError(`--risk must be one of ${RISK_CLASSES.join(', ')}`);
    const limit = intOpt(args, 'limit');
    const prefix = stringOpt(args, 'path-prefix');
    const search = new ApiSearch(await modelFrom(args, io));
    const hits = search.search(query, {
      ...(limit !== undefined ? { limit } : {}),
      ...(method ? { method: method as HttpMethod } : {}),
      ...(risk ? { risk: risk as RiskClass } : {}),
      ...(prefix ? { pathPrefix: prefix } : {}),
    });
    io.out(hits.length > 0 ? hits.map(formatHit).join('\n') : `no operations match "${query}"`);
    return hits.length > 0 ? EXIT.ok : EXIT.failed;
  },
};
