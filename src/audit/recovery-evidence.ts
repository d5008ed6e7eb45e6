/**
 * The evidence of what became of an orphan intent's change, as PVE tells it.
 *
 * Two kinds of evidence, read only (GET), never a retry of the write:
 *  - the task list: a task-starting write leaves a task on its node (`GET /nodes/{node}/tasks`,
 *    or the cluster's recent list when the node cannot be read) of a type that follows from the
 *    path (`…/snapshot` → qmsnapshot/vzsnapshot, `…/status/start` → qmstart…), on the guest the
 *    path names, by the user the write went out with, started in the intent's window;
 *  - the object's state where the write names it: a DELETE's object is gone or still there, a
 *    guest config write's keys hold the intended values or not, a new snapshot is listed or not.
 *
 * Each probe answers with what it read, or why it could not read it, and leaves weighing the
 * answers to the verdict (recovery.ts): one probe alone cannot tell a contradiction from a match.
 */
import { isTaskOk } from '../client/tasks.js';
import type { PveClientLike } from '../client/client-like.js';
import { parseUpid, type UpidParts } from '../pve/upid.js';
import type { IntentToRecover, RecoverOptions, Window } from './recovery.js';
import { segmentsOf, type StateCheck, type Target, wireValue } from './recovery-target.js';

const TASK_LIST_LIMIT = 1000;

export interface TaskSeen extends UpidParts {
  upid: string;
  /** `RUNNING`, `OK`, `WARNINGS: n`, the error text; absent for a running task in the cluster list. */
  status?: string;
}

export type TaskSearch = { read: true; where: string; found: TaskSeen[] } | { read: false; why: string };
export type StateAnswer = { kind: 'made' | 'not-made' | 'unreadable'; text: string };

// ── Task list ────────────────────────────────────────────────────────────────────────────────────

export async function searchTasks(client: PveClientLike, intent: IntentToRecover, target: Target, w: Window, opts: RecoverOptions): Promise<TaskSearch> {
  const matches = (t: TaskSeen): boolean =>
    (target.node === undefined || t.node === target.node) &&
    (target.guest === undefined || t.id === String(target.guest.vmid)) &&
    (target.taskTypes === undefined || target.taskTypes.includes(t.type)) &&
    (intent.user === undefined || t.user === intent.user) &&
    t.starttime >= w.since &&
    t.starttime <= w.until &&
    !(opts.knownUpids?.has(t.upid) ?? false);
  // Without a type or a guest, any task of the user on the node would match: that tells nothing.
  if (target.taskTypes === undefined && target.guest === undefined) return { read: false, why: `the path ${intent.path} names neither a guest nor a task type to look for` };
  let nodeFailure: string | undefined;
  if (target.node !== undefined) {
    const query: Record<string, unknown> = { source: 'all', since: w.since, until: w.until, limit: TASK_LIST_LIMIT };
    if (target.guest) query.vmid = target.guest.vmid;
    try {
      const list = await client.request('GET', `/nodes/${encodeURIComponent(target.node)}/tasks`, query, signalOpt(opts.signal));
      return { read: true, where: `node ${target.node}'s task list`, found: tasksOf(list).filter(matches) };
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      nodeFailure = `cannot read the task list of node ${target.node} (${failureText(err, target.node)})`;
    }
  }
  // The cluster's list holds only recent tasks: a task found there is evidence, an absent one is not.
  try {
    const found = tasksOf(await client.request('GET', '/cluster/tasks', undefined, signalOpt(opts.signal))).filter(matches);
    if (found.length > 0) return { read: true, where: "the cluster's recent task list", found };
    return { read: false, why: `${nodeFailure ?? 'the write names no node'}, and the cluster's recent task list, which may not hold it, shows no such task` };
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return { read: false, why: `${nodeFailure ?? 'the write names no node'}, nor the cluster's task list (${failureText(err)})` };
  }
}

function signalOpt(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal ? { signal } : {};
}

function tasksOf(data: unknown): TaskSeen[] {
  if (!Array.isArray(data)) return [];
  const out: TaskSeen[] = [];
  for (const item of data) {
    const upid = (item as { upid?: unknown } | null)?.upid;
    if (typeof upid !== 'string') continue;
    const parts = parseUpid(upid);
    if (!parts) continue;
    const status = (item as { status?: unknown }).status;
    out.push({ upid, ...parts, ...(typeof status === 'string' ? { status } : {}) });
  }
  return out;
}

