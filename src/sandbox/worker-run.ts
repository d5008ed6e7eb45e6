/**
 * The server side of one run: validates the calls the worker relays, hands them to the bridge
 * handler, answers every one of them, collects logs, enforces the limits again (the worker is not
 * trusted), and turns the worker's report into a `RunOutcome` in the agent's own coordinates.
 */
import { setMaxListeners } from 'node:events';
import { SENT_GRACE_MS, type BridgeCall, type BridgeError, type BridgeErrorKind, type BridgeHandler, type BridgeReply } from '../bridge/protocol.js';
import { truncateJson, type TruncationReport } from '../safety/truncate.js';
import type { Diagnostic } from '../script/diagnostics.js';
import type { TranspiledScript } from '../script/compiled.js';
import { parseBridgeCall } from '../bridge/contract.js';
import type { ChildReceiver } from '../process/supervisor.js';
import type { RunEndStatus, WorkerLimits, WorkerRunStats, WorkerToHost } from './worker-protocol.js';
import type { SandboxLimits } from './limits.js';
import type { RunError, RunErrorKind, RunOutcome, RunStats } from './outcome.js';

/** Extra time the worker gets past the wall limit before the server kills the whole process. */
const BACKSTOP_GRACE_MS = 3_000;
/** How long a cancelled run may take to confirm before its worker is killed. */
const CANCEL_GRACE_MS = 1_000;
/**
 * Silence past a slice's timeout before the worker counts as wedged: covers isolate start-up,
 * a large reply crossing IPC, and the worker's own reaction to a timeout.
 */
const SILENCE_GRACE_MS = 1_000;
/**
 * How long a run that ended waits for the calls still with the bridge: a change already sent gets
 * `SENT_GRACE_MS` to answer (src/bridge/write.ts), and the answer must include what became of it.
 */
const SETTLE_WAIT_MS = SENT_GRACE_MS + 1_000;
/**
 * How long a reply may wait for others while at least half of the run's parallel calls are still
 * with the bridge (a `Promise.all` sweep): the replies then reach the worker a few at a time, in
 * one write and one wake-up, instead of one by one as the node's answers trickle in. Fewer calls
 * in flight (a sequential script, a small batch) get every reply at once.
 */
export const REPLY_HOLD_MS = 3;

export interface SessionPorts {
  send(msg: { type: 'reply'; jobId: number; callId: number; ok: boolean; json: string } | { type: 'cancel'; jobId: number }): void;
  /** Kill the worker process running this session. */
  killWorker(): void;
}

export interface SessionRelease {
  /** The worker must be replaced: stuck isolate thread, high RSS, or it was killed. */
  recycle: boolean;
}

export interface SessionInput {
  jobId: number;
  script: TranspiledScript;
  limits: SandboxLimits;
  workerLimits: WorkerLimits;
  handler: BridgeHandler;
  onLog?: (line: string) => void;
  warnings: Diagnostic[];
  startedAt: number;
  typecheckMs?: number;
  queueMs?: number;
}

export class WorkerRun implements ChildReceiver<WorkerToHost> {
  readonly outcome: Promise<RunOutcome>;
  /** Settles when the worker is free again (its end report arrived or it was killed). */
  readonly released: Promise<SessionRelease>;
  private resolveOutcome!: (o: RunOutcome) => void;
  private resolveRelease!: (r: SessionRelease) => void;
  private outcomeSent = false;
  private releasedAlready = false;
  private readonly abort = new AbortController();
  private readonly logs: string[] = [];
  private logBytes = 0;
  private logsDropped = 0;
  private readonly failures = new Map<number, { error: BridgeError; call?: BridgeCall }>();
  private inFlight = 0;
  /** Calls with the bridge, by call id: what a wall kill names, and what an ended run waits for. */
  private readonly pending = new Map<number, { call: BridgeCall; since: number }>();
  private readonly onSettled: Array<() => void> = [];
  /** Replies waiting to leave together (REPLY_HOLD_MS), in the order their calls finished. */
  private held: Array<{ type: 'reply'; jobId: number; callId: number; ok: boolean; json: string }> = [];
  private holdTimer: NodeJS.Timeout | undefined;
  private readonly stats: RunStats;
  private backstop: NodeJS.Timeout | undefined;
  private silenceWatch: NodeJS.Timeout | undefined;
  /** Last sign of life from the worker for this run, or the last reply that started a slice. */
  private lastHeard = performance.now();
  private cancelTimer: NodeJS.Timeout | undefined;
  private fatalMessage: string | undefined;

