/** get_schema's return type of an operation: the fields people read first, the rest folded past a limit. */
import type { Operation, SchemaNode } from '../schema/model.js';
import { returnType } from '../typegen/return-type.js';
import { oneLine, textSyntax } from '../typegen/text-syntax.js';

/** Fields typed of a returned object (or of the objects in a returned list). */
const MAX_FIELDS = 14;
/** Longer enums are shown as their base type. */
const MAX_ENUM = 8;

/**
 * Fields every inventory and status check reads, in the order people think of them: what the
 * thing is, where it is, what it is called, its state, then its size and load. They come first
 * whatever the schema's order or optionality, so a folded type still shows them.
 */
const FIRST = [
  'id',
  'type',
  'node',
  'vmid',
  'name',
  'status',
  'template',
  'pool',
  'tags',
  'userid',
  'tokenid',
  'roleid',
  'groupid',
  'ugid',
  'path',
  'propagate',
  'privs',
  'upid',
  'volid',
  'content',
  'format',
  'cpu',
  'maxcpu',
  'mem',
  'maxmem',
  'disk',
  'maxdisk',
  'used',
  'avail',
  'total',
  'size',
  'uptime',
  'storage',
  'hastate',
  'lock',
  'enabled',
  'active',
];
const FIRST_RANK = new Map(FIRST.map((name, i) => [name, i]));

export interface ReturnsText {
  type: string;
  /** What the type leaves out or how to use the value, for a trailing comment. */
  note?: string;
  /** Requested names that are fields of the returned object (they are typed in full). */
  expanded: string[];
}

/**
 * The return type for get_schema: the declared type, cut down to the first fields (identity and
 * status first, then required, then optional) and one level of nesting so a status object with 40
 * fields stays a line. Every field left out is still named in the note, and fields asked for by
 * name (get_schema `params`) are typed in full. The index signature every object keeps says that
 * more fields exist.
 */
export function returnsText(op: Operation, requested: readonly string[] = []): ReturnsText {
  const root = op.returns;
  const isList = root.type === 'array' && root.items !== undefined;
  const target = isList ? (root.items as SchemaNode) : root;
  const names = Object.keys(target.properties ?? {});
  const expanded = requested.filter((r) => names.includes(r));
  const trimmed = trim(target, 0, new Set(expanded));
  const type = oneLine(returnType(isList ? { ...root, items: trimmed } : trimmed, textSyntax));
  const notes: string[] = [];
  const shown = new Set(Object.keys(trimmed.properties ?? {}));
  const rest = orderFields(Object.entries(target.properties ?? {}))
    .map(([name]) => name)
    .filter((name) => !shown.has(name));
  if (rest.length > 0) {
    notes.push(`${shown.size} of ${names.length} fields typed; also: ${rest.join(', ')} (get_schema params: ['<field>'] types one)`);
  }
  if (op.method !== 'GET' && root.type === 'string' && (!root.description || /task|upid/i.test(root.description))) {
    notes.push('usually a task UPID → await pve.waitTask(upid)');
  }
  return { type, expanded, ...(notes.length > 0 ? { note: notes.join('; ') } : {}) };
}

/** Identity and status fields first (in FIRST order), then required, then optional, schema order within each. */
function orderFields(entries: Array<[string, SchemaNode]>): Array<[string, SchemaNode]> {
  const first = entries.filter(([name]) => FIRST_RANK.has(name)).sort((a, b) => (FIRST_RANK.get(a[0]) as number) - (FIRST_RANK.get(b[0]) as number));
  const others = entries.filter(([name]) => !FIRST_RANK.has(name));
  return [...first, ...others.filter(([, c]) => !c.optional), ...others.filter(([, c]) => c.optional)];
}

function trim(node: SchemaNode, depth: number, expanded: ReadonlySet<string> = new Set()): SchemaNode {
  const out: SchemaNode = { ...node };
  if (out.enum && out.enum.length > MAX_ENUM) delete out.enum;
  if (out.items) out.items = trim(out.items, depth + 1);
  if (!out.properties) return out;
  if (depth >= 2) {
    delete out.properties;
    return out;
  }
  const ordered = orderFields(Object.entries(out.properties));
  const limit = depth === 0 ? MAX_FIELDS : MAX_FIELDS / 2;
  const kept = [...ordered.slice(0, limit), ...ordered.slice(limit).filter(([name]) => expanded.has(name))];
  out.properties = Object.fromEntries(kept.map(([name, child]) => [name, expanded.has(name) ? child : trim(child, depth + 1)]));
  return out;
}
