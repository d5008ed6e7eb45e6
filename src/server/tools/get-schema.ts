/**
 * `get_schema`: the TypeScript signature of named operations (params, returns, permission, risk,
 * the policy's verdict, an example call), and for each name that matches nothing what it may have
 * meant. `pve-code-mcp schema` prints the same text.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Product, RunPrincipal } from '../../app/product.js';
import type { DescribeResult } from '../../describe/index.js';
import { VERDICT_TEXT } from '../../describe/verdict.js';
import { guard, registration, type Extra, type ToolDefinition } from './tool.js';

export const GET_SCHEMA = {
  name: 'get_schema',
  title: 'PVE API signatures',
  description: 'TypeScript signatures of operations: params, returns, permission, risk and policy verdict, example call.',
  input: {
    operations: z.array(z.string().min(1).max(300)).min(1).max(20).describe('"METHOD /path" or "/path"'),
    params: z.array(z.string().max(100)).max(100).optional().describe('Params/return fields to expand'),
    cluster: z.string().max(100).optional(),
  },
  output: {
    operations: z.array(z.object({ method: z.string(), path: z.string(), risk: z.string(), verdict: z.string(), permission: z.string(), signature: z.string() })),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
} satisfies ToolDefinition;

/** `viewer`: whose effective policy the verdicts are (over HTTP, the principal asking). */
export function registerGetSchema(server: McpServer, product: Product, viewer: (extra: Extra) => RunPrincipal | undefined = () => undefined): ToolDefinition {
  server.registerTool(GET_SCHEMA.name, registration(GET_SCHEMA), async (args, extra) =>
    guard(() => {
      const principal = viewer(extra);
      const described = product.describe(args.operations, {
        ...(principal ? { principal } : {}),
        ...(args.params ? { params: args.params } : {}),
        ...(args.cluster !== undefined ? { cluster: args.cluster } : {}),
      });
      const operations = described.operations.map((o) => ({
        method: o.method,
        path: o.path,
        risk: o.risk,
        verdict: o.verdict ? VERDICT_TEXT[o.verdict.verdict] : 'unknown',
        permission: o.permission,
        signature: o.signature,
      }));
      const text = renderSchemaText(described);
      if (operations.length === 0) return { isError: true, content: [{ type: 'text', text }] };
      product.anticipateRun(args.cluster);
      return { structuredContent: { operations }, content: [{ type: 'text', text }] };
    }),
  );
  return GET_SCHEMA;
}

/** The signatures, then a line per name that matched nothing, with what it may have meant. */
export function renderSchemaText(described: DescribeResult): string {
  const parts = described.operations.map((o) => o.signature);
  for (const miss of described.notFound) {
    const hint = miss.suggestions.length > 0 ? ` Did you mean: ${miss.suggestions.join(', ')}?` : ' Use search_api to find it.';
    parts.push(`Not found: ${miss.spec}.${hint}`);
  }
  return parts.join('\n\n');
}