  constructor(
    private readonly input: SessionInput,
    private readonly ports: SessionPorts,
  ) {
    // Every call the handler is running listens on this signal (the client adds one per request,
    // queued ones included): up to maxParallelCalls at once, a few listeners each.
    setMaxListeners(Math.max(10, input.limits.maxParallelCalls * 4), this.abort.signal);
    this.outcome = new Promise((r) => (this.resolveOutcome = r));
    this.released = new Promise((r) => (this.resolveRelease = r));
    this.stats = {
      ms: 0,
      cpuMs: 0,
      bridgeCalls: 0,
      bytesIn: 0,
      bytesOut: 0,
      ...(input.typecheckMs !== undefined ? { typecheckMs: input.typecheckMs } : {}),
      ...(input.queueMs !== undefined ? { queueMs: input.queueMs } : {}),
    };
    this.backstop = setTimeout(() => {
      this.fail({ kind: 'killed', reason: 'wall', message: `the script ran longer than its ${input.limits.wallMs} ms wall-clock limit; the sandbox process was killed${this.describePending()}` });
      this.ports.killWorker();
    }, input.limits.wallMs + BACKSTOP_GRACE_MS);
    const silenceLimit = input.limits.entryTimeoutMs + SILENCE_GRACE_MS;
    this.silenceWatch = setInterval(() => this.checkSilence(silenceLimit), Math.min(1_000, Math.max(50, silenceLimit / 4)));
  }

  /**
   * The worker runs every slice of the isolate on its main thread, so a slice that V8 cannot stop
   * (a fatal out-of-memory, a getter isolated-vm reads after the timed section) silences it
   * entirely. While no bridge call is with us the worker owes us a message within one slice.
   */
  private checkSilence(limitMs: number): void {
    if (this.outcomeSent || this.inFlight > 0) return;
    const silentMs = performance.now() - this.lastHeard;
    if (silentMs <= limitMs) return;
    this.fail({
      kind: 'killed',
      reason: 'entry-timeout',
      message: `the sandbox stopped responding for ${Math.round(silentMs)} ms, past its ${this.input.limits.entryTimeoutMs} ms slice limit (a runaway allocation or a stuck isolate); the sandbox process was killed and will be replaced`,
    });
    this.ports.killWorker();
  }

  /**
   * A checked message of the worker: the supervisor hands them straight to the run while it holds
   * the worker (`SupervisedChild.receiver`). Those of another job (a compile's, a cancelled run's
   * late report) are not this run's; a fatal report of no job ends it too.
   */
  message(msg: WorkerToHost): void {
    const job = 'jobId' in msg ? msg.jobId : undefined;
    if (job === undefined ? msg.type !== 'fatal' : job !== this.input.jobId) return;
    this.lastHeard = performance.now();
    if (msg.type === 'call') void this.handleCall(msg.callId, msg.json);
    else if (msg.type === 'log') this.addLog(msg.line);
    else if (msg.type === 'end') this.onEnd(msg.end, msg.stats);
    else if (msg.type === 'fatal') {
      this.fatalMessage = msg.message;
      this.fail(crashOrMemory(msg.message));
      this.ports.killWorker();
    }
  }

  onWorkerExit(signal: NodeJS.Signals | null): void {
    if (!this.outcomeSent) {
      const why = this.fatalMessage ?? (signal === 'SIGABRT' ? 'out of memory' : `the sandbox process ended (${signal ?? 'exit'})`);
      this.fail(crashOrMemory(why));
    }
    this.release({ recycle: true });
  }

