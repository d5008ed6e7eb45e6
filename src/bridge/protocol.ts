/**
 * The contract between the sandbox (which runs agent code) and the host bridge (which does all
 * Proxmox I/O). Everything the sandbox asks for arrives as a `BridgeCall`; everything it gets
 * back is a `BridgeReply`. Both are plain JSON data: no functions, no host objects.
 */
import type { CallOutcome } from '../client/outcome.js';
import type { HttpMethod, RiskClass } from '../schema/model.js';

export interface RequestCall {
  kind: 'request';
  method: HttpMethod;
  /** A path template (`/nodes/{node}/qemu`) with its params in `params`, or a concrete path. */
  path: string;
  params: Record<string, unknown>;
  /** Named cluster; the default cluster when absent. */
  cluster?: string;
}

export interface WaitTaskCall {
  kind: 'waitTask';
  upid: string;
  timeoutMs?: number;
  cluster?: string;
}

/**
 * A call the sandbox channel refused before it could be parsed (an oversized or malformed frame, a
 * path with `..` or `%`, prototype keys, too many calls). It still goes to the handler, which is
 * the one place that counts, charges and audits every attempt; only the refusal travels, never the
 * refused bytes.
 */
export interface RejectedCall {
  kind: 'rejected';
  error: { kind: 'invalid' | 'budget'; message: string };
}

/**
 * `pve.undo(runId)`: the reversing steps of an earlier run's recorded changes (src/safety/undo.ts),
 * answered as data; the prelude then makes each step as an ordinary request (policy, plan, approval).
 */
export interface UndoCall {
  kind: 'undo';
  runId: string;
  /** The cluster whose budget the undo's reads are charged to (each step names its own cluster). */
  cluster?: string;
}

export type BridgeCall = RequestCall | WaitTaskCall | UndoCall | RejectedCall;

/**
 * Why a call failed, as `PveError.kind` tells a script (the prelude's error names and the SDK's
 * typing are tested against this list):
 * invalid — the call was malformed (bad path segment, non-JSON params, unknown operation);
 * denied — policy refused it, the message names the rule; budget — the per-run budget (calls per
 * risk class, guests, task-wait time) is used up; approval — needs human approval that was not
 * given, or deviates from the approved plan; identity — the guest behind a VMID changed since the
 * plan or an earlier read; api — Proxmox answered with an error status, or a read got no answer;
 * task — a task ended with an error exit status; timeout — a read or a task wait ran out of time;
 * cancelled — the run ended before the call was sent; unknown — a change was sent (or may have
 * been) and no trustworthy answer came: it may have run; audit — the audit log cannot be written,
 * so the change was not sent; halted — an operator halted every change on this host (the kill
 * switch), so the change was not sent; internal.
 */
export const BRIDGE_ERROR_KINDS = ['invalid', 'denied', 'budget', 'approval', 'identity', 'api', 'task', 'timeout', 'cancelled', 'unknown', 'audit', 'halted', 'internal'] as const;

export type BridgeErrorKind = (typeof BRIDGE_ERROR_KINDS)[number];

export interface BridgeError {
  kind: BridgeErrorKind;
  message: string;
  /** What became of the call (client/outcome.ts); always set by the handler. */
  outcome?: CallOutcome;
  method?: HttpMethod;
  path?: string;
  status?: number;
  /** Per-parameter errors from PVE (`errors` in a 400 body). */
  errors?: Record<string, string>;
  risk?: RiskClass;
  /** The task the call is about (a failed or unknown task), its node and exit status, and its log tail. */
  upid?: string;
  node?: string;
  exitstatus?: string;
  log?: string[];
}

export type BridgeReply = { ok: true; data: unknown } | { ok: false; error: BridgeError };

/**
 * How long a change that was already sent may still answer after its run ended (cancelled, the
 * worker died, the server is stopping): an answer that comes makes its outcome known instead of
 * `unknown`. The run's answer waits for it (src/sandbox/worker-run.ts); the server's drain is longer.
 */
export const SENT_GRACE_MS = 5_000;

export interface BridgeContext {
  /**
   * Aborted when the run ends (finished, killed or cancelled): stop every call not yet sent; a
   * change already sent gets `SENT_GRACE_MS` more to answer.
   */
  signal: AbortSignal;
  /**
   * Bookkeeping that must happen for this call but need not delay its answer (the audit record).
   * The sandbox runs `task` synchronously right after the reply has left for the script, before
   * the server handles anything else, so the script's next step overlaps it. Without this hook
   * (a handler called directly) the handler runs the task before it resolves.
   */
  afterReply?(task: () => void): void;
}

/** Host side of the bridge. Implementations must always resolve, never reject. */
export type BridgeHandler = (call: BridgeCall, ctx: BridgeContext) => Promise<BridgeReply>;
