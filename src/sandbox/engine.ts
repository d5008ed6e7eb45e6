/**
 * `SandboxEngine` runs agent TypeScript in isolated-vm inside disposable sandbox workers (child
 * processes, supervised by src/process/supervisor.ts).
 *
 * This module lives in the server process and never loads isolated-vm, nor TypeScript: a hostile
 * script can abort or wedge the process that runs it, or stall the thread that parses it, and the
 * server holds the Proxmox credentials and serves every other client. Each run is compiled
 * (shape limits, transpile, SDK calls, secret literals) by the type-check process together with
 * its type check, or — when the check is off or failed — by a sandbox worker (a run without the
 * check by the type-check process instead while it is ready with no check queued, see
 * `compileUnchecked`); executed in a sandbox worker (one run or compile per worker at a time),
 * and every bridge call comes back here to the `BridgeHandler`. Workers are replaced — always
 * with SIGKILL — after a crash, a stuck isolate, high memory, or a number of runs.
 *
 * The pool is sized for a desktop as much as for a team server. Workers start on demand, up to
 * `workers`; `warmWorkers` of them are kept (and started by `warm()`); one idle for `idleMs`
 * leaves, and a kept one that loaded TypeScript (a compile costs it 35–65 MB) is swapped for a
 * fresh one — sooner, as soon as it is free, once a type-check process that was not serving when
 * it loaded TypeScript can compile for it (`shedsTypeScript`). Who waits for a worker is served
 * fairly: each principal has its own queue, the queues take turns (round-robin), and no principal
 * holds more than `perPrincipal` workers at once, so one principal flooding the sandbox or hanging
 * in it leaves the other workers to everyone else.
 */
import { ChildSlot } from '../process/child-slot.js';
import type { BridgeHandler } from '../bridge/protocol.js';
import type { ReadyCompiler, TypeChecker } from '../script/checker.js';
import type { ScriptCompile } from '../script/compiled.js';
import type { ArgValues } from '../script/args.js';
import { withArgs } from '../script/names.js';
import { compileScript, engineFailure, type CompiledScript, type CompileResult } from './compile-paths.js';
import { compileFrameLimits, workerFrameLimits, type WorkerLimits, type WorkerToHost } from './worker-protocol.js';
import { DEFAULT_LIMITS, InvalidLimitsError, resolveLimits, type SandboxLimits } from './limits.js';
import { locateWorker } from './locate.js';
import { notExecuted, type RunOutcome } from './outcome.js';
import { WorkerRun } from './worker-run.js';
import { startWorker, workerLaunch, type SandboxWorker, type WorkerLaunch } from './worker-launch.js';

/** Who a run belongs to when nobody says: the one local user of a stdio server. */
export const LOCAL_PRINCIPAL = 'local';

export interface SandboxEngineOptions {
  /** Runs executing at once, one sandbox worker each: the most workers alive (default 2). */
  workers?: number;
  /** Workers kept alive while the sandbox is idle, and started by `warm()` (default 1; 0: none). */
  warmWorkers?: number;
  /**
   * A worker unused this long leaves, down to `warmWorkers`; a kept one that loaded TypeScript is
   * replaced by a fresh one (default 60,000 ms; Infinity: never).
   */
  idleMs?: number;
  /** Workers one principal may hold at once, compiles included (default: all but one of `workers`, at least 1). */
  perPrincipal?: number;
  /** Runs one principal may have waiting for a worker; past it its run fails at once with kind 'budget' (default 64). */
  maxQueue?: number;
  /** Replace a worker after this many runs (default 200). */
  recycleAfterRuns?: number;
  /** Worker RSS at which the running script is killed for memory (default 1024 MB). */
  workerRssLimitMb?: number;
  /** Default limits for every run; a run may override them. */
  limits?: Partial<SandboxLimits>;
  /** The type-checker for the current SDK declarations; no check when absent or when it returns undefined. */
  checker?: () => TypeChecker | undefined;
  /** Compiles runs that skip the check while it is ready (the type-check service), so workers need not load TypeScript. */
  compiler?: ReadyCompiler;
  /** Time budget of each type-check (default: the checker's own, 1,000 ms). */
  typecheckBudgetMs?: number;
  /**
   * Time a sandbox worker may take to compile a script (default 10 s; a 100 KB script takes about
   * 0.5 s, TypeScript's first load included). Past it the worker is killed and the script is
   * refused: shapes the limits of src/script/shape.ts do not catch can still make the compiler slow.
   */
  compileTimeoutMs?: number;
  /** The compiled worker entry (default: found next to this module or under dist/). */
  workerPath?: string;
  /**
   * Confine each worker with Node's permission model (default true): it may read only its own
   * code and may not write files or start processes or threads. See worker-launch.ts.
   */
  confineWorker?: boolean;
}