  cancel(): void {
    if (this.outcomeSent) return;
    this.fail({ kind: 'cancelled', message: 'the run was cancelled' });
    this.ports.send({ type: 'cancel', jobId: this.input.jobId });
    this.cancelTimer = setTimeout(() => this.ports.killWorker(), CANCEL_GRACE_MS);
  }

  private async handleCall(callId: number, json: string): Promise<void> {
    const { limits } = this.input;
    if (this.outcomeSent) return;
    this.stats.bridgeCalls++;
    this.stats.bytesOut += json.length;
    let reply: BridgeReply;
    let call: BridgeCall | undefined;
    const afterReply: Array<() => void> = [];
    // Refusals here go through the handler too: it counts, charges and audits every attempt.
    if (this.stats.bridgeCalls > limits.maxCalls || this.inFlight >= limits.maxParallelCalls) {
      reply = await this.invokeHandler({ kind: 'rejected', error: { kind: 'budget', message: 'too many bridge calls for this run' } }, afterReply);
    } else {
      const parsed = parseBridgeCall(json, limits.maxCallBytes);
      if (parsed.ok) {
        call = parsed.call;
        this.inFlight++;
        this.pending.set(callId, { call, since: performance.now() });
        reply = await this.invokeHandler(call, afterReply);
        this.inFlight--;
      } else {
        reply = await this.invokeHandler({ kind: 'rejected', error: { kind: 'invalid', message: parsed.message } }, afterReply);
      }
    }
    if (!this.outcomeSent) {
      const payload = this.serialise(reply, limits.maxReplyBytes);
      // Kept so an uncaught rejection of this call can be reported with its kind and details.
      if (!payload.ok) this.failures.set(callId, { error: payload.error, ...(call ? { call } : {}) });
      this.stats.bytesIn += payload.json.length;
      this.lastHeard = performance.now();
      this.held.push({ type: 'reply', jobId: this.input.jobId, callId, ok: payload.ok, json: payload.json });
      if (this.inFlight < Math.max(2, limits.maxParallelCalls / 2)) this.sendHeld();
      else this.holdTimer ??= setTimeout(() => this.sendHeld(), REPLY_HOLD_MS);
    }
    // Still owed when the run ended meanwhile: the call was made, so it is recorded. Once the
    // reply is on its way: the channel writes at the end of the turn (src/process/turn-writer.ts),
    // and this immediate, queued after that write's, lets the worker resume the script while the
    // audit entry is rendered here (a held reply leaves later still). A call that needs this
    // reply can only arrive after it, so the entry is written before the handler sees that call.
    setImmediate(() => {
      for (const task of afterReply) runTask(task);
      if (this.pending.delete(callId) && this.pending.size === 0) for (const settled of this.onSettled.splice(0)) settled();
    });
  }

  /** Sends the held replies, oldest first (a run that ended stopped the timer: see deliver). */
  private sendHeld(): void {
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    const held = this.held;
    this.held = [];
    for (const reply of held) this.ports.send(reply);
  }

  /** `POST /nodes/pve1/qemu/100/snapshot (pending 12.3 s)`, for the calls still with the bridge. */
  private describePending(): string {
    if (this.pending.size === 0) return '';
    const now = performance.now();
    const calls = [...this.pending.values()].slice(0, 5).map(({ call, since }) => {
      const what = call.kind === 'request' ? `${call.method} ${call.path}` : call.kind === 'waitTask' ? `waitTask ${call.upid}` : 'a refused call';
      return `${what} (pending ${((now - since) / 1000).toFixed(1)} s)`;
    });
    const more = this.pending.size > calls.length ? ` and ${this.pending.size - calls.length} more` : '';
    return `; the script was waiting for ${calls.join(', ')}${more}`;
  }

  /** The reply as the JSON the prelude parses; unserialisable or oversized data becomes an error. */
  private serialise(reply: BridgeReply, maxBytes: number): { ok: true; json: string } | { ok: false; json: string; error: BridgeError } {
    const failed = (error: BridgeError) => ({ ok: false as const, json: JSON.stringify(error), error });
    if (!reply.ok) return failed(reply.error);
    let json: string | undefined;
    try {
      json = JSON.stringify(reply.data);
    } catch (err) {
      return failed({ kind: 'internal', message: `the reply could not be serialised: ${(err as Error).message}` });
    }
    json ??= 'null';
    if (json.length > maxBytes) {
      return failed({
        kind: 'invalid',
        message: `the reply is ${json.length} bytes as JSON; the sandbox accepts at most ${maxBytes}: ask for less (filter params, a narrower path)`,
      });
    }
    return { ok: true, json };
  }

