/**
 * The whole-call deadline: one clock from the moment the tool call arrived, across the compile,
 * the preflight, the wait for a sandbox worker and every execution phase. An MCP client gives up
 * on a request after its own timeout (the SDK's default is 60 s, not reset by progress unless the
 * client opts in), so an answer that comes later reaches nobody; the run's wall limit alone
 * cannot promise that, because it starts only when the isolate runs. The clock aborts the run's
 * signal when the deadline passes, so every phase stops through the one cancel path, and it
 * remembers where the time went for the answer. The time a human takes to answer an approval
 * question does not count: the clock stops while the question is open.
 */

/** When the call arrived (`performance.now()`) and how long it may take in all. */
export interface CallDeadline {
  startedAt: number;
  limitMs: number;
}

export type ClockPhase = 'compile' | 'preflight' | 'queue' | 'run';

export interface DeadlineReport {
  limitMs: number;
  /** Where the deadline passed. */
  phase: ClockPhase;
  /**
   * Where the call's time went. `other`: before the pipeline, the audit and the approval store;
   * `approval`: a human deciding (not counted against the deadline).
   */
  spentMs: Record<ClockPhase | 'other', number> & { approval?: number };
  message: string;
}

/** What an outcome says of its wait for a sandbox worker (the sandbox's `RunStats.queueMs`). */
interface QueueStats {
  stats?: { queueMs?: number };
}

export class CallClock {
  /** Aborted by the caller's signal or by the deadline. */
  readonly signal: AbortSignal;
  private readonly expiry = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly spent: Record<ClockPhase, number> = { compile: 0, preflight: 0, queue: 0, run: 0 };
  private approvalMs = 0;
  private pausedAt: number | undefined;
  private current: ClockPhase | 'execute' | undefined;
  private hit: ClockPhase | 'execute' | undefined;

  constructor(
    private readonly deadline: CallDeadline | undefined,
    outer?: AbortSignal,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.signal = outer ? AbortSignal.any([outer, this.expiry.signal]) : this.expiry.signal;
    this.arm();
  }

  /** True once the deadline passed (not when the caller cancelled first). */
  get expired(): boolean {
    return this.expiry.signal.aborted;
  }

  /** Times `fn` as `phase`; the compile cannot be interrupted, so its answer is given up on at the deadline. */
  async time<T>(phase: 'compile' | 'preflight', fn: () => Promise<T>): Promise<T | undefined> {
    const started = this.now();
    this.current = phase;
    try {
      if (phase === 'preflight') return await fn();
      return await Promise.race([fn(), this.expiredPromise()]);
    } finally {
      this.spent[phase] += this.now() - started;
      this.current = undefined;
    }
  }

  /**
   * Times one execution (the wait for a worker, then the run). The outcome says how long it
   * waited; one that never got a worker spent all of it waiting.
   */
  async execute<O extends QueueStats>(fn: () => Promise<O>): Promise<O> {
    const started = this.now();
    this.current = 'execute';
    const outcome = await fn();
    const total = this.now() - started;
    const queued = Math.min(total, outcome.stats?.queueMs ?? total);
    const ran = outcome.stats?.queueMs === undefined ? 0 : total - queued;
    this.spent.queue += queued;
    this.spent.run += ran;
    if (this.hit === 'execute') this.hit = ran > 0 ? 'run' : 'queue';
    this.current = undefined;
    return outcome;
  }

  /** A human is deciding: the deadline waits. */
  pause(): void {
    if (this.pausedAt !== undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pausedAt = this.now();
  }

  resume(): void {
    if (this.pausedAt === undefined) return;
    this.approvalMs += this.now() - this.pausedAt;
    this.pausedAt = undefined;
    this.arm();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** What the answer says when the deadline passed; undefined when it did not. */
  report(): DeadlineReport | undefined {
    if (!this.deadline || !this.expired) return undefined;
    const elapsed = this.now() - this.deadline.startedAt;
    const counted = this.spent.compile + this.spent.preflight + this.spent.queue + this.spent.run;
    const spentMs = {
      ...roundAll(this.spent),
      other: Math.max(0, Math.round(elapsed - counted - this.approvalMs)),
      ...(this.approvalMs > 0 ? { approval: Math.round(this.approvalMs) } : {}),
    };
    const phase: ClockPhase = this.hit === undefined || this.hit === 'execute' ? 'run' : this.hit;
    return { limitMs: this.deadline.limitMs, phase, spentMs, message: deadlineMessage(this.deadline.limitMs, phase, spentMs) };
  }

  /**
   * Whether the deadline has passed by the clock, not by the timer: on a loaded machine the timer
   * fires late, and a run that waited for a sandbox worker can be granted one after its deadline.
   * Asked right before a run starts (src/sandbox/engine.ts, `ExecuteOptions.pastDeadline`); a
   * deadline found passed expires the clock now, in the phase in progress, as the timer would have.
   */
  lapsed(): boolean {
    if (this.expired) return true;
    if (this.pausedAt !== undefined || this.remaining() > 0) return false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.fire();
    return true;
  }

  private remaining(): number {
    if (!this.deadline) return Number.POSITIVE_INFINITY;
    return this.deadline.limitMs - (this.now() - this.deadline.startedAt - this.approvalMs);
  }

  private arm(): void {
    if (!this.deadline || this.expired) return;
    const remaining = this.remaining();
    if (remaining <= 0) return this.fire();
    this.timer = setTimeout(() => this.fire(), remaining);
    this.timer.unref();
  }

  private fire(): void {
    this.hit = this.current ?? 'run';
    this.expiry.abort(new Error('the call deadline passed'));
  }

  private expiredPromise(): Promise<undefined> {
    return new Promise((resolve) => {
      if (this.expired) return resolve(undefined);
      this.expiry.signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
  }
}

const PHASE_WORDS: Record<ClockPhase, string> = {
  compile: 'while the script was compiled and type-checked',
  preflight: 'during the preflight (reading permissions and guests)',
  queue: 'while the run waited for a free sandbox worker',
  run: 'while the script ran',
};

function deadlineMessage(limitMs: number, phase: ClockPhase, spent: DeadlineReport['spentMs']): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const parts = [`queue ${s(spent.queue)}`, `compile ${s(spent.compile)}`, `preflight ${s(spent.preflight)}`, `run ${s(spent.run)}`];
  if (spent.other >= 100) parts.push(`other ${s(spent.other)}`);
  if (spent.approval !== undefined) parts.push(`human approval ${s(spent.approval)} (not counted)`);
  const after = phase === 'run' ? 'the run was stopped; the logs and the calls it made until then are in this answer' : 'the script did not run, nothing was sent';
  return (
    `the call's ${s(limitMs)} deadline passed ${PHASE_WORDS[phase]} (time spent: ${parts.join(', ')}); ${after}. ` +
    (phase === 'queue'
      ? 'The sandbox was busy with other runs: try again shortly'
      : 'Do less per call (fewer calls, narrower reads, no long waits), or ask the operator for a longer sandbox.callDeadlineMs')
  );
}

function roundAll(spent: Record<ClockPhase, number>): Record<ClockPhase, number> {
  return { compile: Math.round(spent.compile), preflight: Math.round(spent.preflight), queue: Math.round(spent.queue), run: Math.round(spent.run) };
}
