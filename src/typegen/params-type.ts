import type { Operation } from '../schema/model.js';
import { groupParams } from './families.js';
import { paramType } from './param-type.js';
import type { TypeSyntax } from './syntax.js';

/**
 * The members of one operation's params object. Path params are required properties like any other;
 * an indexed family becomes a template-literal index signature (`[key: \`net${number}\`]: string`),
 * so `net0`…`net31` type-check without listing 32 properties and unknown names are still rejected.
 * Parameters carry no comments: the declarations feed the type-checker, and people read parameter
 * documentation through get_schema (src/describe), which keeps this file small and fast to parse.
 */
export function paramsMembers<T, M>(op: Operation, syntax: TypeSyntax<T, M>): M[] {
  const members = groupParams(op.params).map((group) =>
    group.kind === 'single'
      ? syntax.property(group.spec.name, group.spec.optional, paramType(group.spec, syntax))
      : syntax.indexSignature(syntax.numberedKey(group.base), paramType(group.first, syntax)),
  );
  if (op.additionalParams) members.push(syntax.indexSignature(syntax.keyword('string'), syntax.keyword('any')));
  return members;
}
