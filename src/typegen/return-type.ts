/** The TypeScript type a call resolves to, from PVE's return schema. */
import type { SchemaNode } from '../schema/model.js';
import { literalUnion, recordOfAny } from './param-type.js';
import type { TypeSyntax } from './syntax.js';

/**
 * PVE return schema → the type a call resolves to. Generous on purpose, so valid scripts type-check
 * against what PVE really sends: objects keep an `any` index signature (responses carry more keys
 * than declared), booleans arrive as 0/1, and anything untyped is `any`, not `unknown`.
 */
export function returnType<T, M>(node: SchemaNode | undefined, syntax: TypeSyntax<T, M>): T {
  if (!node) return syntax.keyword('any');
  if (node.enum && node.enum.length > 0) return literalUnion(syntax, node.enum, node.type === 'integer' || node.type === 'number');
  switch (node.type) {
    case 'object':
      return objectType(node, syntax);
    case 'array':
      return syntax.array(node.items ? returnType(node.items, syntax) : syntax.keyword('any'));
    case 'string':
      return syntax.keyword('string');
    case 'integer':
    case 'number':
      return syntax.keyword('number');
    case 'boolean':
      return syntax.union([syntax.keyword('boolean'), syntax.keyword('number')]);
    case 'null':
      return syntax.nullType();
    default:
      return syntax.keyword('any');
  }
}

function objectType<T, M>(node: SchemaNode, syntax: TypeSyntax<T, M>): T {
  if (Object.keys(node.properties ?? {}).length === 0) return recordOfAny(syntax);
  return syntax.typeLiteral(objectMembers(node, syntax));
}

/** The members of an object with declared properties, the `any` index signature last. */
export function objectMembers<T, M>(node: SchemaNode, syntax: TypeSyntax<T, M>): M[] {
  const members = Object.entries(node.properties ?? {}).map(([name, child]) => syntax.property(name, isOptional(child), returnType(child, syntax)));
  members.push(syntax.indexSignature(syntax.keyword('string'), syntax.keyword('any')));
  return members;
}

function isOptional(node: SchemaNode): boolean {
  return node.optional === true || (typeof node.optional === 'number' && node.optional !== 0);
}
