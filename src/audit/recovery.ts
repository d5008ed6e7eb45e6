/**
 * What became of a change whose writer died between its `intent` entry and its outcome: a starting
 * server asks PVE, where PVE can tell, and records the answer as a `recovered` entry.
 *
 * What the intent names is read from its path and parameters alone (recovery-target.ts); the two
 * kinds of evidence are read from PVE (recovery-evidence.ts); this module weighs them into one
 * verdict.
 *
 * PVE tasks do not name the snapshot or the config keys they worked on, so two tasks of one type on
 * one guest in one window cannot be told apart: the verdict says so (unknown, or the state's answer
 * without a UPID) rather than picking one. Every verdict carries one sentence that an operator can
 * check by hand.
 */
import type { PveClientLike } from '../client/client-like.js';
import { checkState, iso, searchTasks, type StateAnswer, type TaskSearch, type TaskSeen, taskEnd, taskText } from './recovery-evidence.js';
import { describeTarget, guestName, type Target } from './recovery-target.js';

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

export interface Window {
  since: number;
  until: number;
}

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
