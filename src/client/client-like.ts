/**
 * The minimal Proxmox client surface the bridge needs. `PveClient` (src/client/) satisfies it
 * (bench/safety.ts passes the real client, so `tsc` checks it); tests may pass anything with the
 * same shape.
 *
 * Errors are expected as the client throws them: an HTTP failure carries a numeric `status` (and
 * PVE's per-parameter `errors`), a failed task is `PveTaskFailedError` with its `result`.
 */
import type { TaskResult, TaskStatus } from './tasks.js';
import type { HttpMethod } from '../schema/model.js';

export type { TaskResult };

/**
 * A call request resolution (src/policy/request.ts) has resolved to one operation of the
 * cluster's schema: sent as it is, with no path normalised, substituted or matched again.
 */
export interface ResolvedCall {
  readonly method: HttpMethod;
  /** The concrete path below /api2/json, each segment already percent-encoded. */
  readonly urlPath: string;
  /** Values of the operation's own params (path values removed); JSON data. */
  readonly params: Readonly<Record<string, unknown>>;
  /** The operation's `type: array` params: sent as repeated keys, every other list comma-joined. */
  readonly arrayParams: ReadonlySet<string>;
}

export interface PveClientLike {
  /** `user@realm!token` or `user@realm`: whose privileges the preflight checks. */
  readonly authId?: string;
  /**
   * `path` is a concrete API path below /api2/json, each segment already percent-encoded. The data
   * returned is handed over: the bridge redacts it in place, so it must not be shared.
   */
  request(method: HttpMethod, path: string, params?: Record<string, unknown>, opts?: { signal?: AbortSignal }): Promise<unknown>;
  /** A script's call, resolved: the data returned is handed over as `request`'s is. */
  send(call: ResolvedCall, opts?: { signal?: AbortSignal }): Promise<unknown>;
  /** Resolves with `ok: true` for OK/WARNINGS; rejects with the task failure otherwise. */
  waitTask(upid: string, opts?: { timeoutMs?: number; signal?: AbortSignal; onProgress?: (newLogLines: string[], status: TaskStatus) => void }): Promise<TaskResult>;
}
