/**
 * Pull the schema array out of apidoc text without evaluating anything.
 *
 * Accepted: `const|var|let apiSchema = [ ... ];` (the file PVE serves) or a bare JSON array, with
 * whitespace and comments around. The array is found by bracket matching (JSON-string aware) and handed
 * to JSON.parse; any other content before, inside or after it is rejected with its position, so a file
 * that smuggles code next to the data never gets near a JavaScript engine.
 */
import { SchemaParseError } from './errors.js';

/** Deeper nesting than any real schema; bounds the stack use of everything that walks the tree later. */
const MAX_NESTING = 256;

const DECLARATION_KEYWORDS = new Set(['const', 'var', 'let']);
const identifierAt = /[A-Za-z_$][\w$]*/y;

export function extractApidocArray(text: string, location?: string): unknown {
  const fail = (reason: string, offset: number): never => {
    throw new SchemaParseError(reason, text, offset, location);
  };
  let i = skipTrivia(text, text.charCodeAt(0) === 0xfeff ? 1 : 0, fail);
  if (i >= text.length) fail('the input is empty', i);
  if (text[i] !== '[') i = skipDeclaration(text, i, fail);
  const start = i;
  const end = matchBrackets(text, start, fail);
  let after = skipTrivia(text, end, fail);
  if (text[after] === ';') after = skipTrivia(text, after + 1, fail);
  if (after < text.length) {
    fail(`unexpected ${describeToken(text, after)} after the apiSchema array (only whitespace, ';' and comments may follow)`, after);
  }
  const json = text.slice(start, end);
  try {
    return JSON.parse(json);
  } catch (error) {
    const found = locateJsonError(text, start, end);
    if (found) fail(found.reason, found.offset);
    return fail(`the array is not valid JSON (${(error as Error).message})`, start);
  }
}

type Fail = (reason: string, offset: number) => never;

function skipTrivia(text: string, from: number, fail: Fail): number {
  let i = from;
  for (;;) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (text.startsWith('//', i)) {
      const nl = text.indexOf('\n', i);
      i = nl === -1 ? text.length : nl + 1;
    } else if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close === -1) fail('unterminated /* comment (the input looks truncated)', i);
      i = close + 2;
    } else {
      return i;
    }
  }
}

/** Consume `const apiSchema =` and return the offset of the `[` that must follow. */
function skipDeclaration(text: string, from: number, fail: Fail): number {
  const expectation = 'expected `const apiSchema = [` (or `var`/`let`) or a bare JSON array';
  const keyword = readIdentifier(text, from);
  if (!keyword || !DECLARATION_KEYWORDS.has(keyword)) fail(`${expectation}, found ${describeToken(text, from)}`, from);
  let i = skipTrivia(text, from + (keyword as string).length, fail);
  const name = readIdentifier(text, i);
  if (name !== 'apiSchema') fail(`${expectation}, found ${describeToken(text, i)} where the name apiSchema belongs`, i);
  i = skipTrivia(text, i + 'apiSchema'.length, fail);
  if (text[i] !== '=') fail(`${expectation}, found ${describeToken(text, i)} where '=' belongs`, i);
  i = skipTrivia(text, i + 1, fail);
  if (text[i] !== '[') fail(`apiSchema must be assigned an array literal, found ${describeToken(text, i)}`, i);
  return i;
}

function readIdentifier(text: string, at: number): string | undefined {
  identifierAt.lastIndex = at;
  return identifierAt.exec(text)?.[0];
}

/** Runs of characters that are neither brackets nor a quote, and whole JSON strings: skipped in one step each. */
const plainRun = /[^"[\]{}]+/y;
const stringAt = /"(?:[^"\\]|\\[\s\S])*"/y;

