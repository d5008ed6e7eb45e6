/**
 * What became of a change whose writer died between its `intent` entry and its outcome: a starting
 * server asks PVE, where PVE can tell, and records the answer as a `recovered` entry.
 *
 * Two kinds of evidence, read only (GET), never a retry of the write:
 *  - the task list: a task-starting write leaves a task on its node (`GET /nodes/{node}/tasks`,
 *    or the cluster's recent list when the node cannot be read) of a type that follows from the
 *    path (`…/snapshot` → qmsnapshot/vzsnapshot, `…/status/start` → qmstart…), on the guest the
 *    path names, by the user the write went out with, started in the intent's window;
 *  - the object's state where the write names it: a DELETE's object is gone or still there, a
 *    guest config write's keys hold the intended values or not, a new snapshot is listed or not.
 *
 * PVE tasks do not name the snapshot or the config keys they worked on, so two tasks of one type on
 * one guest in one window cannot be told apart: the verdict says so (unknown, or the state's answer
 * without a UPID) rather than picking one. Every verdict carries one sentence that an operator can
 * check by hand.
 */
import { isTaskOk } from '../client/tasks.js';
import type { PveClientLike } from '../client/client-like.js';
import { parseUpid, type UpidParts } from '../pve/upid.js';

export interface IntentToRecover {
  seq: number;
  /** ISO time at which the intent was written (the request left at most a few moments later). */
  ts: string;
  writer: string;
  cluster: string;
  method: 'POST' | 'PUT' | 'DELETE';
  /** The concrete API path below /api2/json, segments percent-encoded as sent. */
  path: string;
  /** The operation's path template, when known. */
  template?: string;
  params: Record<string, unknown>;
  node?: string;
  /** The API user or token (`user@realm!token`) the write went out with, when known. */
  user?: string;
  /** Whether the operation answers with a task ID (from its schema), when known; else derived from the path. */
  returnsTask?: boolean;
}

export type RecoveryOutcome = 'made' | 'not-made' | 'unknown';

export interface RecoveryVerdict {
  outcome: RecoveryOutcome;
  upid?: string;
  /** One sentence an operator can check on PVE. */
  evidence: string;
}

export interface RecoverOptions {
  now?: () => Date;
  /** How long after its intent a request may have started its task (default 10 min). */
  windowMs?: number;
  /** Clock difference allowed between this host and PVE, before the intent's time (default 60 s). */
  skewMs?: number;
  signal?: AbortSignal;
  /** Tasks the audit already attributes to other calls: never taken as this intent's task. */
  knownUpids?: ReadonlySet<string>;
}

export const DEFAULT_RECOVERY_WINDOW_MS = 10 * 60_000;
export const DEFAULT_RECOVERY_SKEW_MS = 60_000;
const TASK_LIST_LIMIT = 1000;

type GuestType = 'qemu' | 'lxc';

interface Guest {
  type: GuestType;
  vmid: number;
}

type StateCheck =
  | { kind: 'gone'; path: string; what: string }
  | { kind: 'config'; path: string; what: string; set: Record<string, string>; remove: string[] }
  | { kind: 'snapshot'; path: string; what: string; name: string };

/** What the intent names, derived from its path and parameters alone. */
interface Target {
  node?: string;
  guest?: Guest;
  /** Task types consistent with the operation; undefined when the path does not tell. */
  taskTypes?: string[];
  returnsTask: boolean;
  state?: StateCheck;
}

interface Window {
  since: number;
  until: number;
}

interface TaskSeen extends UpidParts {
  upid: string;
  /** `RUNNING`, `OK`, `WARNINGS: n`, the error text; absent for a running task in the cluster list. */
  status?: string;
}

type TaskSearch = { read: true; where: string; found: TaskSeen[] } | { read: false; why: string };
type StateAnswer = { kind: 'made' | 'not-made' | 'unreadable'; text: string };

export async function recoverIntent(intent: IntentToRecover, client: PveClientLike, opts: RecoverOptions = {}): Promise<RecoveryVerdict> {
  const target = describeTarget(intent);
  const window = windowOf(intent, opts);
  const search = target.returnsTask ? await searchTasks(client, intent, target, window, opts) : undefined;
  const state = target.state ? await checkState(client, target.state, opts.signal) : undefined;
  return judge(intent, target, window, search, state);
}

function windowOf(intent: IntentToRecover, opts: RecoverOptions): Window {
  const at = Date.parse(intent.ts);
  const now = (opts.now ?? (() => new Date()))().getTime();
  const since = at - (opts.skewMs ?? DEFAULT_RECOVERY_SKEW_MS);
  const until = Math.max(since, Math.min(now, at + (opts.windowMs ?? DEFAULT_RECOVERY_WINDOW_MS)));
  return { since: Math.floor(since / 1000), until: Math.ceil(until / 1000) };
}

