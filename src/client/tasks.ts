/**
 * Waiting for a PVE task: poll `/nodes/{node}/tasks/{upid}/status` and read the log incrementally
 * from `/log` with a growing interval until the task stops, the timeout passes or the caller aborts.
 *
 * Outcome: a task that ends `OK` or `WARNINGS: n` resolves with `ok: true`; any other exit status
 * rejects with `PveTaskFailedError`, whose `result` holds the same data (`ok: false`, exit status,
 * log tail) for callers that want to report rather than throw. A task whose status cannot be read
 * (after `maxStatusFailures` failed polls) rejects with `PveTaskUnknownError`: it was started and
 * its end is unknown. A log read that fails does not fail the wait: after the end, the result
 * carries the lines read before and a `note`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { HttpMethod } from '../schema/model.js';
import { UPID_SHAPE, parseUpid } from '../pve/upid.js';
import { isPveError } from './error-codes.js';
import { PveAbortedError, PveInputError, PveTimeoutError } from './errors.js';
import { PveTaskFailedError, PveTaskUnknownError, type TaskOutcome } from './task-errors.js';
import type { Envelope } from './response.js';
import { isRetryable } from './retry.js';

export type TaskResult = TaskOutcome;

export interface TaskStatus {
  /** `running` or `stopped`. */
  status: string;
  /** Present once stopped: `OK`, `WARNINGS: n`, or the error text. */
  exitstatus?: string;
  [key: string]: unknown;
}

export interface WaitTaskOptions {
  /** Give up after this long (default 5 min). The task keeps running on the node. */
  timeoutMs?: number;
  /** First poll interval (default 500 ms); grows ×1.5 per poll up to maxPollMs. */
  pollMs?: number;
  /** Longest poll interval (default 5 s). */
  maxPollMs?: number;
  /** How many of the last log lines the result keeps (default 50). */
  tailLines?: number;
  /**
   * Polls in a row whose status read may fail (each after the client's own GET retries) before
   * the wait ends with `PveTaskUnknownError` (default 3). A failure that trying again cannot fix
   * (403, a malformed answer) ends it at once.
   */
  maxStatusFailures?: number;
  signal?: AbortSignal;
  /** Called after every poll with the log lines that appeared since the previous one. */
  onProgress?: (newLogLines: string[], status: TaskStatus) => void;
}

export const DEFAULT_TASK_TIMEOUT_MS = 300_000;

/** The one capability the waiter needs from the client. */
export interface TaskApi {
  requestRaw<T>(method: HttpMethod, path: string, params?: Record<string, unknown>, opts?: { signal?: AbortSignal }): Promise<Envelope<T>>;
}

const statusSchema = z.looseObject({ status: z.string(), exitstatus: z.string().optional() });
const logSchema = z.array(z.looseObject({ n: z.number(), t: z.string() }));

export function isTaskOk(exitstatus: string | undefined): boolean {
  return exitstatus === 'OK' || /^WARNINGS: \d+$/.test(exitstatus ?? '');
}

/** The node a caller's task ID names; a malformed one is the caller's input error. */
function taskNode(upid: string): string {
  // Non-strings come from untyped callers (scripts); '' never parses, so they get the same error.
  const parts = parseUpid(typeof upid === 'string' ? upid.trim() : '');
  if (!parts) {
    throw new PveInputError(`${JSON.stringify(upid)} is not a task ID: expected '${UPID_SHAPE}' as returned by the call that started the task.`);
  }
  return parts.node;
}

export async function waitForTask(api: TaskApi, upid: string, options: WaitTaskOptions = {}): Promise<TaskResult> {
  const node = taskNode(upid);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
  const maxPollMs = options.maxPollMs ?? 5_000;
  const tailLines = options.tailLines ?? 50;
  const maxStatusFailures = Math.max(1, options.maxStatusFailures ?? 3);
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const params = { node, upid };
  const log = new TaskLogReader(api, params, signal, tailLines);
  let delay = options.pollMs ?? 500;

  let lastStatus: string | undefined;
  let failedReads = 0;
  let note: string | undefined;
  try {
    for (;;) {
      let status: TaskStatus;
      try {
        status = statusSchema.parse((await api.requestRaw<unknown>('GET', '/nodes/{node}/tasks/{upid}/status', params, { signal })).data) as TaskStatus;
        failedReads = 0;
      } catch (err) {
        if (signal.aborted) throw err;
        // The task was started: not being able to read it says nothing of how it went.
        failedReads++;
        if (failedReads >= maxStatusFailures || !isRetryable(err)) {
          throw new PveTaskUnknownError(upid, node, lastStatus, reasonOf(err, failedReads), err);
        }
        await sleep(delay, undefined, { signal });
        delay = Math.min(maxPollMs, Math.round(delay * 1.5));
        continue;
      }
      lastStatus = status.status;
      const stopped = status.status !== 'running';
      // Read the log after the status: once `stopped` is seen, this read has the final lines.
      let fresh: string[] = [];
      try {
        fresh = await log.readNew();
      } catch (err) {
        if (signal.aborted) throw err;
        // While running, the next poll reads the missed lines; after the end, the status is the answer.
        if (stopped) note = `the log could not be read after the task ended (${messageOf(err)}): it holds the lines read before`;
      }
      options.onProgress?.(fresh, status);
      if (stopped) {
        const result: TaskResult = {
          upid,
          node,
          status: status.status,
          exitstatus: status.exitstatus,
          ok: isTaskOk(status.exitstatus),
          log: log.tail,
          ...(note ? { note } : {}),
        };
        if (!result.ok) throw new PveTaskFailedError(result);
        return result;
      }
      await sleep(delay, undefined, { signal });
      delay = Math.min(maxPollMs, Math.round(delay * 1.5));
    }
  } catch (err) {
    if (options.signal?.aborted) {
      throw isPveError(err) && err.code === 'pve-aborted' ? err : new PveAbortedError('GET', `task ${upid}`, true, options.signal.reason);
    }
    if (deadline.aborted) {
      const tail = log.tail.slice(-5);
      const detail = tail.length > 0 ? `Last log lines:\n  ${tail.join('\n  ')}` : 'No log lines yet.';
      throw new PveTimeoutError('task', timeoutMs, undefined, `task ${upid}`, detail, err);
    }
    throw err;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function reasonOf(err: unknown, polls: number): string {
  const times = polls > 1 ? `; ${polls} polls in a row failed` : '';
  return `${messageOf(err)}${times}`;
}

class TaskLogReader {
  /** Highest absolute line number (1-based `n`) already read. */
  #seen = 0;
  readonly tail: string[] = [];

  constructor(
    private readonly api: TaskApi,
    private readonly params: { node: string; upid: string },
    private readonly signal: AbortSignal,
    private readonly keep: number,
  ) {}

  async readNew(): Promise<string[]> {
    const { data } = await this.api.requestRaw<unknown>('GET', '/nodes/{node}/tasks/{upid}/log', { ...this.params, start: this.#seen, limit: 0 }, { signal: this.signal });
    const lines = logSchema.parse(data);
    // An empty log file reads as one placeholder line; real line 1 would be skipped if we counted it.
    if (this.#seen === 0 && lines.length === 1 && lines[0]?.n === 1 && lines[0].t === 'no content') {
      return [];
    }
    const fresh = lines.filter((l) => l.n > this.#seen).sort((a, b) => a.n - b.n);
    for (const line of fresh) {
      this.#seen = line.n;
      this.tail.push(line.t);
    }
    if (this.tail.length > this.keep) this.tail.splice(0, this.tail.length - this.keep);
    return fresh.map((l) => l.t);
  }
}
