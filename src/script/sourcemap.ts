/**
 * Maps positions and stack traces from the transpiled JavaScript that runs in the sandbox back to
 * the agent's TypeScript. Frames that are not the agent's code (the prelude, isolated-vm's
 * boundary frames, anything carrying a host path) are dropped: the agent never sees host files.
 */
import { SourceMap, type SourceMapPayload } from 'node:module';
import { PROGRAM_FILE, PROGRAM_FUNCTION, SCRIPT_URL } from './names.js';
import type { UserPosition } from './program.js';

const FRAME_LINE = /^\s+at\s/;
const SCRIPT_POSITION = /file:\/\/\/agent\.js:(\d+):(\d+)/g;

interface MappedStack {
  /** Message lines plus only the agent's frames, rewritten to `agent.ts:line:col`. */
  stack: string;
  /** Position of the innermost frame in the agent's code. */
  position?: UserPosition;
}

export class ScriptSourceMap {
  /** Undefined when the JavaScript is the wrapped source as written (transpile.ts). */
  private readonly map: SourceMap | undefined;

  constructor(
    sourceMapText: string | undefined,
    private readonly userLineCount: number,
  ) {
    this.map = sourceMapText === undefined ? undefined : new SourceMap(JSON.parse(sourceMapText) as SourceMapPayload);
  }

  /** A 1-based position in the sandbox's JavaScript → the user's line:col, or undefined for wrapper code. */
  toUser(jsLine: number, jsCol: number): UserPosition | undefined {
    // The program wrapper occupies line 0 of the wrapped file; user line N is wrapped line N.
    if (!this.map) return this.userLine(jsLine - 1) ? { line: jsLine - 1, col: jsCol } : undefined;
    const entry = this.map.findEntry(jsLine - 1, Math.max(0, jsCol - 1)) as Partial<{
      originalSource: string;
      originalLine: number;
      originalColumn: number;
    }>;
    if (entry.originalLine === undefined || entry.originalColumn === undefined) return undefined;
    const line = entry.originalLine;
    return this.userLine(line) ? { line, col: entry.originalColumn + 1 } : undefined;
  }

  private userLine(line: number): boolean {
    return line >= 1 && line <= this.userLineCount;
  }

  mapStack(stack: string): MappedStack {
    const kept: string[] = [];
    let position: UserPosition | undefined;
    for (const text of stack.split('\n')) {
      if (!FRAME_LINE.test(text)) {
        kept.push(text);
        continue;
      }
      if (!text.includes(SCRIPT_URL)) continue;
      let mappedAny = false;
      const rewritten = text.replace(SCRIPT_POSITION, (_all, l: string, c: string) => {
        const pos = this.toUser(Number(l), Number(c));
        if (!pos) return PROGRAM_FILE;
        mappedAny = true;
        position ??= pos;
        return `${PROGRAM_FILE}:${pos.line}:${pos.col}`;
      });
      if (mappedAny) kept.push(rewritten.replace(PROGRAM_FUNCTION, '<script>'));
    }
    return { stack: kept.join('\n'), ...(position ? { position } : {}) };
  }
}
