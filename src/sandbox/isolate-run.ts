/**
 * One script run inside the worker process: a fresh isolate, the trusted prelude, the agent's
 * JavaScript, and the three limit mechanisms (a timeout on every entry, a wall-clock timer and a
 * CPU-time watchdog) plus the worker RSS watchdog. Runs only in the worker: the server process
 * never loads isolated-vm.
 *
 * The run's outcome is settled only by the prelude's `done`, a watchdog or a failure of an entry
 * into the isolate — never by awaiting isolated-vm on the result path, because some of its
 * promises never settle (a stuck isolate thread). Those are detected after dispose and reported as
 * `tainted`, so the server replaces the whole worker.
 */
import type ivm from 'isolated-vm';
import type { KillReason, RunEndStatus, WorkerLimits, WorkerRunStats } from './ipc.js';
import { thrownSchema } from './ipc.js';
import { SCRIPT_URL } from '../script/names.js';

type Ivm = typeof ivm;

export interface RunPorts {
  call(callId: number, json: string): void;
  log(line: string): void;
  end(end: RunEndStatus, stats: WorkerRunStats): void;
  /** V8 lost control of the isolate: the worker must die. */
  catastrophic(message: string): void;
}

/** How long isolated-vm work may stay pending after dispose before the worker counts as stuck. */
const TAINT_GRACE_MS = 300;
/** Quiet time after the last entry before a script with nothing pending is declared stuck for good. */
const DEADLOCK_GRACE_MS = 50;
const WATCHDOG_INTERVAL_MS = 10;

export class IsolateRun {
  private isolate: ivm.Isolate | undefined;
  private resolveRef: ivm.Reference<(id: number, ok: boolean, json: string) => void> | undefined;
  private readonly tracked = new Set<Promise<unknown>>();
  private finished = false;
  private readonly startedAt = performance.now();
  private cpuAtEnd = 0;
  private wallTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private deadlockTimer: NodeJS.Timeout | undefined;
  private logBytes = 0;
  private logsDropped = 0;
  private calls = 0;
  private inFlight = 0;
  private readonly queue: Array<{ callId: number; json: string }> = [];
  private readonly outstanding = new Set<number>();
  private entries = 0;
  private activity = 0;

  constructor(
    private readonly ivmModule: Ivm,
    private readonly preludeSource: string,
    private readonly js: string,
    private readonly limits: WorkerLimits,
    private readonly ports: RunPorts,
  ) {}

  async start(): Promise<void> {
    const { limits } = this;
    this.wallTimer = setTimeout(() => this.kill('wall'), limits.wallMs);
    try {
      const isolate = new this.ivmModule.Isolate({
        memoryLimit: limits.memoryMb,
        onCatastrophicError: (message) => this.ports.catastrophic(message),
      });
      this.isolate = isolate;
      this.watchdog = setInterval(() => this.watch(), WATCHDOG_INTERVAL_MS);

      const context = await this.track(isolate.createContext());
      const { Callback } = this.ivmModule;
      const send = new Callback((id: unknown, json: unknown) => this.onSend(id, json), { ignored: true });
      const log = new Callback((line: unknown) => this.onLog(line), { ignored: true });
      const done = new Callback((ok: unknown, payload: unknown, dropped: unknown) => this.onDone(ok, payload, dropped), { ignored: true });
      const config = JSON.stringify({
        maxCallBytes: limits.maxCallBytes,
        maxCalls: limits.maxCalls,
        maxPendingCalls: limits.maxPendingCalls,
        maxLogBytes: limits.maxLogBytes,
        maxLogLineBytes: limits.maxLogLineBytes,
        maxResultBytes: limits.maxResultBytes,
      });
      const resolveRef = await this.track(
        context.evalClosure(`return (${this.preludeSource})($0, $1, $2, $3);`, [send, log, done, config], {
          filename: 'pve:prelude',
          timeout: limits.entryTimeoutMs,
          result: { reference: true },
        }),
      );
      if (this.finished) return;
      this.resolveRef = resolveRef as ivm.Reference<(id: number, ok: boolean, json: string) => void>;

      let script: ivm.Script;
      try {
        script = await this.track(isolate.compileScript(this.js, { filename: SCRIPT_URL }));
      } catch (err) {
        if (!this.finished) this.finish(syntaxEnd(err));
        return;
      }
      if (this.finished) return;
      this.entries++;
      this.track(script.run(context, { timeout: limits.entryTimeoutMs })).then(
        () => this.afterEntry(),
        (err: unknown) => this.entryFailed(err),
      );
    } catch (err) {
      this.entryFailed(err);
    }
  }

