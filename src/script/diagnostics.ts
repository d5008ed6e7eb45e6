/**
 * What the TypeScript pipeline tells the agent about its script: a position in the agent's own
 * source, a message, and a hint where one helps. Blocking diagnostics stop the run ("not executed").
 */

export type DiagnosticSeverity = 'error' | 'warning';

export interface Diagnostic {
  /** 1-based line in the user's script. */
  line: number;
  /** 1-based column. */
  col: number;
  message: string;
  severity: DiagnosticSeverity;
  /** TypeScript diagnostic code, when the diagnostic comes from the compiler. */
  code?: number;
  /** What to do about it (`did you mean 'get'?`, `use get_schema to see the params`). */
  hint?: string;
}

/** `3:14 message (hint)` — one line per diagnostic, as the agent reads it. */
export function formatDiagnostic(d: Diagnostic): string {
  const code = d.code !== undefined ? ` [TS${d.code}]` : '';
  const hint = d.hint ? ` — ${d.hint}` : '';
  return `${d.line}:${d.col} ${d.message}${code}${hint}`;
}

export function formatDiagnostics(list: readonly Diagnostic[]): string {
  return list.map(formatDiagnostic).join('\n');
}
