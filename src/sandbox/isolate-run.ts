/**
 * One script run inside the worker process: a fresh isolate, the trusted prelude, the agent's
 * JavaScript, and the limits. Runs only in the worker: the server process never loads isolated-vm.
 *
 * Every entry into the isolate is synchronous, on this process's main thread: the first run and
 * each continuation after a bridge reply (`applySync`). That keeps a bridge call to one IPC round
 * trip plus one isolate entry, with no hop through isolated-vm's thread pool — and it is safe
 * because this process does nothing else while a slice runs. Each slice gets a timeout of the
 * smallest of the entry timeout and the CPU and wall-clock time the run has left, so the
 * isolate can never outrun a budget; between slices the wall-clock timer covers awaited calls and
 * the CPU and RSS watchdog checks after every slice. A slice that never returns (V8 stuck outside
 * its timeout, e.g. in a fatal OOM) cannot be seen from here: the server's silence watchdog
 * (WorkerRun) kills the whole process.
 */
import type { FreshIsolate, IsolateListener } from './fresh-isolate.js';
import type { KillReason, RunEndStatus, WorkerLimits, WorkerRunStats, WorkerToHost } from './worker-protocol.js';
import type { IvmIsolate, IvmReference, IvmScript } from './ivm.js';
import { thrownSchema } from './worker-protocol.js';
import { SCRIPT_URL } from '../script/names.js';

export interface RunPorts {
  /** A message to the server (a call, a log line): it goes on the channel as a frame (frames.ts). */
  post(message: WorkerToHost): void;
  end(end: RunEndStatus, stats: WorkerRunStats): void;
}

/**
 * Where the prelude of one isolate calls the host: the run that owns the isolate, none while it
 * waits as the worker's spare (its calls are then dropped). Built with the isolate (fresh-isolate.ts
 * binds these methods into the prelude), so a call from the script enters this module directly.
 */
export class IsolateSeat implements IsolateListener {
  run: IsolateRun | undefined;
  // Arrow functions, handed to isolated-vm as they are (it takes no bound functions).
  readonly onSend = (id: unknown, json: unknown): void => this.run?.onSend(id, json);
  readonly onLog = (line: unknown): void => this.run?.onLog(line);
  readonly onDone = (ok: unknown, payload: unknown, dropped: unknown): void => this.run?.onDone(ok, payload, dropped);
}

/** Quiet time after the last entry before a script with nothing pending is declared stuck for good. */
const DEADLOCK_GRACE_MS = 50;
/** Reading the process RSS costs ~15 µs, so after a slice it is read at most this often. */
const RSS_CHECK_INTERVAL_MS = 10;

interface Slice {
  timeoutMs: number;
  /** What stopped the slice if its timeout fires. */
  reason: KillReason;
}

export class IsolateRun {
  private isolate: IvmIsolate | undefined;
  private resolveRef: IvmReference | undefined;
  private finished = false;
  private inEntry = false;
  private readonly startedAt = performance.now();
  private cpuAtEnd = 0;
  private lastRssCheck = 0;
  private wallTimer: NodeJS.Timeout | undefined;
  private deadlockTimer: NodeJS.Timeout | undefined;
  private logBytes = 0;
  private logsDropped = 0;
  private calls = 0;
  private inFlight = 0;
  private readonly queue: Array<{ callId: number; json: string }> = [];
  private readonly outstanding = new Set<number>();
  private activity = 0;

  constructor(
    private readonly jobId: number,
    private readonly js: string,
    private readonly limits: WorkerLimits,
    private readonly ports: RunPorts,
  ) {}

