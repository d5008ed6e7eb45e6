import type { Operation, SchemaNode } from '../schema/model.js';
import { returnTypeNode } from '../typegen/return-type.js';
import { typeText } from '../typegen/print.js';

/** Fields shown of a returned object (or of the objects in a returned list). */
const MAX_FIELDS = 12;
/** Longer enums are shown as their base type. */
const MAX_ENUM = 8;

export interface ReturnsText {
  type: string;
  /** What the type leaves out or how to use the value, for a trailing comment. */
  note?: string;
}

/**
 * The return type for get_schema: the declared type, cut down to the first fields (required ones
 * first) and one level of nesting so a status object with 40 fields stays a line. The index
 * signature every object keeps says that more fields exist.
 */
export function returnsText(op: Operation): ReturnsText {
  const root = op.returns;
  const isList = root.type === 'array' && root.items !== undefined;
  const target = isList ? (root.items as SchemaNode) : root;
  const total = Object.keys(target.properties ?? {}).length;
  const trimmed = trim(target, 0);
  const type = typeText(returnTypeNode(isList ? { ...root, items: trimmed } : trimmed));
  const notes: string[] = [];
  if (total > MAX_FIELDS) notes.push(`${MAX_FIELDS} of ${total} fields shown`);
  if (op.method !== 'GET' && root.type === 'string' && (!root.description || /task|upid/i.test(root.description))) {
    notes.push('usually a task UPID → await pve.waitTask(upid)');
  }
  return notes.length > 0 ? { type, note: notes.join('; ') } : { type };
}

function trim(node: SchemaNode, depth: number): SchemaNode {
  const out: SchemaNode = { ...node };
  if (out.enum && out.enum.length > MAX_ENUM) delete out.enum;
  if (out.items) out.items = trim(out.items, depth + 1);
  if (!out.properties) return out;
  if (depth >= 2) {
    delete out.properties;
    return out;
  }
  const entries = Object.entries(out.properties);
  const required = entries.filter(([, child]) => !child.optional);
  const optional = entries.filter(([, child]) => child.optional);
  const kept = [...required, ...optional].slice(0, depth === 0 ? MAX_FIELDS : MAX_FIELDS / 2);
  out.properties = Object.fromEntries(kept.map(([name, child]) => [name, trim(child, depth + 1)]));
  return out;
}
