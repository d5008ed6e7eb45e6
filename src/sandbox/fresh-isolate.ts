/**
 * An isolate with the trusted prelude installed and no agent code run in it yet: what each run
 * starts from. The worker builds the next one while it is idle, so creating the isolate, its
 * context and the prelude (~3.5 ms together) is off the critical path of a warm run. A fresh
 * isolate serves exactly one run and is disposed with it; it is reused for nothing.
 */
import type { WorkerLimits } from './worker-protocol.js';
import type { IsolatedVm, IvmContext, IvmIsolate, IvmReference } from './ivm.js';

/**
 * What the prelude calls on the host: the run the isolate is handed to (isolate-run.ts,
 * `IsolateSeat`). Functions that need no `this`: isolated-vm calls them as they are given.
 */
export interface IsolateListener {
  readonly onSend: (id: unknown, json: unknown) => void;
  readonly onLog: (line: unknown) => void;
  readonly onDone: (ok: unknown, payload: unknown, dropped: unknown) => void;
}

/** The parts of a run's limits baked into an isolate when it is built. */
export interface IsolateSettings {
  memoryMb: number;
  /** The limits the prelude enforces, as the JSON it is given. */
  preludeConfig: string;
}

export function isolateSettings(limits: WorkerLimits): IsolateSettings {
  return {
    memoryMb: limits.memoryMb,
    preludeConfig: JSON.stringify({
      maxCallBytes: limits.maxCallBytes,
      maxCalls: limits.maxCalls,
      maxPendingCalls: limits.maxPendingCalls,
      maxLogBytes: limits.maxLogBytes,
      maxLogLineBytes: limits.maxLogLineBytes,
      maxResultBytes: limits.maxResultBytes,
    }),
  };
}

export class FreshIsolate<L extends IsolateListener = IsolateListener> {
  readonly isolate: IvmIsolate;
  readonly context: IvmContext;
  /** The prelude's `resolve(id, ok, json)`, held by the host only. */
  readonly resolveRef: IvmReference;

  /**
   * Builds synchronously; throws (with the isolate disposed) when any step fails. The prelude
   * calls `listener`'s functions themselves: its calls go to the listener's module with no relay
   * here.
   */
  constructor(
    ivmModule: IsolatedVm,
    preludeSource: string,
    readonly settings: IsolateSettings,
    timeoutMs: number,
    onCatastrophicError: (message: string) => void,
    readonly listener: L,
  ) {
    this.isolate = new ivmModule.Isolate({ memoryLimit: settings.memoryMb, onCatastrophicError });
    try {
      this.context = this.isolate.createContextSync();
      const { Callback } = ivmModule;
      // Synchronous, so a call leaves for the server while the slice that made it is still running,
      // and a log line before it: a fire-and-forget line could reach the server after the call's
      // reply had started a long slice, and the operator would not see it until that slice ended.
      const send = new Callback(listener.onSend);
      const log = new Callback(listener.onLog);
      // Fire-and-forget: finishing disposes the isolate, which cannot happen inside its own slice.
      const done = new Callback(listener.onDone, { ignored: true });
      this.resolveRef = this.context.evalClosureSync(`return (${preludeSource})($0, $1, $2, $3);`, [send, log, done, settings.preludeConfig], {
        filename: 'pve:prelude',
        timeout: timeoutMs,
        result: { reference: true },
      }) as IvmReference;
    } catch (err) {
      this.dispose();
      throw err;
    }
  }

  matches(settings: IsolateSettings): boolean {
    return this.settings.memoryMb === settings.memoryMb && this.settings.preludeConfig === settings.preludeConfig;
  }

  dispose(): void {
    try {
      if (!this.isolate.isDisposed) this.isolate.dispose();
    } catch {
      // Already disposed (memory limit).
    }
  }
}
