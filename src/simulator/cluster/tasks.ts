/**
 * Worker tasks: the asynchronous half of PVE. A request that starts a task gets its UPID at once;
 * the work "begins" (preconditions checked, locks taken) and "ends" (effects applied, final log
 * line written) at clock times fixed when the task is created. Nothing runs on timers: every read
 * of the cluster first settles all events that are due, so a fake clock fully controls progress
 * and a duration of 0 still completes only after the starting request has returned.
 */
import { encodeUpid as formatUpid, type UpidFields as UpidParts } from './upid.js';

/** Makes matching tasks slow or failing (`{ type: 'qmstart', vmid: 101, fail: 'boom' }`). */
export interface TaskFault {
  /** Task type, e.g. `qmstart`, `vzdump`. */
  type: string;
  /** Only tasks working on this guest. */
  vmid?: number;
  /** Only tasks on this node. */
  node?: string;
  /** End the task with this error instead of doing the work. */
  fail?: string;
  /** Task duration in ms (overrides the cluster default). */
  durationMs?: number;
  /** Apply to this many matching tasks, then stop matching (default: unlimited). */
  times?: number;
}

/** Thrown from a task's `begin`/`finish` hook: the task ends with this message as its error. */
export class TaskFailure extends Error {
  override name = 'TaskFailure';
}

export interface TaskRun {
  log(line: string): void;
  /** A warning line; the task then ends with `WARNINGS: n` instead of `OK`. */
  warn(line: string): void;
}

export interface TaskSpec {
  node: string;
  type: string;
  /** The object worked on (VMID as string, storage, …); may be empty. */
  id: string;
  /** `user@realm` or `user@realm!token` of the caller. */
  user: string;
  /**
   * Tasks with the same key run one after another (PVE serializes work on one guest through its
   * config file lock); a new task waits for the running ones with that key.
   */
  serialKey?: string;
  /** Runs when the task begins: check preconditions (throw `TaskFailure`), take locks, log. */
  begin?(run: TaskRun): void;
  /** Runs when the task ends successfully: apply the effect. */
  finish?(run: TaskRun): void;
  /** Runs at the end whatever the outcome, after `finish` (release locks). */
  cleanup?(): void;
  /** Duration multiplier for work that is slower than a power operation (clone, backup…). */
  weight?: number;
  /**
   * For a task that waits on other work (a bulk action waiting for the tasks it started): the
   * task does not end after its duration but at the first poll where this returns true. Polls
   * come every `pollMs` (default: the task duration) from the time the task begins, as PVE's
   * workers poll the status of the tasks they started.
   */
  until?(run: TaskRun): boolean;
  pollMs?: number;
}

export interface TaskRecord extends UpidParts {
  upid: string;
  state: 'queued' | 'running' | 'stopped';
  exitstatus?: string;
  /** Epoch seconds; set when stopped. */
  endtime?: number;
  log: string[];
  beginAt: number;
  endAt: number;
  seq: number;
  warnings: number;
  failure?: string;
  spec?: TaskSpec;
}

/** A finished task written straight into the history (seeded clusters have a past). */
export interface HistoricTask extends UpidParts {
  /** Epoch seconds. */
  endtime: number;
  exitstatus: string;
  log: string[];
}

export interface TaskEngineOptions {
  clock: () => number;
  durationMs: number;
  faults: TaskFault[];
  /** Allocates the worker PID and the node's process start time (in clock ticks since boot). */
  process(node: string): { pid: number; pstart: number };
}

/** Finished tasks kept per node before the oldest are dropped (PVE rotates its index too). */
const HISTORY_PER_NODE = 20_000;

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

export class TaskEngine {
  private readonly byUpid = new Map<string, TaskRecord>();
  private readonly byNode = new Map<string, TaskRecord[]>();
  private readonly active = new Set<TaskRecord>();
  private readonly timers: Timer[] = [];
  private seq = 0;
  private settling = false;
  /** While settling, the time of the event being applied: what work started from a hook sees as now. */
  private eventTime: number | undefined;

  constructor(private readonly opts: TaskEngineOptions) {}

  /** How long a task runs unless a fault or weight says otherwise. */
  get defaultDurationMs(): number {
    return this.opts.durationMs;
  }

