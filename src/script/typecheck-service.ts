/**
 * `TypeCheckService` type-checks agent scripts in the type-check process (a child process, see
 * src/process/supervisor.ts for the words) instead of the server's event loop.
 *
 * A warm TypeScript language service for the PVE SDK holds ~95 MB, grows with every check, and
 * each check is 45–170 ms of CPU; run in the server, that memory never comes back and every MCP
 * session stalls while one script is checked. Here one child process hosts one warm
 * `ScriptChecker` per declaration set (one per schema); checks queue and go to it one at a time.
 *
 * The process is recycled after a number of checks or past an RSS limit: a replacement is started
 * and warmed with every set while the old one keeps answering, then checks switch to it and the
 * old one gets SIGKILL — no check waits for a cold start in steady state. When the process
 * crashes, breaks the protocol or misses a deadline (the check's budget plus a grace), that check
 * resolves as "type-check failed and was skipped: …" (the script still runs), and a new process
 * starts. `check` never rejects.
 *
 * Idle for `idleMs`, the process leaves (a warm one holds ~115 MB) and the next check starts a new
 * one, which builds its declaration sets first (~1.1 s for the PVE 9.1 SDK on two cores), unless
 * `anticipate` (an agent reading signatures) started it already. Runs without the check never wait
 * for it: `compileIfReady` compiles them here only while a process is ready and no check waits in
 * the queue; otherwise the sandbox worker compiles them. Those compiles neither start a process nor
 * keep one from leaving (the idle time counts from the last check).
 */
import type { ApiModel } from '../schema/model.js';
import { StartBackoff } from '../process/start-backoff.js';
import { ChildSlot } from '../process/child-slot.js';
import { ChildProcessError } from '../process/supervisor.js';
import { pathCatalogOf } from './path-catalog.js';
import { type CheckQueue, RemoteScriptChecker } from './remote-checker.js';
import { locateTypeCheckEntry, TypeCheckProcess } from './typecheck-process.js';
import type { DeclarationSet } from './typecheck-protocol.js';
import {
  checkerKey,
  DEFAULT_CHECK_BUDGET_MS,
  skippedCheck,
  type CheckAnswer,
  type CheckOptions,
  type CompilerProcess,
  type DeclarationFile,
  type ReadyCompile,
  type ReadyCompiler,
} from './checker.js';

export interface TypeCheckServiceOptions {
  /** Default budget of a check's type phase (default 1,000 ms); past it only syntax and path checks apply. */
  budgetMs?: number;
  /** Added to the budget before a check counts as hung and the process is killed (default 2,000 ms). */
  graceMs?: number;
  /** Replace the process after this many checks (default 1,000). */
  recycleAfterChecks?: number;
  /** Replace the process once its RSS passes this (default 512 MB). */
  maxRssMb?: number;
  /** Checks waiting for the process; past it a check is skipped at once (default 64). */
  maxQueue?: number;
  /** Time to start a process and build one declaration set in it (default 60 s). */
  loadTimeoutMs?: number;
  /** The compiled entry (default: found next to this module or under dist/). */
  entry?: string;
  /** Where recycling and restarts are reported (default: stderr). */
  log?: (line: string) => void;
  /** The process leaves after this long without a check (default 60,000 ms; Infinity: never). */
  idleMs?: number;
}

export interface TypeCheckServiceStats {
  processesStarted: number;
  recycled: number;
  /** Processes lost to a crash, a protocol breach or a missed deadline. */
  failures: number;
  checks: number;
  skipped: number;
  /** Runs without the check compiled here (`compileIfReady`) instead of in a sandbox worker. */
  compiles: number;
  /** Checks that found no process ready (without `warm()`, after a loss, or after idle): they waited for a start, or were skipped while none could start. */
  coldWaits: number;
  /** Times the process left after `idleMs` without a check. */
  idleStops: number;
  queued: number;
}

/** A check without its own budget may run this long before it counts as hung. */
const UNBUDGETED_LIMIT_MS = 60_000;
const DEFAULT_IDLE_MS = 60_000;
/** After a process failed to start, checks are skipped for this long instead of forking again. */
const RESTART_BACKOFF_MS = 5_000;

type Job = CheckJob | CompileJob;

interface CheckJob {
  kind: 'check';
  set: DeclarationSet;
  code: string;
  budgetMs: number;
  /** Also transpile the script for the sandbox. */
  transpile: boolean;
  queuedAt: number;
  resolve(answer: CheckAnswer): void;
}

interface CompileJob {
  kind: 'compile';
  code: string;
  timeoutMs: number;
  resolve(answer: ReadyCompile | undefined): void;
}

