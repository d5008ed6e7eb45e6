/**
 * The three tools as the model sees them: names, descriptions and JSON schemas. Every word here is
 * paid for in every conversation, so the whole `tools/list` answer is kept under 700 tokens (an
 * end-to-end test measures it). Descriptions teach the workflow; details live in get_schema answers.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { HTTP_METHODS, RISK_CLASSES } from '../../schema/model.js';

const MAX_QUERY = 500;
const MAX_CODE = 100_000;

const searchApiInput = {
  query: z.string().min(1).max(MAX_QUERY).describe('Task or question, e.g. "snapshot a vm"'),
  limit: z.number().int().min(1).max(50).optional(),
  method: z.enum(HTTP_METHODS).optional(),
  risk: z.enum(RISK_CLASSES).optional(),
  pathPrefix: z.string().max(200).optional(),
  cluster: z.string().max(100).optional(),
};

/**
 * Output schemas declare every field the tools emit. `required` lists are left out of the
 * listing (compactJsonSchema) to stay within the token ceiling; the fields are always present
 * except where the code marks them optional.
 */
const searchApiOutput = {
  results: z.array(
    z.object({ method: z.string(), path: z.string(), summary: z.string(), risk: z.string(), verdict: z.string() }),
  ),
};

const getSchemaInput = {
  operations: z.array(z.string().min(1).max(300)).min(1).max(20).describe('"METHOD /path" or "/path"'),
  params: z.array(z.string().max(100)).max(100).optional().describe('Params/return fields to expand'),
  cluster: z.string().max(100).optional(),
};

const getSchemaOutput = {
  operations: z.array(
    z.object({ method: z.string(), path: z.string(), risk: z.string(), verdict: z.string(), permission: z.string(), signature: z.string() }),
  ),
};

const runScriptInput = {
  code: z.string().min(1).max(MAX_CODE),
  dryRun: z.boolean().optional(),
  cluster: z.string().max(100).optional(),
  typecheck: z.boolean().optional(),
};

/** `result` is null when the script returned nothing or did not run. */
const runScriptOutput = {
  ok: z.boolean(),
  result: z.unknown(),
  logs: z.array(z.string()),
  stats: z.object({}),
  plan: z.object({}).optional(),
  error: z.object({ kind: z.string(), message: z.string() }).optional(),
  warnings: z.array(z.object({})).optional(),
  approval: z.object({}).optional(),
  truncated: z.object({ note: z.string() }).optional(),
};

const SEARCH_API_DESCRIPTION =
  'Find Proxmox VE API operations by intent (whole API). Workflow: search_api → get_schema → run_script.';

const GET_SCHEMA_DESCRIPTION =
  'TypeScript signatures of operations: params, returns, permission, risk and policy verdict, example call.';

const RUN_SCRIPT_DESCRIPTION = [
  'Run an async TypeScript function body against the typed `pve` SDK in a sandbox; filter there, `return` only what is needed.',
  "`await pve.get|post|put|delete(path, params)` with get_schema paths: pve.get('/nodes/{node}/qemu', {node}).",
  'Writes return a task UPID: `await pve.waitTask(upid)`.',
  'dryRun: reads run, writes are planned. Writes needing approval ask the user.',
].join(' ');

export interface ToolDefinition<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
}

// Idempotent/destructive hints only mean something for tools that write, so read-only ones omit them.
export const SEARCH_API = {
  name: 'search_api',
  title: 'Search PVE API',
  description: SEARCH_API_DESCRIPTION,
  input: searchApiInput,
  output: searchApiOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
} satisfies ToolDefinition;

export const GET_SCHEMA = {
  name: 'get_schema',
  title: 'PVE API signatures',
  description: GET_SCHEMA_DESCRIPTION,
  input: getSchemaInput,
  output: getSchemaOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
} satisfies ToolDefinition;

/**
 * run_script's hints follow the most permissive configured cluster: only when no cluster's policy
 * can change anything is it read-only (clients auto-approve tools on that hint).
 */
export function runScriptTool(readOnlyPolicy: boolean) {
  return {
    name: 'run_script',
    title: 'Run PVE script',
    description: RUN_SCRIPT_DESCRIPTION,
    input: runScriptInput,
    output: runScriptOutput,
    // Omitted hints take the spec's defaults: not idempotent, open world.
    annotations: readOnlyPolicy ? { readOnlyHint: true } : { readOnlyHint: false, destructiveHint: true },
  } satisfies ToolDefinition;
}

/** What `registerTool` takes for a definition. */
export function registration<I extends z.ZodRawShape, O extends z.ZodRawShape>(tool: ToolDefinition<I, O>) {
  return { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: tool.annotations };
}

/**
 * A tool as `tools/list` shows it. The SDK's own listing adds a `$schema` URL to every schema and
 * forbids extra keys in outputs (so a new optional output field would break strict clients);
 * this one emits the plain draft-7 schemas, and leaves out the size and range limits that only
 * guard the server (the zod schemas still enforce them on every call, with a clear message).
 */
export function listedTool(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: compactJsonSchema(tool.input, GUARD_KEYWORDS) as Tool['inputSchema'],
    outputSchema: compactJsonSchema(tool.output, OUTPUT_DROPPED) as NonNullable<Tool['outputSchema']>,
    annotations: tool.annotations,
  };
}

const GUARD_KEYWORDS = new Set(['$schema', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minimum', 'maximum']);
/** Output schemas also drop `required` and the `additionalProperties` zod adds to objects: they describe, the server emits. */
const OUTPUT_DROPPED = new Set([...GUARD_KEYWORDS, 'required', 'additionalProperties']);

function compactJsonSchema(shape: z.ZodRawShape, dropped: ReadonlySet<string>): Record<string, unknown> {
  return strip(z.toJSONSchema(z.object(shape), { target: 'draft-7', io: 'input' }), dropped) as Record<string, unknown>;
}

function strip(node: unknown, dropped: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => strip(n, dropped));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (dropped.has(key)) continue;
    // An object schema without declared keys says no more than its type.
    if (key === 'properties' && dropped.has('required') && Object.keys(value as object).length === 0) continue;
    // `properties` maps names to schemas: a property may be called like a keyword.
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, strip(v, dropped)]))
        : strip(value, dropped);
  }
  return out;
}
