/**
 * Check and copy one JSON-schema fragment of the apidoc (a parameter, `items`, `properties`, `returns`)
 * and everything nested in it. These fragments are most of the file; a hand-written walk keeps cold
 * loading inside its budget where a recursive zod schema costs a few hundred milliseconds (the path
 * nodes and methods around them are checked by hand in normalize.ts for the same reason).
 *
 * Real schemas write some numbers and flags as strings ("0", "1") and some optional fields as `null`;
 * numbers are coerced and nulls dropped, anything else of the wrong kind is reported by JSON path.
 */
import type { SchemaShapeIssue } from './errors.js';
import type { SchemaNode } from './model.js';

export function readSchemaNode(value: unknown, jsonPath: string, issues: SchemaShapeIssue[]): SchemaNode | undefined {
  return readNode(value, { base: jsonPath, segments: [] }, issues);
}

/** {@link readSchemaNode} for each value of a map (an operation's parameters); `jsonPath` is the map's. */
export function readSchemaNodeMap(map: Record<string, unknown>, jsonPath: string, issues: SchemaShapeIssue[]): Record<string, SchemaNode> {
  const trail: Trail = { base: jsonPath, segments: [] };
  const out: Record<string, SchemaNode> = {};
  for (const name in map) {
    trail.segments.push(name);
    const node = readNode(map[name], trail, issues);
    trail.segments.pop();
    if (node) out[name] = node;
  }
  return out;
}

/** JSON path of the node being read, kept as a stack and only turned into text for an issue. */
interface Trail {
  base: string;
  segments: PropertyKey[];
}

function pathText(trail: Trail, last?: PropertyKey): string {
  const segments = last === undefined ? trail.segments : [...trail.segments, last];
  return trail.base + segments.map(propertyAccess).join('');
}

function readNode(value: unknown, trail: Trail, issues: SchemaShapeIssue[]): SchemaNode | undefined {
  if (!isPlainObject(value)) {
    issues.push({ jsonPath: pathText(trail), message: `expected a schema object, got ${kindOf(value)}` });
    return undefined;
  }
  const out: SchemaNode = {};
  for (const key in value) {
    const raw = value[key];
    if (raw === null || raw === undefined) continue;
    switch (key) {
      case 'type':
        if (typeof raw === 'string' || (Array.isArray(raw) && raw.every((t) => typeof t === 'string'))) out.type = raw as string | string[];
        else bad(issues, trail, key, raw, 'a type name or a list of them');
        break;
      case 'description':
      case 'verbose_description':
      case 'format_description':
      case 'typetext':
      case 'pattern':
      case 'requires':
      case 'title':
        if (typeof raw === 'string') out[key] = raw;
        else bad(issues, trail, key, raw, 'a string');
        break;
      case 'minimum':
      case 'maximum':
      case 'minLength':
      case 'maxLength': {
        const n = toNumber(raw);
        if (n === undefined) bad(issues, trail, key, raw, 'a number');
        else out[key] = n;
        break;
      }
      case 'optional': {
        const n = typeof raw === 'boolean' ? raw : toNumber(raw);
        if (n === undefined) bad(issues, trail, key, raw, '0, 1 or a boolean');
        else out.optional = n;
        break;
      }
      case 'enum':
        if (Array.isArray(raw) && raw.every((v) => typeof v === 'string' || typeof v === 'number')) out.enum = raw as Array<string | number>;
        else bad(issues, trail, key, raw, 'a list of strings or numbers');
        break;
      case 'format':
        if (typeof raw === 'string') out.format = raw;
        else if (isPlainObject(raw)) out.format = readNodeMap(raw, key, trail, issues);
        else bad(issues, trail, key, raw, 'a format name or an object of property formats');
        break;
      case 'properties':
        if (isPlainObject(raw)) out.properties = readNodeMap(raw, key, trail, issues);
        else bad(issues, trail, key, raw, 'an object of property schemas');
        break;
      case 'items': {
        const items = readChild(raw, key, undefined, trail, issues);
        if (items) out.items = items;
        break;
      }
      case 'additionalProperties':
        if (typeof raw === 'boolean' || typeof raw === 'number') out.additionalProperties = raw;
        else if (toNumber(raw) !== undefined) out.additionalProperties = toNumber(raw) as number;
        else {
          const node = readChild(raw, key, undefined, trail, issues);
          if (node) out.additionalProperties = node;
        }
        break;
      default:
        // Everything else (`renderer`, `links`, `oneOf`, `instance-types`, `default`…) is kept as data.
        out[key] = raw;
    }
  }
  return out;
}

function bad(issues: SchemaShapeIssue[], trail: Trail, key: string, raw: unknown, expected: string): void {
  issues.push({ jsonPath: pathText(trail, key), message: `expected ${expected}, got ${kindOf(raw)}` });
}

/** Read the node at `key` (and `name` below it) of the current node; the trail is restored afterwards. */
function readChild(value: unknown, key: string, name: string | undefined, trail: Trail, issues: SchemaShapeIssue[]): SchemaNode | undefined {
  const depth = trail.segments.length;
  trail.segments.push(key);
  if (name !== undefined) trail.segments.push(name);
  const node = readNode(value, trail, issues);
  trail.segments.length = depth;
  return node;
}

function readNodeMap(raw: Record<string, unknown>, key: string, trail: Trail, issues: SchemaShapeIssue[]): Record<string, SchemaNode> {
  const out: Record<string, SchemaNode> = {};
  for (const name in raw) {
    const node = readChild(raw[name], key, name, trail, issues);
    if (node) out[name] = node;
  }
  return out;
}

function toNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number' && Number.isFinite(raw)) return raw;
  if (typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  return undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** `.name` or `["odd-name"]`, as in a JSON path. */
export function propertyAccess(key: PropertyKey): string {
  if (typeof key === 'number') return `[${key}]`;
  const s = String(key);
  return /^[A-Za-z_$][\w$]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`;
}