function segmentsOf(path: string): string[] {
  const bare = path.split('?')[0] ?? '';
  return bare
    .replace(/^\/api2\/json(?=\/)/, '')
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

const CONFIG_CONTROL_KEYS = new Set(['node', 'vmid', 'digest', 'delete', 'revert', 'skiplock', 'background_delay', 'force']);

function describeTarget(intent: IntentToRecover): Target {
  const seg = segmentsOf(intent.path);
  const node = intent.node ?? (seg[0] === 'nodes' ? seg[1] : undefined);
  const kind = seg[2];
  const guestType: GuestType | undefined = seg[0] === 'nodes' && (kind === 'qemu' || kind === 'lxc') ? kind : undefined;
  const pathVmid = guestType && seg[3] !== undefined && /^\d+$/.test(seg[3]) ? Number(seg[3]) : undefined;
  const paramVmid = typeof intent.params.vmid === 'number' || (typeof intent.params.vmid === 'string' && /^\d+$/.test(intent.params.vmid)) ? Number(intent.params.vmid) : undefined;
  let guest: Guest | undefined;
  let taskTypes: string[] | undefined;
  let state: StateCheck | undefined;
  if (guestType && pathVmid !== undefined) {
    guest = { type: guestType, vmid: pathVmid };
    taskTypes = guestTaskTypes(intent.method, guestType, seg.slice(4));
    state = guestState(intent, guest, seg.slice(4));
  } else if (guestType && seg.length === 3 && intent.method === 'POST') {
    // Creating (or restoring) a guest: the new guest's ID is a parameter.
    if (paramVmid !== undefined) guest = { type: guestType, vmid: paramVmid };
    const p = guestType === 'qemu' ? 'qm' : 'vz';
    taskTypes = [`${p}create`, `${p}restore`];
  } else if (seg[0] === 'nodes' && seg[2] === 'vzdump' && seg.length === 3 && intent.method === 'POST') {
    taskTypes = ['vzdump'];
  }
  if (!state && intent.method === 'DELETE') state = { kind: 'gone', path: intent.path, what: `${intent.path}` };
  const returnsTask = intent.returnsTask ?? taskTypes !== undefined;
  return { ...(node ? { node } : {}), ...(guest ? { guest } : {}), ...(taskTypes ? { taskTypes } : {}), returnsTask, ...(state ? { state } : {}) };
}

/** Task types PVE's qemu-server and pve-container give the operation below `/nodes/{node}/{type}/{vmid}`. */
function guestTaskTypes(method: string, type: GuestType, rest: string[]): string[] | undefined {
  const p = type === 'qemu' ? 'qm' : 'vz';
  const [a, b, c] = rest;
  if (rest.length === 0) return method === 'DELETE' ? [`${p}destroy`] : undefined;
  if (method === 'DELETE') return a === 'snapshot' && rest.length === 2 ? [`${p}delsnapshot`] : undefined;
  if (method === 'POST' && a === 'snapshot') {
    if (rest.length === 1) return [`${p}snapshot`];
    if (rest.length === 3 && c === 'rollback') return [`${p}rollback`];
    return undefined;
  }
  if (method === 'POST' && a === 'status' && b !== undefined && rest.length === 2) {
    // A VM suspended without saving its RAM is a pause; an HA-managed guest starts and stops
    // through the HA manager (hastart/hastop on the guest).
    if (type === 'qemu' && b === 'suspend') return ['qmsuspend', 'qmpause'];
    if (b === 'start') return [`${p}start`, 'hastart'];
    if (b === 'stop' || b === 'shutdown') return [`${p}${b}`, 'hastop'];
    return [`${p}${b}`];
  }
  if (rest.length !== 1) return undefined;
  if (method === 'PUT') return a === 'resize' ? ['resize'] : undefined;
  if (method !== 'POST') return undefined;
  switch (a) {
    case 'clone':
    case 'template':
      return [`${p}${a}`];
    case 'migrate':
      return [type === 'qemu' ? 'qmigrate' : 'vzmigrate', 'hamigrate'];
    case 'config':
      return type === 'qemu' ? ['qmconfig'] : undefined;
    case 'move_disk':
      return ['qmmove'];
    case 'move_volume':
      return ['move_volume'];
    default:
      return undefined;
  }
}

function guestName(g: Guest): string {
  return `${g.type === 'qemu' ? 'VM' : 'CT'} ${g.vmid}`;
}

function guestState(intent: IntentToRecover, g: Guest, rest: string[]): StateCheck | undefined {
  const base = intent.path.split('?')[0]?.replace(/\/+$/, '') ?? intent.path;
  if (rest.length === 1 && rest[0] === 'config' && intent.method !== 'DELETE') {
    const set: Record<string, string> = {};
    for (const [k, v] of Object.entries(intent.params)) {
      if (!CONFIG_CONTROL_KEYS.has(k) && v !== undefined && v !== null) set[k] = wireValue(v);
    }
    const remove = listOf(intent.params.delete);
    if (Object.keys(set).length === 0 && remove.length === 0) return undefined;
    return { kind: 'config', path: base, what: `the config of ${guestName(g)}`, set, remove };
  }
  if (rest.length === 1 && rest[0] === 'snapshot' && intent.method === 'POST' && typeof intent.params.snapname === 'string') {
    return { kind: 'snapshot', path: base, what: `snapshot '${intent.params.snapname}' of ${guestName(g)}`, name: intent.params.snapname };
  }
  if (intent.method === 'DELETE') {
    const what = rest.length === 0 ? guestName(g) : rest[0] === 'snapshot' && rest.length === 2 ? `snapshot '${rest[1]}' of ${guestName(g)}` : base;
    return { kind: 'gone', path: base, what };
  }
  return undefined;
}

/** A parameter as PVE stores it in a config: booleans as 1/0, numbers as their decimal text. */
function wireValue(v: unknown): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

function listOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String).filter((s) => s !== '');
  if (typeof v === 'string') return v.split(/[\s,;]+/).filter((s) => s !== '');
  return [];
}

