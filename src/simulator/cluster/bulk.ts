/**
 * Worker tasks that act on many guests by starting one task per guest (bulk actions, startall,
 * stopall, migrateall), the way PVE's workers do it: guests are handled in groups (startup
 * order), at most `maxWorkers` of their tasks run at once, and the parent polls their status
 * until every one has ended. The parent's own log says what was started, skipped or failed.
 */
import type { ClusterState } from './state.js';
import type { TaskRun } from './tasks.js';
import type { Guest } from './types.js';

/** What a bulk worker does; it polls its sub-tasks at the task duration (PVE: about once a second). */
export interface BulkPlan {
  node: string;
  /** Task type (`bulk-start`, `startall`, …). */
  type: string;
  user: string;
  /** Guests in the order they are handled; each inner list is waited for before the next starts. */
  groups: Guest[][];
  maxWorkers: number;
  /** Lines logged when the worker begins. */
  intro?(run: TaskRun): void;
  /**
   * Starts the guest's task and returns its UPID; `undefined` when no task is needed (skipped).
   * A thrown error is handed to `startFailed`.
   */
  start(g: Guest, run: TaskRun): string | undefined;
  /** A start that threw (PVE logs it and, in bulk actions, counts the guest as failed). */
  startFailed(g: Guest, error: unknown, run: TaskRun): boolean;
  /** A sub-task ended; `ok` is false for an error exit status. Returns whether it counts as failed. */
  ended(g: Guest, ok: boolean, exitstatus: string, run: TaskRun): boolean;
  /** Runs when every guest is done, with the VMIDs that failed; throw `TaskFailure` to fail the task. */
  done(failed: number[], started: number, run: TaskRun): void;
}

/** An exit status that is an error (anything but `OK` and `WARNINGS: n`), as PVE judges it. */
export function statusIsError(exitstatus: string | undefined): boolean {
  return exitstatus === undefined || !(exitstatus === 'OK' || /^WARNINGS: \d+$/.test(exitstatus));
}

export function startBulkTask(state: ClusterState, plan: BulkPlan): string {
  const groups = plan.groups.map((g) => [...g]).filter((g) => g.length > 0);
  const workers = new Map<string, Guest>();
  const failed: number[] = [];
  let started = 0;

  const reap = (run: TaskRun): void => {
    for (const [upid, g] of workers) {
      const t = state.tasks.get(upid);
      if (t && t.state !== 'stopped') continue;
      workers.delete(upid);
      const exitstatus = t?.exitstatus ?? 'could not query task status';
      if (plan.ended(g, !statusIsError(t?.exitstatus), exitstatus, run)) failed.push(g.vmid);
    }
  };

  /** Starts as many tasks as the worker limit allows; true when everything is done. */
  const pump = (run: TaskRun): boolean => {
    reap(run);
    while (groups.length > 0) {
      const current = groups[0] as Guest[];
      while (current.length > 0 && workers.size < plan.maxWorkers) {
        const g = current.shift() as Guest;
        let upid: string | undefined;
        try {
          upid = plan.start(g, run);
        } catch (err) {
          if (plan.startFailed(g, err, run)) failed.push(g.vmid);
          continue;
        }
        if (upid === undefined) continue;
        started++;
        workers.set(upid, g);
        // A task that is already over (a check failed at once) frees its slot right away.
        reap(run);
      }
      if (current.length > 0 || workers.size > 0) return false;
      groups.shift();
    }
    return workers.size === 0;
  };

  return state.tasks.start({
    node: plan.node,
    type: plan.type,
    id: '',
    user: plan.user,
    begin: (run) => {
      plan.intro?.(run);
      pump(run);
    },
    until: (run) => pump(run),
    finish: (run) => plan.done(failed, started, run),
  });
}

/** `order=N,up=N,down=N` of a guest's `startup` option (order defaults to last). */
export function startupOf(g: Guest): { order: number; up?: number; down?: number } {
  const out: { order: number; up?: number; down?: number } = { order: Number.MAX_SAFE_INTEGER };
  for (const part of String(g.config.startup ?? '').split(',')) {
    const [k, v] = part.split('=');
    if (v === undefined || !/^\d+$/.test(v)) continue;
    if (k === 'order') out.order = Number(v);
    else if (k === 'up') out.up = Number(v);
    else if (k === 'down') out.down = Number(v);
  }
  return out;
}

/** Guests grouped by startup order: ascending for starts, descending for stops; VMIDs sorted inside each group. */
export function byStartupOrder(guests: Guest[], orderDir: 1 | -1, vmidDir: 1 | -1): Guest[][] {
  const groups = new Map<number, Guest[]>();
  for (const g of guests) {
    const order = startupOf(g).order;
    let list = groups.get(order);
    if (!list) groups.set(order, (list = []));
    list.push(g);
  }
  return [...groups.entries()].sort((a, b) => (a[0] - b[0]) * orderDir).map(([, list]) => list.sort((a, b) => (a.vmid - b.vmid) * vmidDir));
}
