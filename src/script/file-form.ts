/**
 * The file form of a script: a TypeScript module an editor and `tsc` accept on their own,
 *
 *   export const args = { pool: { type: 'string' } } as const;
 *   export default (async (pve, { pool }) => { … }) satisfies PveScript<typeof args>;
 *
 * turned into the body form every later stage knows (the body of an async function), where
 * TypeScript runs — the type-check process or the sandbox worker — never in the server. The
 * conversion keeps every character's offset: `export default` becomes `const __pve$=` padded
 * with spaces, other `export` keywords and `import type` lines become spaces, and the one call
 * that starts the default export goes on a line after the script's last. Positions in
 * diagnostics, source maps and the secret spans of the audit's copy of the source therefore
 * stay the file's own. The declared arguments are read from the literal (never evaluated).
 */
import type * as TS from 'typescript';
import { ts } from './typescript.js';
import { argSpecProblem, argSpecSchema, ARG_LIMITS, type ArgSpecs } from './args.js';
import type { Diagnostic } from './diagnostics.js';
import { FILE_MAIN } from './names.js';

/** `const ` + FILE_MAIN + `=` is exactly as long as `export default`. */
const MAIN_DECLARATION = `const ${FILE_MAIN}=`;
/** Started with the global `pve` and the run's argument values (the prelude defines `args`). */
const START = `\n;return ${FILE_MAIN}(pve, globalThis.args as never);\n`;

export type ProgramSource = { form: 'body'; body: string } | { form: 'file'; body: string; args?: ArgSpecs } | { form: 'file'; diagnostics: Diagnostic[] };

/** Cheap test first: most scripts are bodies, and they are not parsed twice. */
export function looksLikeFileForm(source: string): boolean {
  return /(?:^|[\n;])\s*export\s+default\b/.test(source);
}