export interface CompileRequest {
  /** The TypeScript program: the body of an async function. */
  code: string;
  limits?: Partial<SandboxLimits>;
  /** Type-check before running (default true when a checker is configured). */
  typecheck?: boolean;
  /**
   * The checker for this run's SDK (each cluster has its own schema); overrides the engine's
   * default checker.
   */
  checker?: TypeChecker;
  /** Aborting stops a compile waiting for a worker, or running in one (the worker is killed). */
  signal?: AbortSignal;
  /** Whose run it is, for the fair share of workers (default `LOCAL_PRINCIPAL`). */
  principal?: string;
}

export interface ExecuteOptions {
  /** The argument values the script reads as `args` (checked by the pipeline against its declarations). */
  args?: ArgValues;
  /** Each console line as it is produced (also returned in `logs`). */
  onLog?: (line: string) => void;
  /** Aborting kills the run and frees its worker; the outcome is 'cancelled'. */
  signal?: AbortSignal;
  /** Whose run it is, for the fair share of workers (default `LOCAL_PRINCIPAL`). */
  principal?: string;
  /**
   * Asked once the run has its worker, right before the script is sent: true when the call's
   * deadline passed while it waited (src/run/executor.ts). The run then fails as `deadline`,
   * not started, nothing sent, and the worker goes to the next run.
   */
  pastDeadline?: () => boolean;
}

export type RunRequest = CompileRequest & ExecuteOptions;

export type { CompiledScript, CompileResult };

export interface EngineStats {
  workersStarted: number;
  workersRecycled: number;
  runs: number;
  queued: number;
  running: number;
  /** Sandbox workers (runs at once): the most alive at once. */
  workers: number;
  /** Workers kept while idle. */
  warmWorkers: number;
  /** Workers alive now. */
  workersAlive: number;
  /** Workers that left after `idleMs` unused. */
  workersIdled: number;
  /** Scripts compiled in a sandbox worker (each worker loads TypeScript on its first). */
  workerCompiles: number;
  /** Workers that had loaded TypeScript, swapped for fresh ones once a type-check process could compile for them. */
  compilersShed: number;
  /** Workers run under Node's permission model. */
  workerConfined: boolean;
  /** The isolated-vm the workers loaded (`isolated-vm 5.0.4`); undefined while none is ready. */
  workerRuntime: string | undefined;
}

/** What loading TypeScript may add to a worker's first compile (it takes 0.2–0.5 s). */
const COMPILER_LOAD_ALLOWANCE_MS = 5_000;

interface Slot {
  workers: ChildSlot<SandboxWorker>;
  session: WorkerRun | undefined;
  /** A compile in flight in this slot's worker: what its answer, or the worker's end, settles. */
  compiling: { jobId: number; settle(answer: WorkerToHost | { type: 'exit'; message: string }): void } | undefined;
  jobId: number | undefined;
  /** Who holds the slot while `jobId` is set. */
  principal: string | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

interface Waiter {
  principal: string;
  /** A slot to run in, or undefined when the engine closed meanwhile. */
  grant(slot: Slot | undefined): void;
}

const DEFAULT_IDLE_MS = 60_000;

export class SandboxEngine {
  private readonly slots: Slot[];
  /** Waiting runs by principal. */
  private readonly queues = new Map<string, Waiter[]>();
  /** Slots held by each principal. */
  private readonly holding = new Map<string, number>();
  /** When each principal with work in the engine last got a slot: the next slot goes to the one served longest ago. */
  private readonly lastServed = new Map<string, number>();
  private serveClock = 0;
  private readonly warmCount: number;
  private readonly perPrincipal: number;
  private readonly idleMs: number;
  private readonly baseLimits: SandboxLimits;
  private readonly launch: WorkerLaunch;
  private nextJobId = 1;
  private closed = false;
  /**
   * Workers that have loaded TypeScript (compiled once), each with the type-check process that was
   * serving then (its pid; undefined: none).
   */
  private readonly compilers = new WeakMap<SandboxWorker, number | undefined>();
  private readonly counters = { runs: 0, workersIdled: 0, workerCompiles: 0, compilersShed: 0 };

