/**
 * The contract between the sandbox (which runs agent code) and the host bridge (which does all
 * Proxmox I/O). Everything the sandbox asks for arrives as a `BridgeCall`; everything it gets
 * back is a `BridgeReply`. Both are plain JSON data: no functions, no host objects.
 */
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

export type BridgeCall = RequestCall | WaitTaskCall | RejectedCall;

/**
 * Why a call failed, as `PveError.kind` tells a script (the prelude's error names and the SDK's
 * typing are tested against this list):
 * invalid — the call was malformed (bad path segment, non-JSON params, unknown operation);
 * denied — policy refused it, the message names the rule; budget — the per-run budget (calls per
 * risk class, guests, task-wait time) is used up; approval — needs human approval that was not
 * given, or deviates from the approved plan; identity — the guest behind a VMID changed since the
 * plan or an earlier read; api — Proxmox answered with an error status; task — a task ended with
 * an error exit status; timeout; cancelled — the run was cancelled or ended while the call was in
 * flight; internal.
 */
export const BRIDGE_ERROR_KINDS = ['invalid', 'denied', 'budget', 'approval', 'identity', 'api', 'task', 'timeout', 'cancelled', 'internal'] as const;

export type BridgeErrorKind = (typeof BRIDGE_ERROR_KINDS)[number];

export interface BridgeError {
  kind: BridgeErrorKind;
  message: string;
  method?: HttpMethod;
  path?: string;
  status?: number;
  /** Per-parameter errors from PVE (`errors` in a 400 body). */
  errors?: Record<string, string>;
  risk?: RiskClass;
}

export type BridgeReply = { ok: true; data: unknown } | { ok: false; error: BridgeError };

export interface BridgeContext {
  /** Aborted when the run ends (finished, killed or cancelled): stop in-flight Proxmox I/O. */
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
