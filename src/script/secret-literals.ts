/**
 * Secrets written into a script's source. The audit stores the source in the `run-start` entry,
 * before any call is made, and the bridge redacts a password in the call record, so a password
 * the script passes as a literal would sit in clear in the source. Chosen: find them statically,
 * where the script is parsed anyway (the type-check process, or the sandbox worker) — string
 * literals given to a secret-named property (`cipassword: 'x'`, the key rules of the redaction of
 * call records), directly or through a variable initialised with a literal (`const pw = 'x'; …
 * { password: pw }`). The server removes them from the stored source (src/safety/script-secrets.ts)
 * and adds them to the run's scrubber, so every later entry and output loses them too.
 *
 * What it misses: a secret assembled at run time (`'hun' + 'ter2'`, decoded, read from a result)
 * is never whole in the source; its pieces stay. The call record still redacts the assembled value.
 */
import type * as TS from 'typescript';
import { ts } from './typescript.js';
import type { SecretScan } from './compiled.js';
import { isSecretName } from './secret-names.js';

/** Cheap pre-check: most scripts name no secret key, and then no walk is needed. */
const MAYBE_SECRET = /pass|secret|token|ticket|otp|key|recovery/i;

/** The secret literals of a parsed program (`parseProgram(source)`). */
export function secretLiteralsOf(source: string, file: TS.SourceFile): string[] {
  if (!MAYBE_SECRET.test(source)) return [];
  const literals = new Map<string, string>();
  const found = new Set<string>();
  const secretIdentifiers = new Set<string>();

  const visit = (node: TS.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isStringLiteral(node.initializer)) {
      literals.set(node.name.text, node.initializer.text);
      if (isSecretName(node.name.text)) found.add(node.initializer.text);
    }
    if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) && isSecretName(propertyName(node.name))) {
      const value = ts.isPropertyAssignment(node) ? node.initializer : node.name;
      if (isStringLiteral(value)) found.add(value.text);
      else if (ts.isIdentifier(value)) secretIdentifiers.add(value.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  for (const id of secretIdentifiers) {
    const text = literals.get(id);
    if (text !== undefined) found.add(text);
  }
  return [...found].filter((s) => s.length > 0);
}

function isStringLiteral(node: TS.Node): node is TS.StringLiteral | TS.NoSubstitutionTemplateLiteral {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);
}

function propertyName(name: TS.PropertyName): string {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return '';
}

/**
 * Where each secret is written as a whole string literal (in any quotes, as written or
 * JSON-escaped), anywhere in the source: the text between the quotes, merged and in order.
 */
export function secretScan(source: string, literals: readonly string[]): SecretScan {
  const spans: Array<[number, number]> = [];
  for (const secret of literals) {
    for (const quote of ["'", '"', '`']) {
      for (const written of new Set([secret, JSON.stringify(secret).slice(1, -1)])) {
        const needle = `${quote}${written}${quote}`;
        for (let at = source.indexOf(needle); at >= 0; at = source.indexOf(needle, at + needle.length - 1)) {
          spans.push([at + 1, at + 1 + written.length]);
        }
      }
    }
  }
  spans.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  return { literals: [...literals], spans: merged };
}
