/**
 * What a compile of the agent's script produces, as plain data: it is made where TypeScript runs
 * (the type-check process, or the sandbox worker that will run the script) and sent to the
 * server, which never parses a script. Free of TypeScript imports, so the server's run path loads
 * none.
 */
import type { ArgSpecs } from './args.js';
import type { SdkCall } from './calls.js';
import type { Diagnostic } from './diagnostics.js';
import { ScriptSourceMap } from './sourcemap.js';

export interface TranspiledScript {
  /** Complete JavaScript for the sandbox: the program function and the call that starts it. */
  js: string;
  sourceMap: ScriptSourceMap;
  /** The SDK calls the source makes, read from the same parse (the preflight's input). */
  calls: SdkCall[];
  /** `file`: the script was written in the file form (src/script/file-form.ts). */
  form?: 'file';
  /** The arguments a file-form script declares (`export const args`). */
  args?: ArgSpecs;
}

export type TranspileResult = { ok: true; script: TranspiledScript } | { ok: false; diagnostics: Diagnostic[] };

/**
 * The same result as it crosses a process boundary. Without `sourceMapText` the JavaScript is the
 * wrapped source as written (transpile.ts): positions map one line down, column for column.
 */
export type PortableTranspile = { ok: true; js: string; sourceMapText?: string; lines: number; calls: SdkCall[]; form?: 'file'; args?: ArgSpecs } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Secret literals written in the source (script-secrets in src/safety says which): their values,
 * for the run's scrubber, and where they are written, as `[start, end)` UTF-16 offsets of the text
 * between the quotes, for the audit's copy of the source. When the source could not be parsed the
 * spans cover the contents of every string literal instead (nothing is known to be safe).
 */
export interface SecretScan {
  literals: string[];
  spans: Array<[number, number]>;
  /** True when the spans are every string's contents because the source did not parse. */
  allStrings?: boolean;
}

/** What the compile of one script returns across a process boundary. */
export interface ScriptCompile {
  transpiled: PortableTranspile;
  secrets: SecretScan;
}

/** Builds the source map of a portable result; throws when its map is not valid JSON. */
export function materialize(portable: PortableTranspile): TranspileResult {
  if (!portable.ok) return portable;
  const file = portable.form ? { form: portable.form, ...(portable.args ? { args: portable.args } : {}) } : {};
  return { ok: true, script: { js: portable.js, sourceMap: new ScriptSourceMap(portable.sourceMapText, portable.lines), calls: portable.calls, ...file } };
}