  /** A bridge reply from the server. */
  reply(callId: number, ok: boolean, json: string): void {
    if (this.finished || !this.outstanding.delete(callId)) return;
    this.inFlight--;
    this.activity++;
    if (json.length > this.limits.maxReplyBytes) {
      ok = false;
      json = JSON.stringify({
        kind: 'invalid',
        message: `the reply is ${json.length} bytes as JSON; the sandbox accepts at most ${this.limits.maxReplyBytes}: ask for less (filter params, narrower path)`,
      });
    }
    this.answer(callId, ok, json);
    this.pump();
  }

  cancel(): void {
    this.finish({ status: 'cancelled' });
  }

  private onSend(id: unknown, json: unknown): void {
    if (this.finished) return;
    this.activity++;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1 || typeof json !== 'string') return;
    this.calls++;
    if (this.calls > this.limits.maxCalls) {
      this.refuse(id, 'budget', `this run already made ${this.limits.maxCalls} bridge calls, the most one run may make`);
    } else if (json.length > this.limits.maxCallBytes) {
      this.refuse(id, 'invalid', `the call is ${json.length} bytes as JSON; the limit is ${this.limits.maxCallBytes}`);
    } else if (this.inFlight + this.queue.length >= this.limits.maxPendingCalls) {
      this.refuse(id, 'budget', `${this.limits.maxPendingCalls} bridge calls are already in flight; await some before starting more`);
    } else {
      this.queue.push({ callId: id, json });
      this.pump();
    }
  }

  /** Starts queued calls while fewer than `maxParallelCalls` are with the server. */
  private pump(): void {
    while (!this.finished && this.inFlight < this.limits.maxParallelCalls && this.queue.length > 0) {
      const next = this.queue.shift() as { callId: number; json: string };
      this.inFlight++;
      this.outstanding.add(next.callId);
      this.ports.call(next.callId, next.json);
    }
  }

  private refuse(callId: number, kind: 'budget' | 'invalid', message: string): void {
    this.answer(callId, false, JSON.stringify({ kind, message }));
  }

  /** Enters the isolate to settle a call; the entry is time-limited like the first run. */
  private answer(callId: number, ok: boolean, json: string): void {
    const ref = this.resolveRef;
    if (!ref || this.finished) return;
    this.entries++;
    this.track(ref.apply(undefined, [callId, ok, json], { timeout: this.limits.entryTimeoutMs })).then(
      () => this.afterEntry(),
      (err: unknown) => this.entryFailed(err),
    );
  }

  private onLog(line: unknown): void {
    if (this.finished || typeof line !== 'string') return;
    this.activity++;
    const room = this.limits.maxLogBytes - this.logBytes;
    if (room <= 0) {
      this.logsDropped++;
      return;
    }
    const max = Math.min(room, this.limits.maxLogLineBytes);
    const kept = line.length > max ? `${line.slice(0, max)}…[cut]` : line;
    this.logBytes += kept.length;
    this.ports.log(kept);
  }

  private onDone(ok: unknown, payload: unknown, dropped: unknown): void {
    if (this.finished || typeof payload !== 'string') return;
    if (typeof dropped === 'number' && Number.isSafeInteger(dropped) && dropped > 0) this.logsDropped += dropped;
    if (ok === true) {
      if (payload.length > this.limits.maxResultBytes) {
        this.finish({ status: 'invalid', message: `the return value is ${payload.length} bytes as JSON; the limit is ${this.limits.maxResultBytes}` });
      } else {
        this.finish(payload === '' ? { status: 'ok' } : { status: 'ok', resultJson: payload });
      }
      return;
    }
    this.finish(exceptionEnd(payload));
  }

  private afterEntry(): void {
    this.entries--;
    if (this.finished) return;
    this.scheduleDeadlockCheck();
  }

  /**
   * The sandbox has no timers or I/O of its own: once no code runs and no bridge call is
   * pending, a script that has not finished is waiting on a promise nothing can settle.
   */
  private scheduleDeadlockCheck(): void {
    if (this.entries > 0 || this.inFlight > 0 || this.queue.length > 0) return;
    const seen = this.activity;
    clearTimeout(this.deadlockTimer);
    this.deadlockTimer = setTimeout(() => {
      const idle = this.entries === 0 && this.inFlight === 0 && this.queue.length === 0 && this.activity === seen;
      if (idle && !this.finished) this.finish({ status: 'deadlock' });
    }, DEADLOCK_GRACE_MS);
  }

  private entryFailed(err: unknown): void {
    this.entries--;
    if (this.finished) return;
    const message = err instanceof Error ? err.message : String(err);
    if (/timed out/i.test(message)) this.kill('entry-timeout');
    else if (/memory limit/i.test(message) || this.isolate?.isDisposed) this.kill('memory');
    else this.finish({ status: 'crashed', message: `the sandbox failed: ${message.slice(0, 500)}` });
  }

  private watch(): void {
    const isolate = this.isolate;
    if (this.finished || !isolate || isolate.isDisposed) return;
    let cpuMs = 0;
    try {
      cpuMs = Number(isolate.cpuTime) / 1e6;
    } catch {
      return;
    }
    if (cpuMs > this.limits.cpuMs) this.kill('cpu');
    else if (process.memoryUsage.rss() > this.limits.maxRssMb * 1024 * 1024) this.kill('memory');
  }

  private kill(reason: KillReason): void {
    const { limits } = this;
    const messages: Record<KillReason, string> = {
      wall: `the script ran longer than its ${limits.wallMs} ms wall-clock limit (awaited calls included)`,
      cpu: `the script used more than its ${limits.cpuMs} ms CPU limit`,
      memory: `the script used more memory than allowed (${limits.memoryMb} MB heap limit)`,
      'entry-timeout': `the script ran ${limits.entryTimeoutMs} ms without yielding (an endless loop?)`,
    };
    this.finish({ status: 'killed', reason, message: messages[reason] });
  }

  private finish(end: RunEndStatus): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.wallTimer);
    clearInterval(this.watchdog);
    clearTimeout(this.deadlockTimer);
    const isolate = this.isolate;
    if (isolate && !isolate.isDisposed) {
      try {
        this.cpuAtEnd = Number(isolate.cpuTime) / 1e6;
      } catch {
        // Disposed by isolated-vm itself (memory limit) between the check and the read.
      }
      try {
        isolate.dispose();
      } catch {
        // Already disposed.
      }
    }
    void this.reportAfterSettle(end);
  }

  /** Waits briefly for isolated-vm's own promises; any still pending means a stuck isolate thread. */
  private async reportAfterSettle(end: RunEndStatus): Promise<void> {
    if (this.tracked.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((r) => (timer = setTimeout(r, TAINT_GRACE_MS)));
      await Promise.race([Promise.allSettled([...this.tracked]), grace]);
      clearTimeout(timer);
    }
    this.ports.end(end, {
      wallMs: performance.now() - this.startedAt,
      cpuMs: this.cpuAtEnd,
      logsDropped: this.logsDropped,
      tainted: this.tracked.size > 0,
      rssMb: process.memoryUsage.rss() / (1024 * 1024),
    });
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.tracked.add(promise);
    const untrack = () => {
      this.tracked.delete(promise);
    };
    promise.then(untrack, untrack);
    return promise;
  }
}

function exceptionEnd(payload: string): RunEndStatus {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return { status: 'crashed', message: 'the sandbox reported an unreadable exception' };
  }
  if (typeof raw === 'object' && raw !== null && (raw as { resultProblem?: unknown }).resultProblem === true) {
    const message = (raw as { message?: unknown }).message;
    return { status: 'invalid', message: typeof message === 'string' ? message.slice(0, 5_000) : 'the return value cannot be delivered' };
  }
  const parsed = thrownSchema.safeParse(raw);
  if (!parsed.success) return { status: 'crashed', message: 'the sandbox reported a malformed exception' };
  return { status: 'exception', error: parsed.data };
}

/** V8's SyntaxError from compiling the transpiled script, with its position when it names one. */
function syntaxEnd(err: unknown): RunEndStatus {
  const message = err instanceof Error ? err.message : String(err);
  const pos = /\[file:\/\/\/agent\.js:(\d+):(\d+)\]/.exec(message);
  const clean = message.replace(/\s*\[file:\/\/\/agent\.js:\d+:\d+\]\s*$/, '').slice(0, 5_000);
  return {
    status: 'syntax',
    message: clean,
    ...(pos ? { jsLine: Number(pos[1]), jsCol: Number(pos[2]) } : {}),
  };
}