/** The body form of `source`: itself, or the file form converted (or why it cannot be). */
export function programSource(source: string): ProgramSource {
  if (!looksLikeFileForm(source)) return { form: 'body', body: source };
  const sf = ts.createSourceFile('script.ts', source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  // `export default` inside a string or comment of a body: still a body.
  if (!sf.statements.some(isDefaultExport)) return { form: 'body', body: source };
  const chars = source.split('');
  const problems: Diagnostic[] = [];
  const at = (node: TS.Node | number, message: string, hint: string): void => {
    const pos = sf.getLineAndCharacterOfPosition(typeof node === 'number' ? node : node.getStart(sf));
    problems.push({ line: pos.line + 1, col: pos.character + 1, message, severity: 'error', hint });
  };
  /** Blanks `[start, end)` but its line breaks, so nothing else moves. */
  const blank = (start: number, end: number): void => {
    for (let i = start; i < end; i++) if (chars[i] !== '\n' && chars[i] !== '\r') chars[i] = ' ';
  };
  let main: TS.Node | undefined;
  let args: ArgSpecs | undefined;

  for (const statement of sf.statements) {
    if (ts.isImportDeclaration(statement) || ts.isImportEqualsDeclaration(statement)) {
      // Types come from the SDK declarations, which are global; a value import has no module to load.
      if (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly) blank(statement.getStart(sf), statement.end);
      else at(statement, 'a script cannot import values', 'the sandbox has no modules: use the global `pve` and `console`; `import type` is allowed');
      continue;
    }
    if (ts.isExportAssignment(statement)) {
      if (statement.isExportEquals) {
        at(statement, '`export =` is not a script', 'write `export default async (pve, args) => { … }`');
        continue;
      }
      if (main) at(statement, 'a script has one default export', 'keep one `export default`');
      main = statement;
      replaceExportDefault(statement.getStart(sf), statement.expression.getStart(sf));
      continue;
    }
    if (ts.isExportDeclaration(statement)) {
      at(statement, '`export { … }` is not part of a script', 'export the arguments as `export const args = { … }` and the script as `export default`');
      continue;
    }
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    const exported = modifiers?.find((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    const isDefault = modifiers?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
    if (isDefault) {
      if (!ts.isFunctionDeclaration(statement)) {
        at(statement, 'the default export must be the script function', 'write `export default async (pve, args) => { … }`');
        continue;
      }
      if (main) at(statement, 'a script has one default export', 'keep one `export default`');
      main = statement;
      const defaultKeyword = modifiers?.find((m) => m.kind === ts.SyntaxKind.DefaultKeyword) as TS.Modifier;
      // `export default async function f` → `const __pve$= async function f`: the function becomes an expression.
      replaceExportDefault(exported.getStart(sf), defaultKeyword.end + 1);
      continue;
    }
    blank(exported.getStart(sf), exported.end);
    if (ts.isVariableStatement(statement)) {
      for (const decl of statement.declarationList.declarations) {
        if (ts.isIdentifier(decl.name) && decl.name.text === 'args') args = readArgs(decl, at);
      }
    }
  }
  if (problems.length > 0 || !main) return { form: 'file', diagnostics: problems };
  return { form: 'file', body: chars.join('') + START, ...(args ? { args } : {}) };

  function replaceExportDefault(start: number, end: number): void {
    const span = source.slice(start, start + MAIN_DECLARATION.length);
    if (end - start < MAIN_DECLARATION.length || /[\r\n]/.test(span)) {
      at(start, 'write `export default` on one line, followed by the script', 'for example `export default async (pve, args) => { … }`');
      return;
    }
    blank(start, end);
    for (let i = 0; i < MAIN_DECLARATION.length; i++) chars[start + i] = MAIN_DECLARATION[i] as string;
  }
}

/** The declarations of `export const args = { … }`: literal data only, checked as the server will. */
function readArgs(decl: TS.VariableDeclaration, at: (node: TS.Node, message: string, hint: string) => void): ArgSpecs | undefined {
  const hint = "declare each argument as a literal, e.g. `export const args = { pool: { type: 'string', description: '…' } } as const`";
  let init = decl.initializer;
  while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init) || ts.isTypeAssertionExpression(init))) init = init.expression;
  if (!init || !ts.isObjectLiteralExpression(init)) {
    at(decl, '`args` must be an object literal', hint);
    return undefined;
  }
  const value = literal(init);
  if (value === NOT_LITERAL) {
    at(init, '`args` must be literal data (no variables, calls or spreads)', hint);
    return undefined;
  }
  const specs: ArgSpecs = {};
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > ARG_LIMITS.count) at(init, `a script declares at most ${ARG_LIMITS.count} arguments`, 'pass a structured value as a string and parse it in the script');
  for (const [name, raw] of entries) {
    const parsed = argSpecSchema.safeParse(raw);
    const node = init.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === name) ?? init;
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      at(
        node,
        `argument '${name}': ${issue?.path.join('.') || 'declaration'} ${issue?.message ?? 'is malformed'}`,
        "each argument is { type: 'string' | 'integer' | 'number' | 'boolean', description?, enum?, pattern?, minimum?, maximum?, default?, optional? }",
      );
      continue;
    }
    const problem = argSpecProblem(name, parsed.data);
    if (problem) at(node, problem, hint);
    else specs[name] = parsed.data;
  }
  return specs;
}

function isDefaultExport(statement: TS.Statement): boolean {
  if (ts.isExportAssignment(statement)) return true;
  const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
  return modifiers?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword) === true && modifiers.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

const NOT_LITERAL = Symbol('not literal');

/** A literal's JSON value: strings, numbers, booleans, null, arrays and objects of them. */
function literal(node: TS.Expression): unknown {
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) return literal(node.expression);
  if (ts.isStringLiteralLike(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand)) return -Number(node.operand.text);
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (node.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isArrayLiteralExpression(node)) {
    const items = node.elements.map((e) => literal(e));
    return items.includes(NOT_LITERAL) ? NOT_LITERAL : items;
  }
  if (ts.isObjectLiteralExpression(node)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const p of node.properties) {
      if (!ts.isPropertyAssignment(p)) return NOT_LITERAL;
      const key = ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) ? p.name.text : undefined;
      if (key === undefined || key === '__proto__') return NOT_LITERAL;
      const v = literal(p.initializer);
      if (v === NOT_LITERAL) return NOT_LITERAL;
      out[key] = v;
    }
    return { ...out };
  }
  return NOT_LITERAL;
}
