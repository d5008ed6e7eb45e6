/**
 * Secrets written into a script's source. The audit stores the source in the `run-start` entry,
 * before any call is made, and the bridge redacts a password in the call record, so a password
 * the script passes as a literal would sit in clear in the source. Chosen: scrub the source
 * statically — string literals given to a secret-named property (`cipassword: 'x'`, the same key
 * rules as the redaction of call records), directly or through a variable initialised with a
 * literal (`const pw = 'x'; … { password: pw }`). They are removed from the stored source and
 * added to the run's scrubber, so every later entry and output loses them too.
 *
 * What it misses: a secret assembled at run time (`'hun' + 'ter2'`, decoded, read from a result)
 * is never whole in the source; its pieces stay. The call record still redacts the assembled value.
 */
import ts from 'typescript';
import { parseProgram } from '../script/program.js';
import { isSensitiveKey, REDACTED } from './redact.js';

/** Cheap pre-check: most scripts name no secret key, and then no parse is needed. */
const MAYBE_SECRET = /pass|secret|token|ticket|otp|key|recovery/i;

export function secretLiterals(source: string): string[] {
  if (!MAYBE_SECRET.test(source)) return [];
  const file = parseProgram(source);
  const literals = new Map<string, string>();
  const found = new Set<string>();
  const secretIdentifiers = new Set<string>();

  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isStringLiteral(node.initializer)) {
      literals.set(node.name.text, node.initializer.text);
      if (isSensitiveKey(node.name.text)) found.add(node.initializer.text);
    }
    if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) && isSensitiveKey(propertyName(node.name))) {
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

function isStringLiteral(node: ts.Node): node is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);
}

function propertyName(name: ts.PropertyName): string {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return '';
}

/** The source with each secret literal replaced where it is written as a string literal. */
export function scrubSecretLiterals(source: string, secrets: readonly string[]): string {
  let out = source;
  for (const secret of secrets) {
    for (const quote of ["'", '"', '`']) {
      for (const written of new Set([secret, JSON.stringify(secret).slice(1, -1)])) {
        out = out.split(`${quote}${written}${quote}`).join(`${quote}${REDACTED}${quote}`);
      }
    }
  }
  return out;
}
