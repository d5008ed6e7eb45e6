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
/**
 * Defined by the trusted prelude (sandbox/prelude.js): runs the program function once and reports
 * its settlement. It is called in the same script as the program so no reply can race it.
 */
export const START_FUNCTION = '__pveStart__';
