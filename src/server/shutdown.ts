/**
 * The graceful stop's middle part, the same over stdio and HTTP: refuse new tool calls, cancel
 * the runs in flight, wait (at most the drain) until every pending tool call was answered, and
 * answer the ones still pending past it that their outcome is unknown. The caller closes the
 * transports and the product (which flushes and closes the audit) after it.
 */
import type { ToolCallDrain } from './drain.js';

export interface DrainReport {
  /** Every pending call got its own answer within the drain. */
  clean: boolean;
  /** Calls pending when the stop began. */
  pending: number;
  /** The tools of the calls answered "outcome unknown" past the drain. */
  abandoned: string[];
  ms: number;
}

/** How long the "outcome unknown" answers may take to be written before the server closes anyway. */
const ABANDON_WRITE_MS = 1_000;

export async function drainToolCalls(calls: ToolCallDrain, runs: { drain(): Promise<void> }, drainMs: number): Promise<DrainReport> {
  const started = performance.now();
  const pending = calls.pendingCalls;
  calls.stop();
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([Promise.all([runs.drain(), calls.idle()]).then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), drainMs)))]).finally(() =>
    clearTimeout(timer),
  );
  const abandoned = answered ? [] : await calls.abandon(abandonedMessage(drainMs), ABANDON_WRITE_MS);
  return { clean: abandoned.length === 0, pending, abandoned, ms: Math.round(performance.now() - started) };
}

function abandonedMessage(drainMs: number): string {
  return (
    `error [unknown]: the server stopped before this call was answered (its run was cancelled and no result came within the ${drainMs} ms drain). ` +
    'What it sent to Proxmox is unknown: writes may or may not have been made. Check the state of what the script changes ' +
    '(and the audit log) before running it again against the restarted server.'
  );
}
