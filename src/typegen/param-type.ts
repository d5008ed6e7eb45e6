/** The TypeScript type of a PVE parameter, as the client puts it on the wire. */
import type { ParamSpec, SchemaNode } from '../schema/model.js';
import type { TypeSyntax } from './syntax.js';

/**
 * PVE parameter schema → the TypeScript type a script passes. Matches what the client puts on the
 * wire: booleans go out as 1/0 (so both spellings are accepted), list formats (`pve-vmid-list`,
 * `pve-configid-list`…) are comma strings or arrays, enums become literal unions.
 */
export function paramType<T, M>(spec: Pick<ParamSpec, 'type' | 'format' | 'enum' | 'items'>, syntax: TypeSyntax<T, M>): T {
  return valueType(syntax, spec.type, spec.format, spec.enum, spec.items);
}

/** Formats whose values are numbers whatever `type` says. */
const NUMERIC_FORMATS = new Set(['pve-vmid']);

function valueType<T, M>(
  syntax: TypeSyntax<T, M>,
  type: ParamSpec['type'] | SchemaNode['type'],
  format: ParamSpec['format'],
  enumValues: ReadonlyArray<string | number> | undefined,
  items: SchemaNode | undefined,
): T {
  if (enumValues && enumValues.length > 0) return literalUnion(syntax, enumValues, type === 'integer' || type === 'number');
  if (typeof format === 'string' && NUMERIC_FORMATS.has(format)) return syntax.keyword('number');
  switch (type) {
    case 'boolean':
      return syntax.union([syntax.keyword('boolean'), syntax.numberLiteral(0), syntax.numberLiteral(1)]);
    case 'integer':
    case 'number':
      return syntax.keyword('number');
    case 'string':
      return typeof format === 'string' && format.endsWith('-list') ? listType(syntax, format) : syntax.keyword('string');
    case 'array':
      return syntax.array(items ? valueType(syntax, items.type, items.format, items.enum, items.items) : syntax.keyword('any'));
    case 'object':
      return recordOfAny(syntax);
    case 'null':
      return syntax.nullType();
    default:
      return syntax.keyword('any');
  }
}

/** `string | string[]`; elements of numeric lists (`pve-vmid-list`) may also be numbers. */
function listType<T, M>(syntax: TypeSyntax<T, M>, format: string): T {
  const base = format.slice(0, -'-list'.length);
  const element = NUMERIC_FORMATS.has(base) ? syntax.union([syntax.keyword('string'), syntax.keyword('number')]) : syntax.keyword('string');
  return syntax.union([syntax.keyword('string'), syntax.array(element)]);
}

export function literalUnion<T, M>(syntax: TypeSyntax<T, M>, values: ReadonlyArray<string | number>, numeric: boolean): T {
  const literals = [...new Set(values.map(String))].map((v) => (numeric && /^-?\d+(\.\d+)?$/.test(v) ? syntax.numberLiteral(Number(v)) : syntax.stringLiteral(v)));
  return literals.length === 1 ? (literals[0] as T) : syntax.union(literals);
}

export function recordOfAny<T, M>(syntax: TypeSyntax<T, M>): T {
  return syntax.reference('Record', [syntax.keyword('string'), syntax.keyword('any')]);
}
