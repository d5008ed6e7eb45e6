import ts from 'typescript';
import type { SchemaNode } from '../schema/model.js';
import { propertyName } from './names.js';
import { literalUnion, recordOfAny } from './param-type.js';

const f = ts.factory;
const keyword = (kind: ts.KeywordTypeSyntaxKind) => f.createKeywordTypeNode(kind);

/**
 * PVE return schema → the type a call resolves to. Generous on purpose, so valid scripts type-check
 * against what PVE really sends: objects keep an `any` index signature (responses carry more keys
 * than declared), booleans arrive as 0/1, and anything untyped is `any`, not `unknown`.
 */
export function returnTypeNode(node: SchemaNode | undefined): ts.TypeNode {
  if (!node) return keyword(ts.SyntaxKind.AnyKeyword);
  if (node.enum && node.enum.length > 0) return literalUnion(node.enum, node.type === 'integer' || node.type === 'number');
  switch (node.type) {
    case 'object':
      return objectType(node);
    case 'array':
      return f.createArrayTypeNode(node.items ? parenthesizeUnion(returnTypeNode(node.items)) : keyword(ts.SyntaxKind.AnyKeyword));
    case 'string':
      return keyword(ts.SyntaxKind.StringKeyword);
    case 'integer':
    case 'number':
      return keyword(ts.SyntaxKind.NumberKeyword);
    case 'boolean':
      return f.createUnionTypeNode([keyword(ts.SyntaxKind.BooleanKeyword), keyword(ts.SyntaxKind.NumberKeyword)]);
    case 'null':
      return f.createLiteralTypeNode(f.createNull());
    default:
      return keyword(ts.SyntaxKind.AnyKeyword);
  }
}

function objectType(node: SchemaNode): ts.TypeNode {
  const properties = Object.entries(node.properties ?? {});
  if (properties.length === 0) return recordOfAny();
  const members: ts.TypeElement[] = properties.map(([name, child]) =>
    f.createPropertySignature(
      undefined,
      propertyName(name),
      isOptional(child) ? f.createToken(ts.SyntaxKind.QuestionToken) : undefined,
      returnTypeNode(child),
    ),
  );
  members.push(
    f.createIndexSignature(
      undefined,
      [f.createParameterDeclaration(undefined, undefined, 'key', undefined, keyword(ts.SyntaxKind.StringKeyword))],
      keyword(ts.SyntaxKind.AnyKeyword),
    ),
  );
  return f.createTypeLiteralNode(members);
}

function isOptional(node: SchemaNode): boolean {
  return node.optional === true || (typeof node.optional === 'number' && node.optional !== 0);
}

function parenthesizeUnion(type: ts.TypeNode): ts.TypeNode {
  return ts.isUnionTypeNode(type) ? f.createParenthesizedType(type) : type;
}
