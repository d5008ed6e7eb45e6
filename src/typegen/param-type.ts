import ts from 'typescript';
import type { ParamSpec, SchemaNode } from '../schema/model.js';

/**
 * PVE parameter schema → the TypeScript type a script passes. Matches what the client puts on the
 * wire: booleans go out as 1/0 (so both spellings are accepted), list formats (`pve-vmid-list`,
 * `pve-configid-list`…) are comma strings or arrays, enums become literal unions.
 */
export function paramTypeNode(spec: Pick<ParamSpec, 'type' | 'format' | 'enum' | 'items'>): ts.TypeNode {
  return valueType(spec.type, spec.format, spec.enum, spec.items);
}

const f = ts.factory;
const keyword = (kind: ts.KeywordTypeSyntaxKind) => f.createKeywordTypeNode(kind);

/** Formats whose values are numbers whatever `type` says. */
const NUMERIC_FORMATS = new Set(['pve-vmid']);

function valueType(
  type: ParamSpec['type'] | SchemaNode['type'],
  format: ParamSpec['format'],
  enumValues: ReadonlyArray<string | number> | undefined,
  items: SchemaNode | undefined,
): ts.TypeNode {
  if (enumValues && enumValues.length > 0) return literalUnion(enumValues, type === 'integer' || type === 'number');
  if (typeof format === 'string' && NUMERIC_FORMATS.has(format)) return keyword(ts.SyntaxKind.NumberKeyword);
  switch (type) {
    case 'boolean':
      return f.createUnionTypeNode([keyword(ts.SyntaxKind.BooleanKeyword), numberLiteral(0), numberLiteral(1)]);
    case 'integer':
    case 'number':
      return keyword(ts.SyntaxKind.NumberKeyword);
    case 'string':
      return typeof format === 'string' && format.endsWith('-list') ? listType(format) : keyword(ts.SyntaxKind.StringKeyword);
    case 'array':
      return f.createArrayTypeNode(items ? valueType(items.type, items.format, items.enum, items.items) : keyword(ts.SyntaxKind.AnyKeyword));
    case 'object':
      return recordOfAny();
    case 'null':
      return f.createLiteralTypeNode(f.createNull());
    default:
      return keyword(ts.SyntaxKind.AnyKeyword);
  }
}

/** `string | string[]`; elements of numeric lists (`pve-vmid-list`) may also be numbers. */
function listType(format: string): ts.TypeNode {
  const base = format.slice(0, -'-list'.length);
  const element: ts.TypeNode = NUMERIC_FORMATS.has(base)
    ? f.createParenthesizedType(f.createUnionTypeNode([keyword(ts.SyntaxKind.StringKeyword), keyword(ts.SyntaxKind.NumberKeyword)]))
    : keyword(ts.SyntaxKind.StringKeyword);
  return f.createUnionTypeNode([keyword(ts.SyntaxKind.StringKeyword), f.createArrayTypeNode(element)]);
}

export function literalUnion(values: ReadonlyArray<string | number>, numeric: boolean): ts.TypeNode {
  const literals = [...new Set(values.map(String))].map((v) =>
    numeric && /^-?\d+(\.\d+)?$/.test(v) ? numberLiteral(Number(v)) : f.createLiteralTypeNode(f.createStringLiteral(v, true)),
  );
  return literals.length === 1 ? (literals[0] as ts.TypeNode) : f.createUnionTypeNode(literals);
}

function numberLiteral(n: number): ts.TypeNode {
  return n < 0
    ? f.createLiteralTypeNode(f.createPrefixUnaryExpression(ts.SyntaxKind.MinusToken, f.createNumericLiteral(-n)))
    : f.createLiteralTypeNode(f.createNumericLiteral(n));
}

export function recordOfAny(): ts.TypeNode {
  return f.createTypeReferenceNode('Record', [keyword(ts.SyntaxKind.StringKeyword), keyword(ts.SyntaxKind.AnyKeyword)]);
}
