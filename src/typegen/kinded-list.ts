/** Types of a list whose entries come in kinds (`GET /cluster/resources`): one interface per kind and the result per `type` filter. */
import type { Operation, SchemaNode } from '../schema/model.js';
import type { KindedList } from '../pve/resource-kinds.js';
import { objectMembers } from './return-type.js';
import type { DeclarationSyntax } from './syntax.js';

/** A list whose entries are typed by kind: one interface per kind, their union, and the results by `type` filter. */
export interface KindedListTypes<T, D> {
  declarations: D[];
  /** `(PveXQemu | PveXLxc | …)[]`. */
  returns: T;
  /** `{ vm: (PveXQemu | PveXLxc)[]; … }`, the result for each value of the `type` parameter; absent when none narrows. */
  byType?: T;
}

/**
 * The entries of `op`'s list as a union discriminated by kind: each kind one interface with the
 * discriminant as its literal and the fields the kind carries required, every other declared field
 * as the schema has it. The kinds, field names and types come from the cluster's schema; `known`
 * only says which fields are always there. Undefined when the schema does not give the list's
 * entries as objects with an enumerated discriminant.
 */
export function kindedListTypes<T, M, D>(op: Operation, known: KindedList, syntax: DeclarationSyntax<T, M, D>, nameOf: (kind: string) => string): KindedListTypes<T, D> | undefined {
  const items = op.returns.type === 'array' ? op.returns.items : undefined;
  const kinds = items?.properties?.[known.discriminant]?.enum?.map(String);
  if (!items?.properties || !kinds || kinds.length === 0) return undefined;
  const variants = kinds.map((kind) => ({ kind, name: nameOf(kind) }));
  const declarations = variants.map(({ kind, name }) => syntax.interfaceDeclaration(name, objectMembers(entryOfKind(items, kind, known), syntax)));
  const listOf = (of: readonly { name: string }[]) => {
    const refs = of.map(({ name }) => syntax.reference(name));
    return syntax.array(refs.length === 1 && refs[0] ? refs[0] : syntax.union(refs));
  };
  const filters = op.params.find((p) => p.name === 'type' && !p.inPath)?.enum?.map(String) ?? [];
  const narrowing = filters.flatMap((value) => {
    const of = variants.filter(({ kind }) => known.byType[value]?.includes(kind));
    return of.length > 0 ? [syntax.property(value, false, listOf(of))] : [];
  });
  return {
    declarations,
    returns: listOf(variants),
    ...(narrowing.length > 0 ? { byType: syntax.typeLiteral(narrowing) } : {}),
  };
}

/** The list's entry schema as one kind sends it: the discriminant fixed, the fields the kind carries required. */
function entryOfKind(items: SchemaNode, kind: string, known: KindedList): SchemaNode {
  const carried = new Set(known.carries[kind] ?? []);
  const properties = Object.fromEntries(
    Object.entries(items.properties ?? {}).map(([name, field]): [string, SchemaNode] => {
      if (name === known.discriminant) return [name, { ...field, enum: [kind], optional: 0 }];
      return [name, carried.has(name) ? { ...field, optional: 0 } : field];
    }),
  );
  return { ...items, properties };
}