  /** Handlers must resolve, never reject; a broken one still gets a clean answer to the sandbox. */
  private async invokeHandler(call: BridgeCall, afterReply: Array<() => void>): Promise<BridgeReply> {
    try {
      return await this.input.handler(call, { signal: this.abort.signal, afterReply: (task) => afterReply.push(task) });
    } catch (err) {
      return { ok: false, error: { kind: 'internal', message: `the bridge handler failed: ${err instanceof Error ? err.message : String(err)}` } };
    }
  }

  private addLog(line: string): void {
    if (this.outcomeSent) return;
    const room = this.input.limits.maxLogBytes - this.logBytes;
    if (room <= 0) {
      this.logsDropped++;
      return;
    }
    const kept = line.length > room ? `${line.slice(0, room)}…[cut]` : line;
    this.logBytes += kept.length;
    this.stats.bytesOut += kept.length;
    this.logs.push(kept);
    try {
      this.input.onLog?.(kept);
    } catch {
      // A failing log listener must not affect the run.
    }
  }

  private onEnd(end: RunEndStatus, stats: WorkerRunStats): void {
    this.stats.cpuMs = stats.cpuMs;
    this.logsDropped += stats.logsDropped;
    if (end.status === 'ok') this.succeed(end.resultJson);
    else this.fail(this.errorOf(end));
    const recycle = stats.rssMb > this.input.workerLimits.maxRssMb / 2;
    this.release({ recycle });
  }

  private succeed(resultJson: string | undefined): void {
    if (resultJson === undefined) {
      this.deliver({ ok: true, result: undefined });
      return;
    }
    this.stats.bytesOut += resultJson.length;
    let value: unknown;
    try {
      value = JSON.parse(resultJson);
    } catch {
      this.fail({ kind: 'invalid', message: 'the sandbox returned a result that is not valid JSON' });
      return;
    }
    const { value: kept, report } = truncateJson(value, this.input.limits.resultBudgetBytes, Buffer.byteLength(resultJson, 'utf8'));
    this.deliver({ ok: true, result: kept, ...(report ? { truncatedResult: report } : {}) });
  }

  private fail(error: RunError): void {
    this.deliver({ ok: false, result: undefined, error });
  }