  /** The current time as work sees it: the clock, or during settling the time of the event being applied. */
  now(): number {
    return this.eventTime ?? this.opts.clock();
  }

  /** Runs `fn` at clock time `at` (ms), in time order with task begins and ends (the HA manager's reactions). */
  schedule(at: number, fn: () => void): void {
    this.timers.push({ at, seq: this.seq++, fn });
  }

  /** Creates a task and returns its UPID; the task begins now or after the tasks it waits for. */
  start(spec: TaskSpec): string {
    this.settle();
    const now = this.now();
    const fault = this.takeFault(spec);
    const duration = Math.max(0, fault?.durationMs ?? this.opts.durationMs * (spec.weight ?? 1));
    let beginAt = now;
    if (spec.serialKey) {
      for (const t of this.active) {
        if (t.spec?.serialKey === spec.serialKey) beginAt = Math.max(beginAt, t.endAt);
      }
    }
    const { pid, pstart } = this.opts.process(spec.node);
    const starttime = Math.floor(now / 1000);
    const upid = formatUpid({ node: spec.node, pid, pstart, starttime, type: spec.type, id: spec.id, user: spec.user });
    const record: TaskRecord = {
      upid,
      node: spec.node,
      pid,
      pstart,
      starttime,
      type: spec.type,
      id: spec.id,
      user: spec.user,
      state: 'queued',
      log: [],
      beginAt,
      endAt: beginAt + (spec.until ? Math.max(1, spec.pollMs ?? duration) : duration),
      seq: this.seq++,
      warnings: 0,
      ...(fault?.fail !== undefined ? { failure: fault.fail } : {}),
      spec,
    };
    this.add(record);
    this.active.add(record);
    // Begin right away when nothing is ahead, so locks are visible to the very next request.
    if (beginAt <= now) this.beginTask(record);
    return upid;
  }

  /** Records a task that finished in the past. */
  addHistory(h: HistoricTask): TaskRecord {
    const upid = formatUpid(h);
    const record: TaskRecord = {
      ...h,
      upid,
      state: 'stopped',
      beginAt: h.starttime * 1000,
      endAt: h.endtime * 1000,
      seq: this.seq++,
      warnings: 0,
    };
    this.add(record);
    return record;
  }

  /**
   * Applies every begin, end and timer that is due at the current clock time, one at a time in
   * time order, so work started by a hook (a bulk action's sub-tasks) is replayed too.
   */
  settle(): void {
    if (this.settling || (this.active.size === 0 && this.timers.length === 0)) return;
    this.settling = true;
    try {
      const now = this.opts.clock();
      for (;;) {
        const e = this.nextEvent(now);
        if (!e) break;
        this.eventTime = e.at;
        if (e.kind === 0) this.beginTask(e.task as TaskRecord);
        else if (e.kind === 1) this.endOrPoll(e.task as TaskRecord, e.at);
        else {
          this.timers.splice(this.timers.indexOf(e.timer as Timer), 1);
          e.timer?.fn();
        }
      }
    } finally {
      this.eventTime = undefined;
      this.settling = false;
    }
  }

  private nextEvent(now: number): { at: number; seq: number; kind: 0 | 1 | 2; task?: TaskRecord; timer?: Timer } | undefined {
    let best: { at: number; seq: number; kind: 0 | 1 | 2; task?: TaskRecord; timer?: Timer } | undefined;
    const better = (at: number, seq: number, kind: 0 | 1 | 2): boolean => !best || at < best.at || (at === best.at && (seq < best.seq || (seq === best.seq && kind < best.kind)));
    for (const t of this.active) {
      if (t.state === 'queued' && t.beginAt <= now) {
        if (better(t.beginAt, t.seq, 0)) best = { at: t.beginAt, seq: t.seq, kind: 0, task: t };
      } else if (t.endAt <= now && better(t.endAt, t.seq, 1)) best = { at: t.endAt, seq: t.seq, kind: 1, task: t };
    }
    for (const timer of this.timers) if (timer.at <= now && better(timer.at, timer.seq, 2)) best = { at: timer.at, seq: timer.seq, kind: 2, timer };
    return best;
  }

