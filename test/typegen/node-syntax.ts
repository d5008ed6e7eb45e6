/**
 * The TypeScript-factory back-end of the declaration syntax: the reference the text back-end is
 * tested against (typegen.test.ts beside it). Nothing in the server imports it: TypeScript holds ~70 MB in
 * a process, and get_schema prints its one-line types with the text back-end.
 */
import ts from 'typescript';
import { jsDocBody } from '../../src/typegen/jsdoc.js';
import { isBareName } from '../../src/typegen/names.js';
import type { DeclarationSyntax, KeywordType } from '../../src/typegen/syntax.js';

const f = ts.factory;

const KEYWORDS: Readonly<Record<KeywordType, ts.KeywordTypeSyntaxKind>> = {
  any: ts.SyntaxKind.AnyKeyword,
  boolean: ts.SyntaxKind.BooleanKeyword,
  never: ts.SyntaxKind.NeverKeyword,
  number: ts.SyntaxKind.NumberKeyword,
  string: ts.SyntaxKind.StringKeyword,
};

/** The declaration constructs as TypeScript factory nodes (the factory adds the parentheses unions need). */
export const nodeSyntax: DeclarationSyntax<ts.TypeNode, ts.TypeElement, ts.InterfaceDeclaration> = {
  keyword: (name) => f.createKeywordTypeNode(KEYWORDS[name]),
  nullType: () => f.createLiteralTypeNode(f.createNull()),
  stringLiteral: (value) => f.createLiteralTypeNode(f.createStringLiteral(value, true)),
  numberLiteral: (value) =>
    value < 0 ? f.createLiteralTypeNode(f.createPrefixUnaryExpression(ts.SyntaxKind.MinusToken, f.createNumericLiteral(-value))) : f.createLiteralTypeNode(f.createNumericLiteral(value)),
  union: (types) => f.createUnionTypeNode(types),
  array: (element) => f.createArrayTypeNode(element),
  reference: (name, args) => f.createTypeReferenceNode(name, args),
  typeLiteral: (members) => f.createTypeLiteralNode(members),
  property: (name, optional, type) =>
    f.createPropertySignature(undefined, isBareName(name) ? f.createIdentifier(name) : f.createStringLiteral(name, true), optional ? f.createToken(ts.SyntaxKind.QuestionToken) : undefined, type),
  indexSignature: (key, value) => f.createIndexSignature(undefined, [f.createParameterDeclaration(undefined, undefined, 'key', undefined, key)], value),
  numberedKey: (prefix) => f.createTemplateLiteralType(f.createTemplateHead(prefix), [f.createTemplateLiteralTypeSpan(f.createKeywordTypeNode(ts.SyntaxKind.NumberKeyword), f.createTemplateTail(''))]),
  documented: (member, doc) => ts.addSyntheticLeadingComment(member, ts.SyntaxKind.MultiLineCommentTrivia, jsDocBody(doc), true),
  interfaceDeclaration: (name, members) => f.createInterfaceDeclaration(undefined, name, undefined, undefined, members),
};