  constructor(private readonly options: SandboxEngineOptions = {}) {
    this.baseLimits = resolveLimits(DEFAULT_LIMITS, options.limits);
    this.launch = workerLaunch(options.workerPath ?? locateWorker(), options.confineWorker ?? true);
    const count = Math.max(1, Math.floor(options.workers ?? 2));
    this.warmCount = Math.min(count, Math.max(0, Math.floor(options.warmWorkers ?? 1)));
    this.perPrincipal = Math.min(count, Math.max(1, Math.floor(options.perPrincipal ?? count - 1)));
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.slots = Array.from({ length: count }, () => {
      const slot: Slot = {
        workers: new ChildSlot({ start: () => this.startWorker(slot), recycleAfterUses: options.recycleAfterRuns ?? 200 }),
        session: undefined,
        compiling: undefined,
        jobId: undefined,
        principal: undefined,
        idleTimer: undefined,
      };
      return slot;
    });
  }

  get stats(): EngineStats {
    let workersStarted = 0;
    let workersRecycled = 0;
    for (const { workers } of this.slots) {
      workersStarted += workers.started;
      workersRecycled += workers.recycled;
    }
    return {
      ...this.counters,
      workersStarted,
      workersRecycled,
      queued: this.queuedCount(),
      running: this.slots.filter((s) => s.session).length,
      workers: this.slots.length,
      warmWorkers: this.warmCount,
      workersAlive: this.aliveCount(),
      workerConfined: this.launch.confined,
      workerRuntime: this.slots.map((s) => s.workers.current?.readyMessage).find((m) => m?.type === 'ready')?.runtime,
    };
  }

  /** Starts the kept workers (`warmWorkers`) now, so the first runs do not pay the ~100 ms process start. */
  async warm(): Promise<void> {
    const starting = this.slots.slice(0, this.warmCount).map((slot) => {
      const worker = slot.workers.acquire();
      if (slot.jobId === undefined) this.armIdle(slot);
      return worker.ready;
    });
    await Promise.all(starting);
  }