/** Offset just past the bracket that closes the one at `start`. */
function matchBrackets(text: string, start: number, fail: Fail): number {
  const open: number[] = [];
  let i = start;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      stringAt.lastIndex = i;
      if (!stringAt.test(text)) {
        fail(`the input ends inside a string (truncated? the string starting at offset ${i} is never closed)`, text.length);
      }
      i = stringAt.lastIndex;
      continue;
    }
    if (c === '[' || c === '{') {
      open.push(i);
      if (open.length > MAX_NESTING) fail(`nesting deeper than ${MAX_NESTING} levels`, i);
    } else if (c === ']' || c === '}') {
      const opener = open.pop() as number;
      const expected = text[opener] === '[' ? ']' : '}';
      if (c !== expected) fail(`mismatched '${c}' (expected '${expected}' to close the '${text[opener]}' at offset ${opener})`, i);
      if (open.length === 0) return i + 1;
    } else {
      plainRun.lastIndex = i;
      plainRun.test(text);
      i = plainRun.lastIndex;
      continue;
    }
    i++;
  }
  const innermost = open[open.length - 1] as number;
  return fail(`the input ends inside the array (truncated? '${text[innermost]}' at offset ${innermost} is never closed)`, text.length);
}

function describeToken(text: string, at: number): string {
  if (at >= text.length) return 'the end of the input';
  const word = readIdentifier(text, at);
  if (word) return `\`${word}\``;
  return `'${text[at]}'`;
}

const jsonLiteralAt = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true\b|false\b|null\b/y;
const jsonStringAt = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

type Expect = 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'commaOrClose';

/**
 * Only runs after JSON.parse failed: find the first offending token and say what it is, because V8's
 * messages often carry no position and an operator needs one to fix the file.
 */
function locateJsonError(text: string, start: number, end: number): { offset: number; reason: string } | undefined {
  const stack: string[] = [];
  let expect: Expect = 'value';
  let i = start;
  const matchAt = (re: RegExp): number => {
    re.lastIndex = i;
    const m = re.exec(text);
    return m && re.lastIndex <= end ? re.lastIndex : -1;
  };
  for (;;) {
    while (i < end && /\s/.test(text[i] as string)) i++;
    if (i >= end) return stack.length > 0 ? { offset: i, reason: 'the JSON ends early' } : undefined;
    const c = text[i] as string;
    const top = stack[stack.length - 1];
    if (expect === 'value' || expect === 'valueOrClose') {
      if (c === ']' && expect === 'valueOrClose') {
        stack.pop();
        expect = 'commaOrClose';
        i++;
      } else if (c === '[' || c === '{') {
        stack.push(c);
        expect = c === '[' ? 'valueOrClose' : 'keyOrClose';
        i++;
      } else if (c === '"') {
        const next = matchAt(jsonStringAt);
        if (next < 0) return { offset: i, reason: 'invalid JSON string (raw control character or bad escape)' };
        i = next;
        expect = 'commaOrClose';
      } else {
        const next = matchAt(jsonLiteralAt);
        if (next < 0) {
          const what = c === ']' ? "a trailing ',' before ']'" : `${describeToken(text, i)}, which is not a JSON value (embedded code?)`;
          return { offset: i, reason: `found ${what}` };
        }
        i = next;
        expect = 'commaOrClose';
      }
    } else if (expect === 'key' || expect === 'keyOrClose') {
      if (c === '}' && expect === 'keyOrClose') {
        stack.pop();
        expect = 'commaOrClose';
        i++;
      } else if (c === '"' && matchAt(jsonStringAt) >= 0) {
        i = matchAt(jsonStringAt);
        expect = 'colon';
      } else {
        const what = c === '}' ? "a trailing ',' before '}'" : describeToken(text, i);
        return { offset: i, reason: `expected a double-quoted property name, found ${what}` };
      }
    } else if (expect === 'colon') {
      if (c !== ':') return { offset: i, reason: `expected ':' after the property name, found ${describeToken(text, i)}` };
      expect = 'value';
      i++;
    } else {
      const close = top === '[' ? ']' : '}';
      if (c === ',') {
        expect = top === '[' ? 'value' : 'key';
        i++;
      } else if (c === close) {
        stack.pop();
        i++;
        if (stack.length === 0) return i < end ? { offset: i, reason: 'unexpected content after the array' } : undefined;
      } else {
        return { offset: i, reason: `expected ',' or '${close}', found ${describeToken(text, i)}` };
      }
    }
  }
}
