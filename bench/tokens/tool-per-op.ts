/**
 * The comparison arm: every API operation exposed as its own MCP tool, as tool-per-operation
 * servers and OpenAPI-to-MCP converters do. Built at run time from whatever schema is loaded (the
 * official one for published figures), so no schema text is ever stored in the repository.
 *
 * - `full`: the operation's whole description, and per parameter its type, description, enum,
 *   range, length, pattern, default and named format. Property-string sub-schemas (`net[n]`'s
 *   model/bridge/…) are left out, so this is a lower bound of what a faithful converter emits.
 * - `minimal`: the one-line summary and bare parameter types, the leanest usable definition.
 */
import { createHash } from 'node:crypto';
import type { ApiModel, HttpMethod, Operation, ParamSpec, SchemaNode } from '../../src/schema/model.js';

export type ToolVariant = 'full' | 'minimal';

export interface JsonSchema {
  type?: string;
  description?: string;
  enum?: Array<string | number>;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
  format?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** Longest tool name several MCP hosts accept. */
const MAX_NAME = 64;

/** `GET /nodes/{node}/qemu/{vmid}/status/current` → `get_nodes_node_qemu_vmid_status_current`. */
export function toolName(method: HttpMethod, path: string): string {
  const base = `${method.toLowerCase()}_${path
    .replace(/[{}]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')}`;
  if (base.length <= MAX_NAME) return base;
  const hash = createHash('sha256').update(`${method} ${path}`).digest('hex').slice(0, 8);
  return `${base.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

export function toolDefinitions(model: ApiModel, variant: ToolVariant): ToolDefinition[] {
  return model.operations.map((op) => toolDefinition(op, variant));
}

function toolDefinition(op: Operation, variant: ToolVariant): ToolDefinition {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const p of op.params) {
    properties[p.name] = variant === 'full' ? fullParam(p) : { type: jsonType(p.type) };
    if (!p.optional) required.push(p.name);
  }
  return {
    name: toolName(op.method, op.path),
    description: variant === 'full' ? op.description : op.summary,
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) },
  };
}

function fullParam(p: ParamSpec): JsonSchema {
  const out: JsonSchema = { type: jsonType(p.type) };
  if (p.description) out.description = p.description;
  if (p.enum) out.enum = p.enum;
  if (p.minimum !== undefined) out.minimum = p.minimum;
  if (p.maximum !== undefined) out.maximum = p.maximum;
  if (p.minLength !== undefined) out.minLength = p.minLength;
  if (p.maxLength !== undefined) out.maxLength = p.maxLength;
  if (p.pattern !== undefined) out.pattern = p.pattern;
  if (p.default !== undefined) out.default = p.default;
  if (typeof p.format === 'string') out.format = p.format;
  if (p.type === 'array' && p.items) out.items = itemSchema(p.items);
  return out;
}

function itemSchema(node: SchemaNode): JsonSchema {
  const type = Array.isArray(node.type) ? node.type[0] : node.type;
  const out: JsonSchema = { type: jsonType(type ?? 'string') };
  if (node.description) out.description = node.description;
  if (node.enum) out.enum = node.enum;
  return out;
}

function jsonType(type: string): string {
  return type === 'any' ? 'string' : type;
}
