/**
 * `search_api`: operations found by intent, each with its risk and the verdict of the cluster's
 * policy. The text answer is one `formatHit` line per hit, what clients without structured
 * content show the model.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Product } from '../../app/product.js';
import { HTTP_METHODS, RISK_CLASSES } from '../../schema/model.js';
import { formatHit, type SearchHit } from '../../search/index.js';
import { guard, registration, type ToolDefinition } from './tool.js';

const MAX_QUERY = 500;

// Idempotent/destructive hints only mean something for tools that write, so read-only ones omit them.
export const SEARCH_API = {
  name: 'search_api',
  title: 'Search PVE API',
  description: 'Find Proxmox VE API operations by intent (whole API). Workflow: search_api → get_schema → run_script.',
  input: {
    query: z.string().min(1).max(MAX_QUERY).describe('Task or question, e.g. "snapshot a vm"'),
    limit: z.number().int().min(1).max(50).optional(),
    method: z.enum(HTTP_METHODS).optional(),
    risk: z.enum(RISK_CLASSES).optional(),
    pathPrefix: z.string().max(200).optional(),
    cluster: z.string().max(100).optional(),
  },
  output: {
    results: z.array(
      z.object({ method: z.string(), path: z.string(), summary: z.string(), risk: z.string(), verdict: z.string() }),
    ),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
} satisfies ToolDefinition;

export function registerSearchApi(server: McpServer, product: Product): ToolDefinition {
  server.registerTool(SEARCH_API.name, registration(SEARCH_API), async (args) =>
    guard(() => {
      const { query, ...options } = args;
      const hits = product.search(query, options);
      const results = hits.map((h) => ({ method: h.method, path: h.path, summary: h.summary, risk: h.risk, verdict: h.verdict ?? 'unknown' }));
      return { structuredContent: { results }, content: [{ type: 'text', text: renderSearchText(query, hits) }] };
    }),
  );
  return SEARCH_API;
}

function renderSearchText(query: string, hits: SearchHit[]): string {
  if (hits.length === 0) return `No operations match "${query}". Try other words (e.g. the object: vm, container, storage, node) or a pathPrefix.`;
  return hits.map(formatHit).join('\n');
}
