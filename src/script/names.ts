/**
 * Names shared by the TypeScript pipeline (server process) and the sandbox (worker process and
 * prelude). Kept free of imports so the worker can use them without loading TypeScript.
 */

/** The async function the agent's program becomes. */
export const PROGRAM_FUNCTION = '__pveProgram__';
/** The agent's source as positions and frames name it. */
export const PROGRAM_FILE = 'agent.ts';
/** The name the sandbox compiles the transpiled JavaScript under; it appears in every user frame. */
export const SCRIPT_URL = 'file:///agent.js';
/** What a file-form script's default export is bound to (src/script/file-form.ts). */
export const FILE_MAIN = '__pve$';
/**
 * Defined by the trusted prelude (sandbox/prelude.js): runs the program function once and reports
 * its settlement. It is called in the same script as the program so no reply can race it.
 */
export const START_FUNCTION = '__pveStart__';

/** The compiled script's last line: starts the program function, with the run's argument values. */
export function startLine(args?: Readonly<Record<string, string | number | boolean>>): string {
  // JSON is a JavaScript expression (ES2019 admits U+2028/9 in strings): the values cannot break out.
  return `${START_FUNCTION}(${PROGRAM_FUNCTION}${args ? `, ${JSON.stringify(args)}` : ''});\n`;
}

/** The compiled JavaScript `js`, started with `args` (what the script reads as the global `args`). */
export function withArgs(js: string, args: Readonly<Record<string, string | number | boolean>> | undefined): string {
  if (!args) return js;
  const plain = startLine();
  if (!js.endsWith(plain)) throw new Error('the compiled script does not end with its start call (internal error)');
  return `${js.slice(0, -plain.length)}${startLine(args)}`;
}
