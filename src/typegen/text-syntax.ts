/** The text back-end of the declaration syntax: prints what the TypeScript printer would, without building nodes. */
import { jsDocBody } from './jsdoc.js';
import { isBareName } from './names.js';
import type { DeclarationSyntax } from './syntax.js';

/**
 * The declaration constructs as text, laid out exactly as the TypeScript printer lays out the nodes
 * of the reference back-end, test/typegen/node-syntax.ts (LF line ends, four-space indentation, single-quoted strings with non-ASCII escaped),
 * without building nodes. Multi-line text is kept relative to its own indentation and indented
 * when it is nested; no literal it writes holds a raw line break, so that is safe.
 */
export interface TextType {
  text: string;
  /** A union needs parentheses as an array element or a union member. */
  union: boolean;
}

const INDENT = '    ';

export const textSyntax: DeclarationSyntax<TextType, string, string> = {
  keyword: (name) => plain(name),
  nullType: () => plain('null'),
  stringLiteral: (value) => plain(quoted(value)),
  numberLiteral: (value) => plain(value < 0 ? `-${String(-value)}` : String(value)),
  union: (types) => ({ text: types.map(constituent).join(' | '), union: true }),
  array: (element) => plain(`${constituent(element)}[]`),
  reference: (name, args) => plain(args && args.length > 0 ? `${name}<${args.map((a) => a.text).join(', ')}>` : name),
  typeLiteral: (members) => plain(members.length === 0 ? '{}' : `{\n${members.map(indented).join('\n')}\n}`),
  property: (name, optional, type) => `${isBareName(name) ? name : quoted(name)}${optional ? '?' : ''}: ${type.text};`,
  indexSignature: (key, value) => `[key: ${key.text}]: ${value.text};`,
  numberedKey: (prefix) => plain(`\`${escapeTemplateText(prefix)}\${number}\``),
  documented: (member, doc) => `${commentText(`/*${jsDocBody(doc)}*/`)}\n${member}`,
  interfaceDeclaration: (name, members) => `interface ${name} {\n${members.map((m) => `${indented(m)}\n`).join('')}}`,
};

/** A type on one line (`{ a: number; b?: string; }`), as get_schema's parameter and return lines print it. */
export function oneLine(type: TextType): string {
  return type.text.replace(/\s*\n\s*/g, ' ');
}

function plain(text: string): TextType {
  return { text, union: false };
}

function constituent(type: TextType): string {
  return type.union ? `(${type.text})` : type.text;
}

function indented(text: string): string {
  return INDENT + text.replaceAll('\n', `\n${INDENT}`);
}

/**
 * A multi-line comment as the printer writes it: every line trimmed, lines after the first keep
 * their own leading whitespace as spaces (tabs to the next multiple of four). Line breaks are the
 * ones TypeScript recognizes.
 */
function commentText(comment: string): string {
  return comment
    .split(/\r\n|[\r\n\u2028\u2029]/)
    .map((line, i) => (i === 0 ? line.trim() : ' '.repeat(leadingColumns(line)) + line.trim()))
    .join('\n');
}

function leadingColumns(line: string): number {
  let columns = 0;
  for (let i = 0; i < line.length && isSingleLineSpace(line.charCodeAt(i)); i++) {
    columns += line.charCodeAt(i) === 0x09 ? INDENT.length - (columns % INDENT.length) : 1;
  }
  return columns;
}

/** TypeScript's single-line whitespace (wider than String.prototype.trim's: it has U+0085 and U+200B). */
function isSingleLineSpace(ch: number): boolean {
  return (
    ch === 0x20 ||
    ch === 0x09 ||
    ch === 0x0b ||
    ch === 0x0c ||
    ch === 0xa0 ||
    ch === 0x85 ||
    ch === 0x1680 ||
    (ch >= 0x2000 && ch <= 0x200b) ||
    ch === 0x202f ||
    ch === 0x205f ||
    ch === 0x3000 ||
    ch === 0xfeff
  );
}

const ESCAPES: Readonly<Record<string, string>> = {
  '\t': '\\t',
  '\v': '\\v',
  '\f': '\\f',
  '\b': '\\b',
  '\r': '\\r',
  '\n': '\\n',
  '\\': '\\\\',
  "'": "\\'",
  '`': '\\`',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
  '\u0085': '\\u0085',
  '\r\n': '\\r\\n',
};
const SINGLE_QUOTE_ESCAPED = /[\\'\u0000-\u001f\u2028\u2029\u0085]/g;
const BACKTICK_ESCAPED = /\r\n|[\\`\u0000-\u0009\u000b-\u001f\u2028\u2029\u0085]/g;
const NON_ASCII = /[^\u0000-\u007f]/g;

function quoted(value: string): string {
  return `'${escapeNonAscii(value.replace(SINGLE_QUOTE_ESCAPED, escapeChar))}'`;
}

function escapeTemplateText(value: string): string {
  return escapeNonAscii(value.replace(BACKTICK_ESCAPED, escapeChar)).replaceAll('${', '\\${');
}

function escapeChar(c: string, offset: number, input: string): string {
  if (c === '\0') {
    const next = input.charCodeAt(offset + 1);
    return next >= 0x30 && next <= 0x39 ? '\\x00' : '\\0';
  }
  return ESCAPES[c] ?? unicodeEscape(c);
}

function escapeNonAscii(value: string): string {
  return value.replace(NON_ASCII, unicodeEscape);
}

function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}
