import ts from 'typescript';
import type { Operation } from '../schema/model.js';
import { groupParams } from './families.js';
import { propertyName } from './names.js';
import { paramTypeNode } from './param-type.js';

const f = ts.factory;

/**
 * The params object of one operation. Path params are required properties like any other; an
 * indexed family becomes a template-literal index signature (`[key: \`net${number}\`]: string`), so
 * `net0`…`net31` type-check without listing 32 properties and unknown names are still rejected.
 * Parameters carry no comments: the declarations feed the type-checker, and people read parameter
 * documentation through get_schema (src/describe), which keeps this file small and fast to parse.
 */
export function paramsTypeNode(op: Operation): ts.TypeLiteralNode {
  const members: ts.TypeElement[] = groupParams(op.params).map((group) => {
    if (group.kind === 'single') {
      const { spec } = group;
      const optional = spec.optional ? f.createToken(ts.SyntaxKind.QuestionToken) : undefined;
      return f.createPropertySignature(undefined, propertyName(spec.name), optional, paramTypeNode(spec));
    }
    const key = f.createTemplateLiteralType(f.createTemplateHead(group.base), [
      f.createTemplateLiteralTypeSpan(f.createKeywordTypeNode(ts.SyntaxKind.NumberKeyword), f.createTemplateTail('')),
    ]);
    return f.createIndexSignature(
      undefined,
      [f.createParameterDeclaration(undefined, undefined, 'key', undefined, key)],
      paramTypeNode(group.first),
    );
  });
  if (op.additionalParams) {
    members.push(
      f.createIndexSignature(
        undefined,
        [f.createParameterDeclaration(undefined, undefined, 'key', undefined, f.createKeywordTypeNode(ts.SyntaxKind.StringKeyword))],
        f.createKeywordTypeNode(ts.SyntaxKind.AnyKeyword),
      ),
    );
  }
  return f.createTypeLiteralNode(members);
}
