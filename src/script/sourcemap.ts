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

export interface MappedStack {
  /** Message lines plus only the agent's frames, rewritten to `agent.ts:line:col`. */
  stack: string;
  /** Position of the innermost frame in the agent's code. */
  position?: UserPosition;
}

export class ScriptSourceMap {
  private readonly map: SourceMap;

  constructor(
    sourceMapText: string,
    private readonly userLineCount: number,
  ) {
    this.map = new SourceMap(JSON.parse(sourceMapText) as SourceMapPayload);
  }

  /** A 1-based position in the sandbox's JavaScript → the user's line:col, or undefined for wrapper code. */
  toUser(jsLine: number, jsCol: number): UserPosition | undefined {
    const entry = this.map.findEntry(jsLine - 1, Math.max(0, jsCol - 1)) as Partial<{
      originalSource: string;
      originalLine: number;
      originalColumn: number;
    }>;
    if (entry.originalLine === undefined || entry.originalColumn === undefined) return undefined;
    // The program wrapper occupies line 0 of the transpiled file; user line N is wrapped line N.
    const line = entry.originalLine;
    if (line < 1 || line > this.userLineCount) return undefined;
    return { line, col: entry.originalColumn + 1 };
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