  /** `obtain` hands over the run's isolate: built ahead of time by the worker, or now. */
  start(obtain: () => FreshIsolate<IsolateSeat>): void {
    this.wallTimer = setTimeout(() => this.kill('wall'), this.limits.wallMs);
    let fresh: FreshIsolate<IsolateSeat>;
    try {
      fresh = obtain();
    } catch (err) {
      this.entryFailed(err, 'entry-timeout');
      return;
    }
    fresh.listener.run = this;
    this.isolate = fresh.isolate;
    this.resolveRef = fresh.resolveRef;
    let script: IvmScript;
    try {
      script = fresh.isolate.compileScriptSync(this.js, { filename: SCRIPT_URL });
    } catch (err) {
      this.finish(syntaxEnd(err));
      return;
    }
    this.enter((timeout) => script.runSync(fresh.context, { timeout }));
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

  /**
   * Runs one synchronous slice of the isolate under the tightest budget left. Returns undefined
   * when the slice failed (the run is then finished).
   */
  private enter<T>(body: (timeoutMs: number) => T): T | undefined {
    const slice = this.slice();
    if (slice.timeoutMs <= 0) {
      this.kill(slice.reason);
      return undefined;
    }
    this.inEntry = true;
    try {
      return body(slice.timeoutMs);
    } catch (err) {
      this.entryFailed(err, slice.reason);
      return undefined;
    } finally {
      this.inEntry = false;
      this.afterEntry();
    }
  }

  private slice(): Slice {
    const { limits } = this;
    let slice: Slice = { timeoutMs: limits.entryTimeoutMs, reason: 'entry-timeout' };
    const cpuLeft = limits.cpuMs - this.cpuMs();
    if (cpuLeft < slice.timeoutMs) slice = { timeoutMs: cpuLeft, reason: 'cpu' };
    const wallLeft = limits.wallMs - (performance.now() - this.startedAt);
    if (wallLeft < slice.timeoutMs) slice = { timeoutMs: wallLeft, reason: 'wall' };
    return { timeoutMs: Math.floor(slice.timeoutMs), reason: slice.reason };
  }

  private cpuMs(): number {
    const isolate = this.isolate;
    if (!isolate || isolate.isDisposed) return this.cpuAtEnd;
    try {
      return Number(isolate.cpuTime) / 1e6;
    } catch {
      return this.cpuAtEnd;
    }
  }

  onSend(id: unknown, json: unknown): void {
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
      this.ports.post({ type: 'call', jobId: this.jobId, callId: next.callId, json: next.json });
    }
  }

  private refuse(callId: number, kind: 'budget' | 'invalid', message: string): void {
    this.answer(callId, false, JSON.stringify({ kind, message }));
  }

  /** Enters the isolate to settle a call; the entry is a time-limited slice like the first run. */
  private answer(callId: number, ok: boolean, json: string): void {
    const ref = this.resolveRef;
    if (!ref || this.finished) return;
    if (this.inEntry) {
      // Called back from inside a slice (a refused call): the isolate cannot be re-entered now.
      this.activity++;
      setImmediate(() => this.answer(callId, ok, json));
      return;
    }
    this.enter((timeout) => ref.applySync(undefined, [callId, ok, json], { timeout }));
  }

  onLog(line: unknown): void {
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
    this.ports.post({ type: 'log', jobId: this.jobId, line: kept });
  }

  onDone(ok: unknown, payload: unknown, dropped: unknown): void {
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

  /** The CPU and RSS watchdog, run after every slice; then the deadlock check. */
  private afterEntry(): void {
    if (this.finished) return;
    if (this.cpuMs() > this.limits.cpuMs) {
      this.kill('cpu');
      return;
    }
    const now = performance.now();
    if (now - this.lastRssCheck >= RSS_CHECK_INTERVAL_MS) {
      this.lastRssCheck = now;
      if (process.memoryUsage.rss() > this.limits.maxRssMb * 1024 * 1024) {
        this.kill('memory');
        return;
      }
    }
    this.scheduleDeadlockCheck();
  }

  /**
   * The sandbox has no timers or I/O of its own: once no slice runs and no bridge call is
   * pending, a script that has not finished is waiting on a promise nothing can settle.
   */
  private scheduleDeadlockCheck(): void {
    if (this.inFlight > 0 || this.queue.length > 0) return;
    const seen = this.activity;
    clearTimeout(this.deadlockTimer);
    this.deadlockTimer = setTimeout(() => {
      // The prelude's done call is fire-and-forget: isolated-vm delivers it on this thread in
      // libuv's poll phase, after the timers. A worker the OS did not schedule for the
      // grace (two cores under load) meets a due timer and a finished script's pending `done` in
      // the same turn; the verdict waits for the check phase, by when that `done` has arrived.
      setImmediate(() => {
        const idle = this.inFlight === 0 && this.queue.length === 0 && this.activity === seen;
        if (idle && !this.finished) this.finish({ status: 'deadlock' });
      });
    }, DEADLOCK_GRACE_MS);
  }

  private entryFailed(err: unknown, reason: KillReason): void {
    if (this.finished) return;
    const message = err instanceof Error ? err.message : String(err);
    if (/timed out/i.test(message)) this.kill(reason);
    else if (/memory limit/i.test(message) || this.isolate?.isDisposed) this.kill('memory');
    else this.finish({ status: 'crashed', message: `the sandbox failed: ${message.slice(0, 500)}` });
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
    clearTimeout(this.deadlockTimer);
    this.cpuAtEnd = this.cpuMs();
    const isolate = this.isolate;
    if (isolate && !isolate.isDisposed) {
      try {
        isolate.dispose();
      } catch {
        // Already disposed.
      }
    }
    this.ports.end(end, {
      wallMs: performance.now() - this.startedAt,
      cpuMs: this.cpuAtEnd,
      logsDropped: this.logsDropped,
      rssMb: process.memoryUsage.rss() / (1024 * 1024),
    });
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