export class TypeCheckService implements ReadyCompiler, CheckQueue {
  private readonly sets = new Map<string, DeclarationSet>();
  private readonly queue: Job[] = [];
  private readonly log: (line: string) => void;
  /**
   * The process answering checks and its warmed replacement; `busy` while a check is in flight,
   * so the switch-over waits for it.
   */
  private readonly slot: ChildSlot<TypeCheckProcess>;
  private readonly startBackoff = new StartBackoff(RESTART_BACKOFF_MS);
  private pumping = false;
  private closed = false;
  private readonly counters = { failures: 0, checks: 0, skipped: 0, compiles: 0, coldWaits: 0, idleStops: 0 };
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: TypeCheckServiceOptions = {}) {
    const entry = options.entry ?? locateTypeCheckEntry();
    this.log = options.log ?? ((line) => process.stderr.write(`pve-code-mcp: ${line}\n`));
    this.slot = new ChildSlot<TypeCheckProcess>({
      start: () => new TypeCheckProcess(entry, this.loadTimeoutMs, (gone, why) => this.onExit(gone, why)),
      prepare: (child) => this.loadAll(child, [...this.sets.values()]),
      recycleAfterUses: options.recycleAfterChecks ?? 1_000,
      started: (err) => {
        if (err === undefined) return this.startBackoff.started();
        this.startBackoff.failed(reasonOf(err));
        this.log(`the type-check process did not start: ${reasonOf(err)}`);
      },
    });
  }

  get stats(): TypeCheckServiceStats {
    return { processesStarted: this.slot.started, recycled: this.slot.recycled, ...this.counters, queued: this.queue.length };
  }

  /** PID of the process answering checks (undefined before the first start or after a loss). */
  get pid(): number | undefined {
    return this.slot.current?.pid;
  }

  /**
   * The checker for one declaration set (a schema's SDK). Registering is cheap; the set is built
   * in the process by `warm()`, or by the first check that needs it.
   */
  checker(files: readonly DeclarationFile[], model?: ApiModel): RemoteScriptChecker {
    const id = checkerKey(files, model);
    let set = this.sets.get(id);
    if (!set) {
      set = { id, files: files.map((f) => ({ fileName: f.fileName, text: f.text })), ...(model ? { paths: pathCatalogOf(model) } : {}) };
      this.sets.set(id, set);
    }
    return new RemoteScriptChecker(this, set);
  }

  /**
   * Starts the process and builds every registered set, so the first checks are warm. A failure
   * is logged, not thrown: checks then start a process themselves, or resolve as skipped.
   */
  async warm(): Promise<void> {
    try {
      const child = await this.serving();
      await this.loadAll(child, [...this.sets.values()]);
    } catch (err) {
      this.log(`the type-check process could not be warmed: ${reasonOf(err)}`);
    }
    this.armIdle();
  }

  /** A check is likely soon: starts the process in the background unless one serves or is on its way, or a start failed a moment ago. */
  anticipate(): void {
    if (this.closed || this.slot.current || this.slot.replacing || this.startBackoff.holding() !== undefined) return;
    void this.warm();
  }

  /**
   * Type-checks `code` against a registered set and, with `transpile`, transpiles it for the
   * sandbox too. Never rejects: failures resolve as skipped checks (without `transpiled`).
   */
  check(set: DeclarationSet, code: string, options: CheckOptions = {}, transpile = false): Promise<CheckAnswer> {
    const budgetMs = options.budgetMs ?? this.options.budgetMs ?? DEFAULT_CHECK_BUDGET_MS;
    if (this.closed) return Promise.resolve(this.skip('the type-check process is closed', 0));
    if (this.queue.length >= (this.options.maxQueue ?? 64)) {
      return Promise.resolve(this.skip(`${this.queue.length} checks are already waiting for the type-check process`, 0));
    }
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    return new Promise((resolve) => {
      this.queue.push({ kind: 'check', set, code, budgetMs, transpile, queuedAt: performance.now(), resolve });
      void this.pump();
    });
  }

  /**
   * Compiles a run that skips the check (as the sandbox worker would), but only while a process is
   * ready and nothing waits in the queue: at most the check in flight is ahead of it, so it never
   * waits behind other sessions' checks, nor for a cold start. Undefined otherwise, or when the
   * process fails: the worker compiles then. Past `timeoutMs` the process is killed and replaced
   * like a check that overran, and the answer says so.
   */
  compileIfReady(code: string, timeoutMs: number): Promise<ReadyCompile | undefined> {
    this.slot.promote();
    if (this.closed || !this.slot.current || this.queue.length > 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.queue.push({ kind: 'compile', code, timeoutMs, resolve });
      void this.pump();
    });
  }

  servingProcess(): CompilerProcess | undefined {
    const pid = this.slot.current?.pid;
    return this.closed || pid === undefined ? undefined : { pid, ready: this.queue.length === 0 };
  }

  /** Kills every process; waiting checks resolve as skipped. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.slot.close();
    for (const job of this.queue.splice(0)) {
      if (job.kind === 'compile') job.resolve(undefined);
      else job.resolve(this.skip('the type-check process is closed', performance.now() - job.queuedAt));
    }
  }

  private get loadTimeoutMs(): number {
    return this.options.loadTimeoutMs ?? 60_000;
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    let checked = false;
    try {
      for (let job = this.queue.shift(); job; job = this.queue.shift()) {
        if (job.kind === 'compile') {
          job.resolve(await this.compileNow(job).catch(() => undefined));
          continue;
        }
        checked = true;
        const queuedAt = job.queuedAt;
        job.resolve(await this.run(job).catch((err: unknown) => this.skip(`internal error: ${reasonOf(err)}`, performance.now() - queuedAt)));
      }
    } finally {
      this.pumping = false;
      // Compiles alone leave the idle timer running, unless it fired while they were in flight.
      if (checked || this.idleTimer === undefined) this.armIdle();
    }
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const idleMs = this.options.idleMs ?? DEFAULT_IDLE_MS;
    if (this.closed || this.queue.length > 0 || !Number.isFinite(idleMs)) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.closed || this.pumping || this.queue.length > 0 || this.slot.busy) return;
      // A replacement still starting would arrive after the stop: look again once it has.
      if (this.slot.replacing) return this.armIdle();
      if (!this.slot.current) return;
      this.slot.stop();
      this.counters.idleStops++;
    }, idleMs);
    // An idle timer must not keep a CLI process alive.
    this.idleTimer.unref();
  }

  /** A compile on the process serving now; never a start (an unchecked run does not wait for one). */
  private async compileNow(job: CompileJob): Promise<ReadyCompile | undefined> {
    this.slot.promote();
    const child = this.slot.current;
    if (this.closed || !child) return undefined;
    this.slot.busy = true;
    try {
      const compiled = await child.compile(job.code, job.timeoutMs);
      this.counters.compiles++;
      this.recycleIfDue(child);
      return { compiled };
    } catch (err) {
      // The process was killed (a deadline, a crash, a protocol breach) and onExit replaces it.
      return err instanceof ChildProcessError && err.timedOut ? { timedOut: true } : undefined;
    } finally {
      this.slot.busy = false;
      this.slot.promote();
    }
  }

  private async run(job: CheckJob): Promise<CheckAnswer> {
    const elapsed = () => performance.now() - job.queuedAt;
    if (this.closed) return this.skip('the type-check process is closed', elapsed());
    let child: TypeCheckProcess;
    this.slot.promote();
    if (!this.slot.current) this.counters.coldWaits++;
    try {
      child = await this.serving();
      await child.load(job.set, this.loadTimeoutMs);
    } catch (err) {
      return this.skip(reasonOf(err), elapsed());
    }
    const limit = (Number.isFinite(job.budgetMs) ? Math.max(0, job.budgetMs) : UNBUDGETED_LIMIT_MS) + (this.options.graceMs ?? 2_000);
    this.slot.busy = true;
    try {
      const answer = await child.check(job.set.id, job.code, job.budgetMs, limit, job.transpile);
      this.counters.checks++;
      this.recycleIfDue(child);
      return answer;
    } catch (err) {
      return this.skip(reasonOf(err), elapsed(), err instanceof ChildProcessError && err.timedOut);
    } finally {
      this.slot.busy = false;
      this.slot.promote();
    }
  }

  /** The process to send the next check to: the warmed replacement if one is waiting. */
  private async serving(): Promise<TypeCheckProcess> {
    this.slot.promote();
    const current = this.slot.current;
    if (current) return current;
    const held = this.startBackoff.holding();
    if (held !== undefined) throw new ChildProcessError(`the type-check process could not start (${held}); retrying in a few seconds`, 'start');
    await this.slot.replace();
    this.slot.promote();
    const started = this.slot.current;
    if (!started) throw new ChildProcessError('the type-check process stopped right after it started', 'exit');
    return started;
  }

  /**
   * Builds the sets in `child`. One set that fails (its declarations break the compiler) must not
   * take the others down: it is logged and retried by its next check. A dead process is thrown.
   */
  private async loadAll(child: TypeCheckProcess, sets: readonly DeclarationSet[]): Promise<void> {
    for (const set of sets) {
      try {
        await child.load(set, this.loadTimeoutMs);
      } catch (err) {
        if (!child.isAlive) throw err;
        this.log(`declaration set ${set.id} could not be built: ${reasonOf(err)}`);
      }
    }
  }

  private recycleIfDue(child: TypeCheckProcess): void {
    const due = this.slot.due(child) || child.rssMb > (this.options.maxRssMb ?? 512);
    if (due && child === this.slot.current && !this.slot.replacing && !this.closed) {
      void this.slot.replace().catch(() => undefined);
    }
  }

  private onExit(child: TypeCheckProcess, why: ChildProcessError): void {
    // Processes we stopped (recycled, or whose start failed) are neither serving nor standby.
    if (this.closed || !this.slot.drop(child)) return;
    // A crash, a protocol breach or a missed deadline.
    this.counters.failures++;
    this.log(`${why.message}; starting a new one`);
    void this.slot.replace().catch(() => undefined);
  }

  /** A skipped check carries no transpilation: the caller transpiles itself. */
  private skip(reason: string, ms: number, timedOut = false): CheckAnswer {
    this.counters.skipped++;
    return { result: skippedCheck(reason, ms, timedOut) };
  }
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
