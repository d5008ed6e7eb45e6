/**
 * The shape limits a script must meet before any parser sees it. The TypeScript compiler, and our
 * own walks of its syntax tree (SDK calls, secret literals), recurse once per level of nesting: a
 * script nested a few thousand levels deep exhausts the stack, and some long chains (`a+a+…`,
 * `(a,a,…)`) make the compiler super-linear (49,000 terms: 40 s of CPU, then a stack overflow).
 * Both are the script's shape, not a fault of the sandbox, so they are reported as the script's
 * syntax error with the limit and the line.
 *
 * One linear pass over the characters, no recursion and no allocation per character, so it costs
 * microseconds per KB and cannot throw. It is lexical: strings, comments and template literals are
 * skipped; a regular-expression literal is read as code (a bracket inside one counts, which can
 * only make the count higher, never let a deep script through). Runs wherever the script is
 * compiled (the type-check process, the sandbox worker), never in the server.
 */
import type { Diagnostic } from './diagnostics.js';

/** Brackets — `(`, `[`, `{`, `${` — open at once. The compiler handles 500; legitimate scripts stay under 20. */
export const MAX_NESTING = 256;
/**
 * Brackets plus the operators of the unfinished expressions around a point (at `d` in
 * `a + b * (c - d)`: one bracket and three operators): what the syntax tree's depth grows with.
 * The compiler and our walks handle about 1,500; a long legitimate expression has a few dozen.
 */
export const MAX_EXPRESSION_DEPTH = 1_000;

const enum Ch {
  Newline = 10,
  Quote = 39,
  DoubleQuote = 34,
  Backtick = 96,
  Backslash = 92,
  Slash = 47,
  Star = 42,
  Dollar = 36,
  OpenParen = 40,
  CloseParen = 41,
  OpenBracket = 91,
  CloseBracket = 93,
  OpenBrace = 123,
  CloseBrace = 125,
  Semicolon = 59,
  Dot = 46,
  Comma = 44,
}

