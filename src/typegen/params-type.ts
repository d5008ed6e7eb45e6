/** The params object type of one operation. */
import type { Operation } from '../schema/model.js';
import { groupParams } from './families.js';
import { paramType } from './param-type.js';
import type { TypeSyntax } from './syntax.js';

/**
 * The members of one operation's params object. Path params are required properties like any other;
 * an indexed family becomes a template-literal index signature (`[key: \`net${number}\`]: string`),
 * so `net0`…`net31` type-check without listing 32 properties and unknown names are still rejected;
 * an operation without parameters takes none (its one member, `NO_PARAMS_MEMBER`, cannot be given).
 * Parameters carry no comments: the declarations feed the type-checker, and people read parameter
 * documentation through get_schema (src/describe), which keeps this file small and fast to parse.
 */
/** The member of the params of an operation that takes none. */
export const NO_PARAMS_MEMBER = '(takes no parameters)';

export function paramsMembers<T, M>(op: Operation, syntax: TypeSyntax<T, M>): M[] {
  const members = groupParams(op.params).map((group) =>
    group.kind === 'single'
      ? syntax.property(group.spec.name, group.spec.optional, paramType(group.spec, syntax))
      : syntax.indexSignature(syntax.numberedKey(group.base), paramType(group.first, syntax)),
  );
  if (op.additionalParams) members.push(syntax.indexSignature(syntax.keyword('string'), syntax.keyword('any')));
  // An empty interface would accept any object (TypeScript checks no excess property against `{}`).
  // One optional member that cannot be given makes `{ foo: 1 }` the same "does not exist" error as
  // a misspelt parameter elsewhere, and its name says why in completions.
  else if (members.length === 0) members.push(syntax.property(NO_PARAMS_MEMBER, true, syntax.keyword('never')));
  return members;
}