  private deliver(o: { ok: boolean; result: unknown; error?: RunError; truncatedResult?: TruncationReport }): void {
    if (this.outcomeSent) return;
    this.outcomeSent = true;
    this.abort.abort();
    clearTimeout(this.backstop);
    clearInterval(this.silenceWatch);
    // Replies still held are for a script that has stopped.
    clearTimeout(this.holdTimer);
    this.stats.ms = performance.now() - this.input.startedAt;
    // The abort above stops every call not yet sent; changes already sent get their grace to
    // answer, and the answer waits for them so it can say what became of each.
    if (this.pending.size === 0) this.resolveWith(o);
    else {
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.resolveWith(o);
      };
      const timer = setTimeout(finish, SETTLE_WAIT_MS);
      this.onSettled.push(finish);
    }
  }

  private resolveWith(o: { ok: boolean; result: unknown; error?: RunError; truncatedResult?: TruncationReport }): void {
    const truncated = {
      ...(o.truncatedResult ? { result: o.truncatedResult } : {}),
      ...(this.logsDropped > 0 ? { logLines: this.logsDropped } : {}),
    };
    this.resolveOutcome({
      ok: o.ok,
      result: o.result,
      logs: this.logs,
      stats: this.stats,
      ...(o.error ? { error: o.error } : {}),
      ...(this.input.warnings.length > 0 ? { warnings: this.input.warnings } : {}),
      ...(Object.keys(truncated).length > 0 ? { truncated } : {}),
    });
  }

  private release(r: SessionRelease): void {
    if (this.releasedAlready) return;
    this.releasedAlready = true;
    clearTimeout(this.cancelTimer);
    clearTimeout(this.backstop);
    clearInterval(this.silenceWatch);
    this.resolveRelease(r);
  }

  private errorOf(end: Exclude<RunEndStatus, { status: 'ok' }>): RunError {
    const { script } = this.input;
    switch (end.status) {
      case 'exception': {
        const thrown = end.error;
        const mapped = thrown.stack ? script.sourceMap.mapStack(thrown.stack) : undefined;
        const where = mapped?.position ? { line: mapped.position.line, col: mapped.position.col } : {};
        const stack = mapped && mapped.stack.includes('\n') ? { stack: mapped.stack } : {};
        const failure = thrown.bridgeCallId !== undefined ? this.failures.get(thrown.bridgeCallId) : undefined;
        if (failure) {
          const { error, call } = failure;
          return {
            kind: runKindOf(error.kind, call),
            message: error.message,
            ...where,
            ...stack,
            details: bridgeDetails(error, call),
          };
        }
        const kind: RunErrorKind = thrown.preludeKind ?? 'exception';
        return { kind, message: `${thrown.name}: ${thrown.message}`, ...where, ...stack };
      }
      case 'syntax': {
        const pos = end.jsLine !== undefined && end.jsCol !== undefined ? script.sourceMap.toUser(end.jsLine, end.jsCol) : undefined;
        return { kind: 'syntax', message: `not executed: ${end.message}`, ...(pos ? { line: pos.line, col: pos.col } : {}) };
      }
      case 'killed':
        return { kind: 'killed', reason: end.reason, message: `${end.message}${this.describePending()}` };
      case 'deadlock':
        return {
          kind: 'exception',
          message: 'the script is waiting for a promise that can never settle: no bridge call is pending and the sandbox has no timers or other events',
        };
      case 'invalid':
        return { kind: 'invalid', message: end.message };
      case 'cancelled':
        return { kind: 'cancelled', message: 'the run was cancelled' };
      case 'crashed':
        return { kind: 'crashed', message: end.message };
    }
  }
}

/** Maps a bridge error kind to the run's error kind; timeouts belong to tasks when waiting on one. */
function runKindOf(kind: BridgeErrorKind, call: BridgeCall | undefined): RunErrorKind {
  switch (kind) {
    case 'timeout':
      return call?.kind === 'waitTask' ? 'task' : 'api';
    case 'internal':
      return 'crashed';
    default:
      return kind;
  }
}

function bridgeDetails(error: BridgeError, call: BridgeCall | undefined): Record<string, unknown> {
  const details: Record<string, unknown> = { bridgeKind: error.kind, ...(error.outcome ? { outcome: error.outcome } : {}) };
  const method = error.method ?? (call?.kind === 'request' ? call.method : undefined);
  const path = error.path ?? (call?.kind === 'request' ? call.path : undefined);
  if (method) details.method = method;
  if (path) details.path = path;
  if (call?.kind === 'waitTask') details.upid = call.upid;
  if (error.upid !== undefined) details.upid = error.upid;
  if (error.node !== undefined) details.node = error.node;
  if (error.exitstatus !== undefined) details.exitstatus = error.exitstatus;
  if (error.status !== undefined) details.status = error.status;
  if (error.errors) details.errors = error.errors;
  if (error.risk) details.risk = error.risk;
  if (call && call.kind !== 'rejected' && call.cluster) details.cluster = call.cluster;
  return details;
}

function crashOrMemory(message: string): RunError {
  if (/memory|heap|allocation/i.test(message)) {
    return { kind: 'killed', reason: 'memory', message: `the script exhausted the sandbox's memory (${message.slice(0, 200)}); the sandbox process was replaced` };
  }
  return { kind: 'crashed', message: `the sandbox process failed: ${message.slice(0, 500)}; it was replaced` };
}

/** A handler's deferred bookkeeping must not break the session that runs it. */
function runTask(task: () => void): void {
  try {
    task();
  } catch {
    // The handler owns its failures (the bridge records an audit failure and fails closed).
  }
}
