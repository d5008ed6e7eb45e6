/**
 * `search_api`: operations found by intent, each with its risk and the verdict of the cluster's
 * policy, or listed by that verdict. The text answer is one `formatHit` line per hit, what clients
 * without structured content show the model.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Product, RunPrincipal } from '../../app/product.js';
import { operationVerdict, type Verdict } from '../../describe/verdict.js';
import { HTTP_METHODS, RISK_CLASSES, type Operation } from '../../schema/model.js';
// The engine (MAX_LIMIT's module) loads with the first search, not on the way to tools/list.
import type { SearchHit, SearchOptions } from '../../search/index.js';
import { SearchQueryError } from '../../search/errors.js';
import { helperLine } from '../../search/helpers.js';
import { formatHit } from '../../search/hit.js';
import { guard, registration, type Extra, type ToolDefinition } from './tool.js';

const MAX_QUERY = 500;

/** The verdicts an agent lists by; `refused` includes what runs only for targets inside the policy's scopes. */
const VERDICT_FILTERS = ['allowed', 'approval', 'refused'] as const;
type VerdictFilter = (typeof VERDICT_FILTERS)[number];
const FILTER_OF: Readonly<Record<Verdict, VerdictFilter>> = { allowed: 'allowed', approval: 'approval', refused: 'refused', scoped: 'refused' };

// Every declared keyword is paid for in every conversation (tools/list ≤ 700 tokens, docs/search.md
// "What search_api declares"): `method` and `risk` are plain strings checked here, since every hit
// line shows their values, and `limit` is clamped rather than bounded.
// Idempotent/destructive hints only mean something for tools that write, so read-only ones omit them.
export const SEARCH_API = {
  name: 'search_api',
  title: 'Search PVE API',
  description: 'Find Proxmox VE API operations by intent (whole API). Workflow: search_api → get_schema → run_script.',
  input: {
    query: z.string().max(MAX_QUERY).optional().describe('Task or question, e.g. "snapshot a vm"'),
    limit: z.number().int().min(1).optional(),
    method: z.string().max(10).optional(),
    risk: z.string().max(20).optional(),
    verdict: z.enum(VERDICT_FILTERS).optional(),
    pathPrefix: z.string().max(200).optional(),
    cluster: z.string().max(100).optional(),
  },
  output: {
    results: z.array(z.object({ method: z.string(), path: z.string(), summary: z.string(), risk: z.string(), verdict: z.string() })),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
} satisfies ToolDefinition;

type SearchArgs = { [K in keyof typeof SEARCH_API.input]: z.output<(typeof SEARCH_API.input)[K]> };

/** `viewer`: whose effective policy the verdicts are (over HTTP, the principal asking). */
export function registerSearchApi(server: McpServer, product: Product, viewer: (extra: Extra) => RunPrincipal | undefined = () => undefined): ToolDefinition {
  server.registerTool(SEARCH_API.name, registration(SEARCH_API), async (args, extra) =>
    guard(async () => {
      const { MAX_LIMIT } = await import('../../search/index.js');
      const principal = viewer(extra);
      const { query = '', verdict, limit: asked, cluster } = args as SearchArgs;
      const limit = asked === undefined ? undefined : Math.min(asked, MAX_LIMIT);
      const options: SearchOptions & { cluster?: string; principal?: RunPrincipal } = {
        ...(limit !== undefined ? { limit } : {}),
        ...choice('method', args.method, HTTP_METHODS),
        ...choice('risk', args.risk, RISK_CLASSES),
        ...(args.pathPrefix !== undefined ? { pathPrefix: args.pathPrefix } : {}),
        ...(cluster !== undefined ? { cluster } : {}),
        ...(principal ? { principal } : {}),
        ...(verdict !== undefined ? { where: verdictFilter(product, cluster, verdict, principal) } : {}),
      };
      const hits = await product.search(query, options);
      const results = hits.map((h) => ({ method: h.method, path: h.path, summary: h.summary, risk: h.risk, verdict: h.verdict ?? 'unknown' }));
      const notes = [
        ...(asked !== undefined && asked > MAX_LIMIT ? [`(limit ${asked} is over the maximum: showing at most ${MAX_LIMIT})`] : []),
        ...(limit !== undefined && hits.length === limit && query.trim() === '' ? ['(more may match: narrow with pathPrefix, method, risk or a query)'] : []),
      ];
      return { structuredContent: { results }, content: [{ type: 'text', text: renderSearchText(query, hits, notes) }] };
    }),
  );
  return SEARCH_API;
}

/** A filter value checked against its allowed values (case-insensitive), with a message that lists them. */
function choice<K extends 'method' | 'risk', V extends string>(name: K, value: string | undefined, allowed: readonly V[]): Partial<Record<K, V>> {
  if (value === undefined) return {};
  const found = allowed.find((a) => a.toLowerCase() === value.trim().toLowerCase());
  if (found === undefined) throw new SearchQueryError(`${name} "${value}" is not one of ${allowed.join(', ')}: give one of them or leave ${name} out`);
  return { [name]: found } as Partial<Record<K, V>>;
}

/** Keeps the operations whose verdict under the principal's policy on the cluster (at default parameters) is the one asked. */
function verdictFilter(product: Product, cluster: string | undefined, wanted: VerdictFilter, principal: RunPrincipal | undefined): (op: Operation) => boolean {
  const runtime = product.cluster(cluster);
  const context = { cluster: runtime.name, policy: product.policyFor(runtime.name, principal) };
  return (op) => FILTER_OF[operationVerdict(op, context).verdict] === wanted;
}

function renderSearchText(query: string, hits: SearchHit[], notes: string[]): string {
  if (hits.length === 0) {
    return query.trim() === '' ? 'No operations match these filters.' : `No operations match "${query}". Try other words (e.g. the object: vm, container, storage, node) or a pathPrefix.`;
  }
  const helpers = helperLine(hits.map((h) => h.key));
  return [...hits.map(formatHit), ...(helpers ? [helpers] : []), ...notes].join('\n');
}