  /** A waiting task that is not done yet polls again later instead of ending. */
  private endOrPoll(t: TaskRecord, at: number): void {
    const until = t.spec?.until;
    if (until && t.state === 'running' && t.failure === undefined) {
      let done: boolean;
      try {
        done = until(this.runFor(t));
      } catch (err) {
        t.failure = failureText(err);
        done = true;
      }
      if (!done) {
        t.endAt = at + Math.max(1, t.spec?.pollMs ?? this.opts.durationMs);
        return;
      }
    }
    this.endTask(t, at);
  }

  get(upid: string): TaskRecord | undefined {
    this.settle();
    return this.byUpid.get(upid);
  }

  /** Tasks of one node, newest first. */
  listNode(node: string): TaskRecord[] {
    this.settle();
    return [...(this.byNode.get(node) ?? [])].sort(newestFirst);
  }

  /** All tasks, newest first. */
  listAll(): TaskRecord[] {
    this.settle();
    return [...this.byUpid.values()].sort(newestFirst);
  }

  /** Stops a queued or running task as a kill signal would; finished tasks are left alone. */
  abort(upid: string): void {
    this.settle();
    const t = this.byUpid.get(upid);
    if (!t || t.state === 'stopped') return;
    t.failure = 'interrupted by signal';
    if (t.state === 'running') t.log.push('received interrupt');
    this.endTask(t, this.now(), true);
  }

  private add(record: TaskRecord): void {
    this.byUpid.set(record.upid, record);
    let list = this.byNode.get(record.node);
    if (!list) this.byNode.set(record.node, (list = []));
    list.push(record);
    if (list.length > HISTORY_PER_NODE) {
      const idx = list.findIndex((t) => t.state === 'stopped');
      if (idx >= 0) {
        const [dropped] = list.splice(idx, 1);
        if (dropped) this.byUpid.delete(dropped.upid);
      }
    }
  }

  private beginTask(t: TaskRecord): void {
    if (t.state !== 'queued') return;
    t.state = 'running';
    if (t.failure !== undefined) return;
    try {
      t.spec?.begin?.(this.runFor(t));
    } catch (err) {
      t.failure = failureText(err);
    }
  }

  private endTask(t: TaskRecord, at: number, aborted = false): void {
    if (t.state === 'stopped') return;
    if (t.state === 'queued' && !aborted) this.beginTask(t);
    if (t.failure === undefined && t.spec?.finish) {
      try {
        t.spec.finish(this.runFor(t));
      } catch (err) {
        t.failure = failureText(err);
      }
    }
    t.spec?.cleanup?.();
    t.state = 'stopped';
    t.endAt = at;
    t.endtime = Math.floor(at / 1000);
    if (t.failure !== undefined) {
      t.exitstatus = t.failure;
      t.log.push(`TASK ERROR: ${t.failure}`);
    } else if (t.warnings > 0) {
      t.exitstatus = `WARNINGS: ${t.warnings}`;
      t.log.push(`TASK WARNINGS: ${t.warnings}`);
    } else {
      t.exitstatus = 'OK';
      t.log.push('TASK OK');
    }
    delete t.spec;
    this.active.delete(t);
  }

  private runFor(t: TaskRecord): TaskRun {
    return {
      log: (line) => void t.log.push(line),
      warn: (line) => {
        t.warnings++;
        t.log.push(`WARN: ${line}`);
      },
    };
  }

  private takeFault(spec: TaskSpec): TaskFault | undefined {
    const faults = this.opts.faults;
    const i = faults.findIndex(
      (f) => f.type === spec.type && (f.vmid === undefined || String(f.vmid) === spec.id) && (f.node === undefined || f.node === spec.node) && (f.times === undefined || f.times > 0),
    );
    if (i < 0) return undefined;
    const fault = faults[i] as TaskFault;
    if (fault.times !== undefined) fault.times--;
    return fault;
  }
}

function newestFirst(a: TaskRecord, b: TaskRecord): number {
  return b.starttime - a.starttime || b.seq - a.seq;
}

function failureText(err: unknown): string {
  if (err instanceof TaskFailure) return err.message;
  // A bug in a hook must not take the simulator down; it shows up as the task's error instead.
  return err instanceof Error ? err.message : String(err);
}