type TaskEnd = 'running' | 'ok' | 'failed';

export function taskEnd(t: TaskSeen): TaskEnd {
  if (t.status === undefined || t.status === 'RUNNING') return 'running';
  return isTaskOk(t.status) ? 'ok' : 'failed';
}

export function taskText(t: TaskSeen): string {
  const end = taskEnd(t);
  const how = end === 'running' ? 'is still running' : end === 'ok' ? `ended ${t.status}` : `ended with the error '${t.status}'`;
  return `task ${t.upid} started at ${iso(t.starttime)} and ${how}`;
}

export function iso(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString();
}

// ── Object state ─────────────────────────────────────────────────────────────────────────────────

export async function checkState(client: PveClientLike, check: StateCheck, signal: AbortSignal | undefined): Promise<StateAnswer> {
  const node = segmentsOf(check.path)[0] === 'nodes' ? segmentsOf(check.path)[1] : undefined;
  try {
    switch (check.kind) {
      case 'gone':
        try {
          await client.request('GET', check.path, undefined, signalOpt(signal));
        } catch (err) {
          if (isGone(err)) return { kind: 'made', text: `${check.what} does not exist (any more): deleted by this write, or already gone before it` };
          throw err;
        }
        return { kind: 'not-made', text: `${check.what} still exists` };
      case 'snapshot': {
        const list = await client.request('GET', check.path, undefined, signalOpt(signal));
        const names = Array.isArray(list) ? list.map((s) => (s as { name?: unknown } | null)?.name) : [];
        return names.includes(check.name) ? { kind: 'made', text: `${check.what} exists` } : { kind: 'not-made', text: `${check.what} is not in its snapshot list` };
      }
      case 'config': {
        const config = await client.request('GET', check.path, undefined, signalOpt(signal));
        return compareConfig(check, (config ?? {}) as Record<string, unknown>);
      }
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    return { kind: 'unreadable', text: `cannot read ${check.what} (${failureText(err, node)})` };
  }
}

function compareConfig(check: Extract<StateCheck, { kind: 'config' }>, config: Record<string, unknown>): StateAnswer {
  const differ: string[] = [];
  for (const [key, want] of Object.entries(check.set)) {
    const have = config[key];
    if (have === undefined) differ.push(`${key} is not set (intended ${JSON.stringify(want)})`);
    else if (wireValue(have) !== want) differ.push(`${key} is ${JSON.stringify(wireValue(have))} (intended ${JSON.stringify(want)})`);
  }
  for (const key of check.remove) if (config[key] !== undefined) differ.push(`${key} is still set (intended to be removed)`);
  if (differ.length > 0) return { kind: 'not-made', text: `in ${check.what} ${differ.join(', ')}` };
  const keys = [...Object.keys(check.set), ...check.remove.map((k) => `-${k}`)].join(', ');
  return { kind: 'made', text: `${check.what} holds the intended values (${keys}): set by this write, or already so before it` };
}

/** PVE's ways of saying that an object does not exist: 404, or 500 with "does not exist". */
function isGone(err: unknown): boolean {
  const status = (err as { status?: unknown } | null)?.status;
  const message = String((err as { pveMessage?: unknown } | null)?.pveMessage ?? (err as Error | null)?.message ?? '');
  return status === 404 || (status === 500 && /does not exist|no such/i.test(message) && !/hostname lookup/i.test(message));
}

function failureText(err: unknown, node?: string): string {
  const e = err as { status?: unknown; pveMessage?: unknown; message?: unknown } | null;
  const status = typeof e?.status === 'number' ? e.status : undefined;
  const message = String(e?.pveMessage ?? e?.message ?? err).trim();
  if (status === 595 || status === 596) return `HTTP ${status} ${message}: node ${node ?? '?'} is offline or unreachable from the API node`;
  if (status === 403) return `HTTP 403 ${message}: the API user lacks the privilege to read it`;
  if (status !== undefined) return `HTTP ${status} ${message}`;
  return message;
}
