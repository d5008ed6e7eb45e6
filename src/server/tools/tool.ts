/**
 * What the three tool modules share: the definition a tool is registered and listed from, and the
 * error boundary of their handlers. Every word a definition holds is paid for in every
 * conversation, so the whole `tools/list` answer is kept under 700 tokens (an end-to-end test
 * measures it): descriptions teach the workflow, details live in get_schema answers.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, McpError, type CallToolResult, type ServerNotification, type ServerRequest, type Tool, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** What the SDK hands a tool handler besides its arguments: signal, progress token, notifications. */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * A tool's contract. Output schemas declare every field the tool emits; `required` lists are left
 * out of the listing (see `listedTool`) to stay within the token ceiling, and the fields are always
 * present except where the schema marks them optional.
 */
export interface ToolDefinition<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
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

function isEmptySchema(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

function strip(node: unknown, dropped: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => strip(n, dropped));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (dropped.has(key)) continue;
    // An object schema without declared keys says no more than its type; an empty schema for
    // additional properties (anything) is what JSON Schema assumes without it.
    if (key === 'properties' && Object.keys(value as object).length === 0) continue;
    if (key === 'additionalProperties' && isEmptySchema(value)) continue;
    // `properties` maps names to schemas: a property may be called like a keyword.
    out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, strip(v, dropped)])) : strip(value, dropped);
  }
  return out;
}

/**
 * Runs a tool body. Tool failures are results the model can read and act on, not protocol errors,
 * so a thrown error becomes a tool error result.
 */
export async function guard(fn: () => CallToolResult | Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { isError: true, content: [{ type: 'text', text: message }] };
  }
}

/** The SDK's table of request handlers: not public, so reached through this narrow view and checked. */
interface HandlerTable {
  _requestHandlers?: Map<string, (request: unknown, extra: unknown) => Promise<unknown>>;
}

const CHECKED = new WeakSet<McpServer>();

/**
 * `tools/call` with `arguments` that are not an object (`"arguments": "x"`) is invalid params
 * (-32602) with a sentence the client can act on. The SDK parses the request before any tool runs
 * and reports a failed parse as an internal error (-32603) carrying the raw zod issues, so its
 * handler is wrapped and the two fields a client gets wrong (`name`, `arguments`) are checked
 * first. Call once the tools are registered (the SDK installs the handler with the first
 * one); calling again is a no-op.
 */
export function checkToolArguments(server: McpServer): void {
  if (CHECKED.has(server)) return;
  const handlers = (server.server as unknown as HandlerTable)._requestHandlers;
  const call = handlers?.get('tools/call');
  if (!handlers || !call) throw new Error('checkToolArguments: the MCP SDK has no tools/call handler to wrap; register the tools first (or the SDK changed)');
  handlers.set('tools/call', async (request, extra) => {
    const params = (request as { params?: { name?: unknown; arguments?: unknown } }).params;
    const args = params?.arguments;
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
      const got = args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`;
      throw new McpError(ErrorCode.InvalidParams, `tools/call: "arguments" must be an object of the tool's parameters, e.g. {"query": "list vms"}; got ${got}`);
    }
    if (typeof params?.name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'tools/call: "name" must be the tool\'s name, e.g. "search_api"');
    return call(request, extra);
  });
  CHECKED.add(server);
}
