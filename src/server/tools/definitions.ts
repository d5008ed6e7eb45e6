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
  query: z.string().min(1).max(MAX_QUERY).describe('What to do, e.g. "snapshot a vm"'),
  limit: z.number().int().min(1).max(50).optional(),
  method: z.enum(HTTP_METHODS).optional(),
  risk: z.enum(RISK_CLASSES).optional(),
  pathPrefix: z.string().max(200).optional(),
};

const searchApiOutput = {
  results: z.array(z.object({ method: z.string(), path: z.string(), summary: z.string(), risk: z.string() })),
};

const getSchemaInput = {
  operations: z.array(z.string().min(1).max(300)).min(1).max(20).describe('"METHOD /path" or "/path"'),
  params: z.array(z.string().max(100)).max(100).optional().describe('Params to show in full'),
};

const getSchemaOutput = {
  operations: z.array(
    z.object({ method: z.string(), path: z.string(), risk: z.string(), permission: z.string(), signature: z.string() }),
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
  stats: z.record(z.string(), z.unknown()),
  plan: z.unknown().optional(),
  error: z.unknown().optional(),
};

const SEARCH_API_DESCRIPTION =
  'Find Proxmox VE API operations by intent (whole API). Workflow: search_api → get_schema → run_script.';

const GET_SCHEMA_DESCRIPTION =
  'TypeScript signatures of operations: params, return type, permission, risk, example call.';

const RUN_SCRIPT_DESCRIPTION = [
  'Run TypeScript (an async function body) against the typed `pve` SDK in a sandbox; filter there and `return` only what is needed.',
  "`await pve.get|post|put|delete(path, params)`, paths as in get_schema: pve.get('/nodes/{node}/qemu', {node}).",
  'Async writes return a UPID: `await pve.waitTask(upid)` → {ok, exitstatus, log}. pve.cluster(name) picks a cluster; console.log is returned.',
  'Policy and budgets apply. dryRun: reads run, writes are planned (planId). Writes needing approval ask the user.',
].join(' ');

export interface ToolDefinition<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
}

// Idempotent/destructive hints only mean something for tools that write, so read-only ones omit them.
export const SEARCH_API = {
  name: 'search_api',
  description: SEARCH_API_DESCRIPTION,
  input: searchApiInput,
  output: searchApiOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
} satisfies ToolDefinition;

export const GET_SCHEMA = {
  name: 'get_schema',
  description: GET_SCHEMA_DESCRIPTION,
  input: getSchemaInput,
  output: getSchemaOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
} satisfies ToolDefinition;

/** run_script's hints follow the active policy: under `read-only` it cannot change anything. */
export function runScriptTool(readOnlyPolicy: boolean) {
  return {
    name: 'run_script',
    description: RUN_SCRIPT_DESCRIPTION,
    input: runScriptInput,
    output: runScriptOutput,
    // Omitted hints take the spec's defaults: not idempotent, open world.
    annotations: readOnlyPolicy ? { readOnlyHint: true } : { readOnlyHint: false, destructiveHint: true },
  } satisfies ToolDefinition;
}

/** What `registerTool` takes for a definition. */
export function registration<I extends z.ZodRawShape, O extends z.ZodRawShape>(tool: ToolDefinition<I, O>) {
  return { description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: tool.annotations };
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
    description: tool.description,
    inputSchema: compactJsonSchema(tool.input) as Tool['inputSchema'],
    outputSchema: compactJsonSchema(tool.output) as NonNullable<Tool['outputSchema']>,
    annotations: tool.annotations,
  };
}

const GUARD_KEYWORDS = new Set(['$schema', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minimum', 'maximum']);

function compactJsonSchema(shape: z.ZodRawShape): Record<string, unknown> {
  return strip(z.toJSONSchema(z.object(shape), { target: 'draft-7', io: 'input' })) as Record<string, unknown>;
}

function strip(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strip);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (GUARD_KEYWORDS.has(key)) continue;
    // `properties` maps names to schemas: a property may be called like a keyword.
    out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, strip(v)])) : strip(value);
  }
  return out;
}