/** Characters that make up operators counted toward the expression depth (`:` and `=` are not: object literals and declarations use them flat). */
function isOperatorChar(c: number): boolean {
  // + - * / % & | ^ < > ? ! ~
  return c === 43 || c === 45 || c === 42 || c === 47 || c === 37 || c === 38 || c === 124 || c === 94 || c === 60 || c === 62 || c === 63 || c === 33 || c === 126;
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === Ch.Dollar || c > 127;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** What an open bracket is, for the count and for what its commas mean. */
const enum Open {
  /** `(`: grouping, arguments or parameters. */
  Paren,
  /** `[`, `{`: elements, properties, statements (a comma ends one). */
  List,
  /** `${` inside a template literal: its `}` goes back into the template. */
  Template,
}

/**
 * The first shape limit `source` exceeds, as the script's syntax error; undefined when it meets
 * them. Lines and columns are the script's own (1-based).
 */
export function shapeError(source: string, limits = { nesting: MAX_NESTING, expressionDepth: MAX_EXPRESSION_DEPTH }): Diagnostic | undefined {
  return scan(source, limits);
}

/**
 * The `[start, end)` offsets of the contents of every string literal and template text: what the
 * audit's copy of a script that could not be parsed hides, since no secret in it can be told
 * from other text.
 */
export function stringContents(source: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  scan(source, { nesting: Number.POSITIVE_INFINITY, expressionDepth: Number.POSITIVE_INFINITY }, (start, end) => {
    if (end > start) spans.push([start, end]);
  });
  return spans;
}

function scan(source: string, limits: { nesting: number; expressionDepth: number }, onString?: (start: number, end: number) => void): Diagnostic | undefined {
  // Per open bracket: its kind and the operators pending outside it (restored when it closes).
  const kinds: Open[] = [0];
  const outer: number[] = [0];
  let depth = 0;
  /** Operators of the unfinished expressions around this point, the brackets' own included. */
  let pending = 0;
  let line = 1;
  let lineStart = 0;
  /** The last significant character in code (0 at the start): tells a member access from a decimal point. */
  let last = 0;
  /** Whether the word being read started with a digit (`1.5` is a number, `a.b` an access). */
  let numberWord = false;
  const n = source.length;

  const fail = (i: number, message: string, hint: string): Diagnostic => ({ line, col: i - lineStart + 1, message, severity: 'error', hint });

  let i = 0;
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === Ch.Newline) {
      line++;
      lineStart = i + 1;
      i++;
      continue;
    }
    if (c === Ch.Slash && source.charCodeAt(i + 1) === Ch.Slash) {
      while (i < n && source.charCodeAt(i) !== Ch.Newline) i++;
      continue;
    }
    if (c === Ch.Slash && source.charCodeAt(i + 1) === Ch.Star) {
      i += 2;
      while (i < n && !(source.charCodeAt(i) === Ch.Star && source.charCodeAt(i + 1) === Ch.Slash)) {
        if (source.charCodeAt(i) === Ch.Newline) {
          line++;
          lineStart = i + 1;
        }
        i++;
      }
      i += 2;
      continue;
    }
    // A string or the text part of a template literal: skipped up to its end (or a `${`).
    const inTemplateText = c === Ch.CloseBrace && depth > 0 && kinds[depth] === Open.Template;
    if (c === Ch.Quote || c === Ch.DoubleQuote || c === Ch.Backtick || inTemplateText) {
      if (inTemplateText) {
        pending = outer[depth]!;
        depth--;
      }
      const quote = inTemplateText ? Ch.Backtick : c;
      i++;
      const contents = i;
      let opened = false;
      let closed = false;
      while (i < n) {
        const s = source.charCodeAt(i);
        if (s === Ch.Backslash) {
          i += 2;
          continue;
        }
        if (s === Ch.Newline) {
          line++;
          lineStart = i + 1;
          // An unterminated string ends at its line; the parser reports it.
          if (quote !== Ch.Backtick) break;
        }
        if (s === quote) {
          closed = true;
          break;
        }
        if (quote === Ch.Backtick && s === Ch.Dollar && source.charCodeAt(i + 1) === Ch.OpenBrace) {
          opened = true;
          break;
        }
        i++;
      }
      onString?.(contents, Math.min(i, n));
      if (closed) i++;
      last = Ch.Quote;
      if (opened) {
        if (depth >= limits.nesting) return fail(i, `the script nests brackets more than ${limits.nesting} deep`, 'split the expression into named steps');
        depth++;
        kinds[depth] = Open.Template;
        outer[depth] = pending;
        pending++;
        i += 2;
        last = Ch.OpenBrace;
      }
      continue;
    }
    if (c === Ch.OpenParen || c === Ch.OpenBracket || c === Ch.OpenBrace) {
      if (depth >= limits.nesting) return fail(i, `the script nests brackets more than ${limits.nesting} deep`, 'split the expression into named steps or helper functions');
      depth++;
      kinds[depth] = c === Ch.OpenParen ? Open.Paren : Open.List;
      outer[depth] = pending;
      pending++;
      last = c;
      i++;
      continue;
    }
    if (c === Ch.CloseParen || c === Ch.CloseBracket || c === Ch.CloseBrace) {
      // An unbalanced closer is the parser's to report; here it only must not underflow.
      if (depth > 0) {
        pending = outer[depth]!;
        depth--;
      }
      last = c;
      i++;
      continue;
    }
    if (c === Ch.Semicolon) {
      // A statement ends: its operators are done; what encloses it is still open.
      pending = depth > 0 ? outer[depth]! + 1 : 0;
      last = c;
      i++;
      continue;
    }
    let operators = 0;
    if (isOperatorChar(c)) {
      // Each character: a prefix chain (`!!!!x`, `- - -1`) nests as deep as a binary one.
      operators = 1;
      i++;
    } else if (c === Ch.Comma) {
      // In parentheses a comma chains (the comma operator; arguments and parameters count the
      // same, a thousand of them is no script); in `[]` and `{}` it ends one element.
      if (depth > 0 && kinds[depth] === Open.List) pending = outer[depth]! + 1;
      else operators = 1;
      i++;
    } else if (c === Ch.Dot) {
      // A member access (`a.b`, `f().b`), not a decimal point nor a spread (`...`).
      operators = !numberWord && (isWordChar(last) || last === Ch.CloseParen || last === Ch.CloseBracket) && source.charCodeAt(i + 1) !== Ch.Dot ? 1 : 0;
      i++;
    } else {
      if (isWordChar(c)) {
        if (!isWordChar(last)) numberWord = isDigit(c);
      } else if (c > 32) {
        numberWord = false;
      }
      if (c > 32) last = c;
      i++;
      continue;
    }
    pending += operators;
    if (pending > limits.expressionDepth) {
      return fail(
        i - 1,
        `the script's expression is nested more than ${limits.expressionDepth} operators and brackets deep`,
        'split the expression into named steps, or build long lists with an array and a loop',
      );
    }
    last = source.charCodeAt(i - 1);
    numberWord = false;
  }
  return undefined;
}
