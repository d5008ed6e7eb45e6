/**
 * The type constructs the generated declarations are made of. Each transform from a schema concept
 * to a type (param-type, return-type, params-type, api-map) is written once against this interface,
 * and two back-ends implement it:
 * - test/typegen/node-syntax.ts: TypeScript factory nodes for the TS printer, the reference (tests only).
 * - text-syntax: the text the TS printer would write for those nodes, built directly: get_schema's
 *   one-line types and the declarations of a whole API (~430 KB for PVE 9.1, built when the
 *   type-check process first needs them), where building and printing a node tree costs about
 *   ten times as much and would load TypeScript into the server.
 * test/typegen/typegen.test.ts holds both back-ends to the same output.
 */
export type KeywordType = 'any' | 'boolean' | 'never' | 'number' | 'string';

export interface TypeSyntax<Type, Member> {
  keyword(name: KeywordType): Type;
  nullType(): Type;
  stringLiteral(value: string): Type;
  numberLiteral(value: number): Type;
  /** `A | B`; a member that is itself a union gets parentheses. */
  union(types: readonly Type[]): Type;
  /** `T[]`; a union element gets parentheses. */
  array(element: Type): Type;
  /** `Name<Args>`. */
  reference(name: string, args?: readonly Type[]): Type;
  /** `{ … }` with one member per line. */
  typeLiteral(members: readonly Member[]): Type;
  /** `name?: type;`, the name bare when it is an identifier and quoted otherwise. */
  property(name: string, optional: boolean, type: Type): Member;
  /** `[key: K]: V;`. */
  indexSignature(key: Type, value: Type): Member;
  /** `` `prefix${number}` ``: the key type of an indexed family. */
  numberedKey(prefix: string): Type;
}

export interface DeclarationSyntax<Type, Member, Declaration> extends TypeSyntax<Type, Member> {
  /** The member with a JSDoc comment holding `doc` (lines of plain text) above it. */
  documented(member: Member, doc: string): Member;
  interfaceDeclaration(name: string, members: readonly Member[]): Declaration;
}