// ── Task list ────────────────────────────────────────────────────────────────────────────────────

async function searchTasks(client: PveClientLike, intent: IntentToRecover, target: Target, w: Window, opts: RecoverOptions): Promise<TaskSearch> {
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

function taskEnd(t: TaskSeen): TaskEnd {
  if (t.status === undefined || t.status === 'RUNNING') return 'running';
  return isTaskOk(t.status) ? 'ok' : 'failed';
}

function taskText(t: TaskSeen): string {
  const end = taskEnd(t);
  const how = end === 'running' ? 'is still running' : end === 'ok' ? `ended ${t.status}` : `ended with the error '${t.status}'`;
  return `task ${t.upid} started at ${iso(t.starttime)} and ${how}`;
}

function iso(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString();
}

// ── Object state ─────────────────────────────────────────────────────────────────────────────────

async function checkState(client: PveClientLike, check: StateCheck, signal: AbortSignal | undefined): Promise<StateAnswer> {
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

// ── Verdict ──────────────────────────────────────────────────────────────────────────────────────

function judge(intent: IntentToRecover, target: Target, w: Window, search: TaskSearch | undefined, state: StateAnswer | undefined): RecoveryVerdict {
  const what = `${intent.method} ${intent.path}`;
  const known = state && state.kind !== 'unreadable' ? (state as { kind: 'made' | 'not-made'; text: string }) : undefined;
  const stateNote = state ? `; ${state.text}` : '';

  if (search?.read && search.found.length === 1) {
    const t = search.found[0] as TaskSeen;
    const end = taskEnd(t);
    const told = `${taskText(t)} (found in ${search.where})${stateNote}`;
    if (end === 'failed') return { outcome: 'not-made', upid: t.upid, evidence: `${what} was received: ${told}.` };
    if (end === 'running')
      return known?.kind === 'made'
        ? { outcome: 'made', upid: t.upid, evidence: `${told}.` }
        : { outcome: 'unknown', upid: t.upid, evidence: `${what} was received but its ${told}: check the task when it ends.` };
    if (known?.kind === 'not-made') return { outcome: 'unknown', upid: t.upid, evidence: `${told}, which contradicts the task (changed since, or the task was another write's).` };
    return { outcome: 'made', upid: t.upid, evidence: `${told}.` };
  }

  if (search?.read && search.found.length > 1) {
    const list = `${search.found.length} tasks in ${search.where} could be its task (${search.found.map((t) => t.upid).join(', ')})`;
    if (known) return { outcome: known.kind, evidence: `${capital(known.text)}, and ${list}.` };
    return { outcome: 'unknown', evidence: `${capital(list)}, and nothing else on PVE tells which${stateNote}.` };
  }

  const none = search?.read ? `no ${taskWanted(intent, target)} in ${search.where} between ${iso(w.since)} and ${iso(w.until)}` : undefined;
  if (known) {
    const tail = none ? `, and there is ${none}` : search && !search.read ? ` (${search.why})` : '';
    return { outcome: known.kind, evidence: `${capital(known.text)}${tail}.` };
  }
  if (none) return { outcome: 'not-made', evidence: `There is ${none}, so ${what} never started its task${stateNote}.` };
  if (search && !search.read) return { outcome: 'unknown', evidence: `${capital(search.why)}${stateNote}: check ${what} by hand.` };
  if (state) return { outcome: 'unknown', evidence: `${capital(state.text)}: check ${what} by hand.` };
  return { outcome: 'unknown', evidence: `Nothing PVE reports shows whether ${what} was applied: check it by hand.` };
}

function taskWanted(intent: IntentToRecover, target: Target): string {
  const types = target.taskTypes ? target.taskTypes.join('/') : 'task';
  const on = target.guest ? ` on ${guestName(target.guest)}` : '';
  const by = intent.user ? ` by ${intent.user}` : '';
  return `${target.taskTypes ? `${types} task` : 'task'}${on}${by}`;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
