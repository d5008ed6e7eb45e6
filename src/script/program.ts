/**
 * A script is the body of an async function: top-level `await` and `return value` work. Every
 * stage (call extraction, type-check, transpile) wraps it the same way, so positions agree.
 * The wrapper adds exactly one line before the user's first line and leaves columns untouched.
 */
import type * as TS from 'typescript';
import { ts } from './typescript.js';

import { PROGRAM_FILE, PROGRAM_FUNCTION } from './names.js';

const PREFIX = `async function ${PROGRAM_FUNCTION}() {\n`;
const SUFFIX = '\n}\n';

export function wrapProgram(source: string): string {
  return PREFIX + source + SUFFIX;
}

export interface UserPosition {
  /** 1-based line in the user's source. */
  line: number;
  /** 1-based column. */
  col: number;
}

/** Converts a 0-based position in the wrapped text; clamps wrapper positions onto the user's text. */
export function userPositionOf(wrapped: TS.SourceFile, offset: number, userLineCount: number): UserPosition {
  const lc = wrapped.getLineAndCharacterOfPosition(offset);
  if (lc.line < 1) return { line: 1, col: 1 };
  if (lc.line > userLineCount) return { line: userLineCount, col: 1 };
  return { line: lc.line, col: lc.character + 1 };
}

export function lineCount(source: string): number {
  return source.split(/\r\n|\r|\n/).length;
}

export function parseProgram(source: string): TS.SourceFile {
  return ts.createSourceFile(PROGRAM_FILE, wrapProgram(source), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

/**
 * A stray `}` in the user's text closes the wrapper early and moves the rest of the script to the
 * top level, where it would run outside the program function. Returns the offending offset.
 */
export function findWrapperBreakout(wrapped: TS.SourceFile): number | undefined {
  const [first, ...rest] = wrapped.statements;
  const wellFormed =
    first !== undefined && rest.length === 0 && ts.isFunctionDeclaration(first) && first.name?.text === PROGRAM_FUNCTION && first.body !== undefined && first.body.end === wrapped.text.length - 1;
  if (wellFormed) return undefined;
  if (first && ts.isFunctionDeclaration(first) && first.body) return first.body.end - 1;
  return 0;
}