  /** Kills all workers; queued and running runs end as 'cancelled'. */
  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) {
      clearTimeout(slot.idleTimer);
      slot.session?.cancel();
      slot.workers.close();
    }
    const waiting = [...this.queues.values()].flat();
    this.queues.clear();
    for (const waiter of waiting) waiter.grant(undefined);
  }

  /** Compiles and runs one script. Always resolves: every failure is described in the outcome. */
  async run(request: RunRequest, handler: BridgeHandler): Promise<RunOutcome> {
    const compiled = await this.compile(request);
    if (!compiled.ok) return compiled.outcome;
    return this.execute(compiled.script, handler, {
      ...(request.onLog ? { onLog: request.onLog } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.principal ? { principal: request.principal } : {}),
      ...(request.pastDeadline ? { pastDeadline: request.pastDeadline } : {}),
    });
  }

  /**
   * The one compile of a run: size here (its byte length: nothing here reads the script), then
   * shape, syntax and the type check in the type-check process, which transpiles too — or, when
   * the check is off or failed, shape and syntax in a sandbox worker. The result runs as often as
   * the run needs (a probe, then the approved run) without being checked again. Always resolves.
   */
  async compile(request: CompileRequest): Promise<CompileResult> {
    const startedAt = performance.now();
    try {
      return await this.compileChecked(request, startedAt);
    } catch (err) {
      return { ok: false, outcome: engineFailure(err, startedAt) };
    }
  }

  /** Runs a compiled script once against `handler`. Always resolves. */
  async execute(compiled: CompiledScript, handler: BridgeHandler, options: ExecuteOptions = {}): Promise<RunOutcome> {
    const startedAt = performance.now();
    try {
      return await this.executeCompiled(compiled, handler, options, startedAt);
    } catch (err) {
      return engineFailure(err, startedAt, compiled.warnings);
    }
  }

  private async compileChecked(request: CompileRequest, startedAt: number): Promise<CompileResult> {
    const refuse = (outcome: RunOutcome) => ({ ok: false as const, outcome });
    let limits: SandboxLimits;
    try {
      limits = resolveLimits(this.baseLimits, request.limits);
    } catch (err) {
      if (err instanceof InvalidLimitsError) return refuse(notExecuted({ kind: 'invalid', message: err.message }, startedAt));
      throw err;
    }
    const { code } = request;
    const codeBytes = Buffer.byteLength(code, 'utf8');
    if (codeBytes > limits.maxCodeBytes) {
      return refuse(notExecuted({ kind: 'invalid', message: `not executed: the script is ${codeBytes} bytes; the limit is ${limits.maxCodeBytes}` }, startedAt));
    }

    const checker = request.typecheck === false ? undefined : (request.checker ?? this.options.checker?.());
    return compileScript({
      code,
      limits,
      checker,
      checkOptions: this.options.typecheckBudgetMs !== undefined ? { budgetMs: this.options.typecheckBudgetMs } : {},
      startedAt,
      compileAlone: () => {
        const principal = request.principal ?? LOCAL_PRINCIPAL;
        return checker ? this.compileInWorker(code, codeBytes, principal, request.signal) : this.compileUnchecked(code, codeBytes, principal, request.signal);
      },
    });
  }

  /**
   * A run that skips the check: compiled by the type-check process when it is ready with no check
   * queued (its TypeScript is loaded already; never started for this), else by a sandbox worker.
   * A compile that overran the deadline there is refused as the worker would refuse it.
   */
  private async compileUnchecked(code: string, codeBytes: number, principal: string, signal: AbortSignal | undefined): Promise<ScriptCompile | { outcome: RunOutcome }> {
    const startedAt = performance.now();
    const timeoutMs = this.compileTimeoutMs;
    const ready = this.options.compiler && !signal?.aborted ? await this.options.compiler.compileIfReady(code, timeoutMs).catch(() => undefined) : undefined;
    if (ready && 'compiled' in ready) return ready.compiled;
    if (ready) return { outcome: tooSlowToCompile(timeoutMs, startedAt) };
    return this.compileInWorker(code, codeBytes, principal, signal);
  }

  private get compileTimeoutMs(): number {
    return this.options.compileTimeoutMs ?? 10_000;
  }

  /**
   * Compiles `code` in a sandbox worker (queued like a run), under a deadline: a worker that
   * overruns it is killed, and the script is refused as too slow to compile.
   */
  private async compileInWorker(code: string, codeBytes: number, principal: string, signal: AbortSignal | undefined): Promise<ScriptCompile | { outcome: RunOutcome }> {
    const startedAt = performance.now();
    const refuse = (kind: 'cancelled' | 'budget' | 'crashed' | 'invalid', message: string) => ({ outcome: notExecuted({ kind, message }, startedAt) });
    if (this.closed) return refuse('cancelled', 'the sandbox engine is closed');
    const slot = await this.acquire(principal, signal);
    if (slot === 'full') return refuse('budget', this.fullMessage(principal));
    if (slot === 'cancelled' || this.closed) {
      if (slot !== 'cancelled') this.release(slot, { recycle: false });
      return refuse('cancelled', 'the run was cancelled while it waited for a sandbox to compile it');
    }
    const worker = slot.workers.acquire();
    try {
      await worker.ready;
    } catch (err) {
      this.release(slot, { recycle: true });
      return refuse('crashed', (err as Error).message);
    }
    const jobId = this.nextJobId++;
    const timeoutMs = this.compileTimeoutMs;
    const serving = this.options.compiler?.servingProcess()?.pid;
    this.counters.workerCompiles++;
    // A worker's first compile loads TypeScript too: that is the worker's cost, not the script's.
    const deadlineMs = timeoutMs + (this.compilers.has(worker) ? 0 : COMPILER_LOAD_ALLOWANCE_MS);
    let recycle = false;
    const answer = await new Promise<WorkerToHost | { type: 'exit'; message: string } | { type: 'timeout' } | { type: 'cancelled' }>((resolve) => {
      const timer = setTimeout(() => resolve({ type: 'timeout' }), deadlineMs);
      const onAbort = () => resolve({ type: 'cancelled' });
      signal?.addEventListener('abort', onAbort, { once: true });
      slot.compiling = {
        jobId,
        settle: (msg) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(msg);
        },
      };
      slot.jobId = jobId;
      if (worker.decoder) worker.decoder.limits = compileFrameLimits(codeBytes);
      worker.send({ type: 'compile', jobId, code });
    });
    slot.compiling = undefined;
    try {
      switch (answer.type) {
        case 'compiled':
          if (!this.compilers.has(worker)) this.compilers.set(worker, serving);
          return { transpiled: answer.transpiled, secrets: answer.secrets };
        case 'timeout':
          recycle = true;
          worker.kill();
          return { outcome: tooSlowToCompile(timeoutMs, startedAt) };
        case 'cancelled':
          recycle = true;
          worker.kill();
          return refuse('cancelled', 'the run was cancelled while its script was compiled');
        default:
          recycle = true;
          worker.kill();
          return refuse('crashed', `the sandbox worker failed while it compiled the script: ${'message' in answer ? answer.message : answer.type}`);
      }
    } finally {
      this.release(slot, { recycle });
    }
  }

  private async executeCompiled(compiled: CompiledScript, handler: BridgeHandler, request: ExecuteOptions, startedAt: number): Promise<RunOutcome> {
    const { limits, warnings, typecheckMs } = compiled;
    if (this.closed) return notExecuted({ kind: 'cancelled', message: 'the sandbox engine is closed' }, startedAt, warnings);
    if (request.signal?.aborted) return notExecuted({ kind: 'cancelled', message: 'the run was cancelled before it started' }, startedAt, warnings);

    const queuedAt = performance.now();
    const principal = request.principal ?? LOCAL_PRINCIPAL;
    const slot = await this.acquire(principal, request.signal);
    if (slot === 'full') return notExecuted({ kind: 'budget', message: this.fullMessage(principal) }, startedAt, warnings);
    if (slot === 'cancelled' || this.closed) {
      if (slot !== 'cancelled') this.release(slot, { recycle: false });
      return notExecuted({ kind: 'cancelled', message: 'the run was cancelled while it waited for a sandbox' }, startedAt, warnings);
    }
    const queueMs = performance.now() - queuedAt;

    const worker = slot.workers.acquire();
    try {
      await worker.ready;
    } catch (err) {
      this.release(slot, { recycle: true });
      return notExecuted({ kind: 'crashed', message: (err as Error).message }, startedAt, warnings);
    }

    // The deadline's timer may fire late on a loaded machine: the clock decides, before anything runs.
    if (request.pastDeadline?.()) {
      this.release(slot, { recycle: false });
      return notExecuted({ kind: 'deadline', message: "not executed: the call's deadline passed while the run waited for a sandbox worker; nothing was sent" }, startedAt, warnings);
    }
    this.counters.runs++;
    worker.uses++;
    const jobId = this.nextJobId++;
    const workerLimits = this.workerLimits(limits);
    const session = new WorkerRun(
      {
        jobId,
        script: compiled.script,
        limits,
        workerLimits,
        handler,
        ...(request.onLog ? { onLog: request.onLog } : {}),
        warnings,
        startedAt,
        queueMs,
        ...(typecheckMs !== undefined ? { typecheckMs } : {}),
      },
      // The worker's own methods: a reply goes onto the channel with no relay here.
      { send: worker.send.bind(worker), killWorker: () => worker.kill() },
    );
    slot.session = session;
    slot.jobId = jobId;
    // The worker's messages go to the run without a relay here until it is released.
    worker.receiver = session;
    const onAbort = () => session.cancel();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    void session.released.then((r) => {
      worker.receiver = undefined;
      request.signal?.removeEventListener('abort', onAbort);
      const recycle = r.recycle || slot.workers.due(worker);
      this.release(slot, { recycle });
    });
    // What the worker may send back is bounded by the limits of the run it is given.
    if (worker.decoder) worker.decoder.limits = workerFrameLimits(workerLimits);
    worker.send({ type: 'run', jobId, js: withArgs(compiled.script.js, request.args), limits: workerLimits });
    return session.outcome;
  }

  private workerLimits(limits: SandboxLimits): WorkerLimits {
    const { maxCodeBytes: _code, resultBudgetBytes: _budget, ...rest } = limits;
    return { ...rest, maxRssMb: this.options.workerRssLimitMb ?? 1_024 };
  }

  private fullMessage(principal: string): string {
    const mine = this.queues.get(principal)?.length ?? 0;
    return `the sandbox is busy (${mine} of your runs already wait, ${this.queuedCount()} in all); try again shortly`;
  }

  private queuedCount(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  private aliveCount(): number {
    return this.slots.filter((s) => s.workers.current).length;
  }

  /** A slot nobody holds, one with a live worker first (no process start). */
  private freeSlot(): Slot | undefined {
    const free = this.slots.filter((s) => !s.session && s.jobId === undefined);
    return free.find((s) => s.workers.current) ?? free[0];
  }

  private hold(slot: Slot, principal: string): void {
    slot.jobId = 0; // reserved until the session is attached
    slot.principal = principal;
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    this.holding.set(principal, (this.holding.get(principal) ?? 0) + 1);
    this.lastServed.set(principal, ++this.serveClock);
  }

  private acquire(principal: string, signal: AbortSignal | undefined): Promise<Slot | 'full' | 'cancelled'> {
    // Nobody under the cap waits while a slot is free, so a free slot is this principal's to take.
    const free = (this.holding.get(principal) ?? 0) < this.perPrincipal ? this.freeSlot() : undefined;
    if (free) {
      this.hold(free, principal);
      return Promise.resolve(free);
    }
    const queue = this.queues.get(principal) ?? [];
    if (queue.length >= (this.options.maxQueue ?? 64)) return Promise.resolve('full');
    return new Promise((resolve) => {
      const waiter: Waiter = {
        principal,
        grant: (slot) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(slot ?? 'cancelled');
        },
      };
      const onAbort = () => {
        const mine = this.queues.get(principal);
        const i = mine?.indexOf(waiter) ?? -1;
        if (mine && i >= 0) {
          mine.splice(i, 1);
          if (mine.length === 0) this.queues.delete(principal);
        }
        resolve('cancelled');
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      this.queues.set(principal, queue);
    });
  }

  /**
   * The next waiter: the first of the principal under its cap that was served longest ago (so the
   * principals waiting take turns, round-robin, however many runs each has queued).
   */
  private nextWaiter(): Waiter | undefined {
    let chosen: string | undefined;
    for (const principal of this.queues.keys()) {
      if ((this.holding.get(principal) ?? 0) >= this.perPrincipal) continue;
      if (chosen === undefined || (this.lastServed.get(principal) ?? 0) < (this.lastServed.get(chosen) ?? 0)) chosen = principal;
    }
    if (chosen === undefined) return undefined;
    const queue = this.queues.get(chosen) as Waiter[];
    const waiter = queue.shift();
    if (queue.length === 0) this.queues.delete(chosen);
    return waiter;
  }

  private release(slot: Slot, { recycle }: { recycle: boolean }): void {
    const principal = slot.principal;
    if (principal !== undefined) {
      const held = (this.holding.get(principal) ?? 1) - 1;
      if (held > 0) this.holding.set(principal, held);
      else this.holding.delete(principal);
      // Nothing held or waiting: the principal is forgotten, and its next run starts a fresh turn.
      if (held <= 0 && !this.queues.has(principal)) this.lastServed.delete(principal);
    }
    slot.session = undefined;
    slot.jobId = undefined;
    slot.principal = undefined;
    if (recycle) slot.workers.retire();
    // One release may let several waiters in: a principal's cap freed, and this slot.
    for (let free = this.freeSlot(), next = free && this.nextWaiter(); free && next; free = this.freeSlot(), next = free && this.nextWaiter()) {
      this.hold(free, next.principal);
      next.grant(free);
    }
    if (this.closed || slot.jobId !== undefined) return;
    const shed = !recycle && this.shedsTypeScript(slot);
    if (shed) {
      slot.workers.retire();
      this.counters.compilersShed++;
    }
    // Replace a recycled worker now only while it is one of the kept ones; the others start on demand.
    if ((recycle || shed) && this.aliveCount() < this.warmCount) slot.workers.acquire();
    this.armIdle(slot);
  }

  /**
   * Whether the idle worker of `slot` loaded TypeScript while no type-check process could compile
   * for it (none was serving, or another one), and one now can: that process compiles the runs
   * without the check from here on, so the worker's TypeScript (35–65 MB) only waits for `idleMs`.
   * The same process that was serving when the worker loaded it (then busy with checks) never
   * sheds it, so workers that compile under a steady load of checks keep it.
   */
  private shedsTypeScript(slot: Slot): boolean {
    const worker = slot.workers.current;
    if (!worker || !this.compilers.has(worker)) return false;
    const serving = this.options.compiler?.servingProcess();
    return serving !== undefined && serving.ready && serving.pid !== this.compilers.get(worker);
  }

  private armIdle(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    if (!Number.isFinite(this.idleMs) || !slot.workers.current) return;
    slot.idleTimer = setTimeout(() => this.idle(slot), this.idleMs);
    // An idle timer must not keep a CLI process alive.
    slot.idleTimer.unref();
  }

  /** `idleMs` passed without a run in `slot`: its worker leaves, or sheds TypeScript if it is a kept one. */
  private idle(slot: Slot): void {
    slot.idleTimer = undefined;
    const worker = slot.workers.current;
    if (this.closed || slot.jobId !== undefined || !worker) return;
    if (this.aliveCount() > this.warmCount) {
      slot.workers.stop();
      this.counters.workersIdled++;
    } else if (this.compilers.has(worker)) {
      slot.workers.retire();
      slot.workers.acquire();
    }
  }

  private startWorker(slot: Slot): SandboxWorker {
    const worker: SandboxWorker = startWorker(this.launch, {
      message: (msg) => this.route(slot, worker, msg),
      exit: ({ signal }) => {
        if (slot.workers.drop(worker) !== 'serving') return;
        slot.compiling?.settle({ type: 'exit', message: `the worker exited (${signal ?? 'no signal'})` });
        if (slot.session && slot.jobId !== undefined) slot.session.onWorkerExit(signal);
      },
    });
    return worker;
  }

  private route(slot: Slot, worker: SandboxWorker, msg: WorkerToHost): void {
    if (slot.workers.current !== worker) return;
    if (msg.type === 'ready') return;
    if (slot.compiling) {
      if (msg.type === 'compiled' || msg.type === 'fatal') slot.compiling.settle(msg);
      // Nothing else is expected while compiling; the deadline or the fatal ends it.
      return;
    }
    // A run's messages go to the run itself (`receiver`); one of no job ends the worker.
    if (msg.type === 'fatal' && msg.jobId === undefined) worker.kill();
  }
}

/** A script whose compile overran the deadline, wherever it was compiled. */
function tooSlowToCompile(timeoutMs: number, startedAt: number): RunOutcome {
  return notExecuted(
    { kind: 'invalid', message: `not executed: compiling the script took more than ${timeoutMs} ms and was stopped; split long expressions and deeply nested code into smaller named steps` },
    startedAt,
  );
}
