/**
 * The server's handle of one type-check process (the child process that runs the TypeScript
 * checker; the words are those of src/process/supervisor.ts, which spawns, handshakes, checks
 * every message and kills it). On top of that this turns requests into promises with deadlines:
 * any protocol breach, missed deadline or exit kills the process and rejects what was pending
 * with a `ChildProcessError`; deciding what a failed check means is the caller's job
 * (`TypeCheckService`).
 *
 * Forked with an empty environment and no inherited node flags (only `TYPECHECK_V8_FLAGS`), on
 * Node's IPC channel.
 */
import { ChildProcessError, SupervisedChild } from '../process/supervisor.js';
import { locateEntry } from '../process/locate.js';
import { checkerToHostSchema, type CheckerToHost, type DeclarationSet, type HostToChecker } from './typecheck-protocol.js';
import type { CheckAnswer } from './checker.js';
import type { ScriptCompile } from './compiled.js';

/** The compiled entry of the type-check process. */
export function locateTypeCheckEntry(): string {
  return locateEntry(import.meta.url, 'typecheck-entry.js', 'type-check process entry');
}

/**
 * V8 flags of the type-check process, measured with the PVE 9.1 SDK loaded and one check made
 * (docs/benchmarks.md, "Desktop"): 160 MB of RSS without them, 115 MB with them.
 */
export const TYPECHECK_V8_FLAGS: readonly string[] = [
  // The default young generation (up to 16 MB per semi-space, three of them) is sized for
  // throughput: the checker's garbage is short-lived but its live heap is ~50 MB, so a 1 MB
  // semi-space only promotes sooner. −25 MB of RSS; checks took as long.
  '--max-semi-space-size=1',
  // TurboFan's optimized code and its compiler zones (malloc arenas that stay resident) cost
  // ~20 MB here; the checker's functions stay in the interpreter and the baseline compiler, and
  // neither loading the SDK nor a check was measurably slower on this machine.
  '--no-opt',
];

type Answer = Extract<CheckerToHost, { type: 'loaded' | 'result' | 'compiled' }>;

interface Pending {
  what: string;
  /** The only answer that fits the request (besides `failed`). */
  expects: Answer['type'];
  resolve(msg: Answer): void;
  reject(err: ChildProcessError): void;
  timer: NodeJS.Timeout;
}

export class TypeCheckProcess {
  /** The process's RSS as it last reported it. */
  rssMb = 0;
  private readonly child: SupervisedChild<CheckerToHost, HostToChecker>;
  private readonly pending = new Map<number, Pending>();
  private readonly loads = new Map<string, Promise<void>>();
  private nextId = 1;

  constructor(entry: string, readyTimeoutMs: number, onExit: (gone: TypeCheckProcess, why: ChildProcessError) => void) {
    this.child = new SupervisedChild<CheckerToHost, HostToChecker>(
      {
        name: 'type-check process',
        entry,
        execArgv: [...TYPECHECK_V8_FLAGS],
        channel: { kind: 'ipc' },
        schema: checkerToHostSchema,
        readyTimeoutMs,
        handshake: (msg) => (msg.type === 'ready' ? true : this.refusal(msg)),
      },
      {
        message: (msg) => this.receive(msg),
        ended: (why) => this.rejectAll(why),
        exit: ({ reason }) => onExit(this, reason),
      },
    );
  }

  get ready(): Promise<void> {
    return this.child.ready;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isAlive(): boolean {
    return this.child.isAlive;
  }

  /** Checks answered by this process (for periodic recycling). */
  get uses(): number {
    return this.child.uses;
  }

  /** Builds and warms the checker for a set in this process, once (seconds for a full SDK). */
  load(set: DeclarationSet, timeoutMs: number): Promise<void> {
    let loading = this.loads.get(set.id);
    if (!loading) {
      loading = this.request({ type: 'load', id: this.nextId++, set }, 'loaded', `loading declaration set ${set.id}`, timeoutMs).then((msg) => {
        this.rssMb = msg.rssMb;
      });
      // A failed load may be retried on the next check.
      loading.catch(() => this.loads.delete(set.id));
      this.loads.set(set.id, loading);
    }
    return loading;
  }

  async check(setId: string, code: string, budgetMs: number, timeoutMs: number, transpile = false): Promise<CheckAnswer> {
    const budget = Number.isFinite(budgetMs) ? budgetMs : null;
    const msg = await this.request({ type: 'check', id: this.nextId++, setId, code, budgetMs: budget, ...(transpile ? { transpile } : {}) }, 'result', 'the check', timeoutMs);
    this.child.uses++;
    this.rssMb = msg.rssMb;
    return { result: msg.result, ...(msg.transpiled ? { transpiled: msg.transpiled } : {}), ...(msg.secrets ? { secrets: msg.secrets } : {}) };
  }

  /** Compiles a script that skips the check; not a use (recycling counts checks, the RSS limit the rest). */
  async compile(code: string, timeoutMs: number): Promise<ScriptCompile> {
    const msg = await this.request({ type: 'compile', id: this.nextId++, code }, 'compiled', 'compiling the script', timeoutMs);
    this.rssMb = msg.rssMb;
    return { transpiled: msg.transpiled, secrets: msg.secrets };
  }

  /** Ends the process at once; whatever was pending is rejected. */
  kill(why?: ChildProcessError): void {
    this.child.kill(why);
  }

  private request<T extends Answer['type']>(message: HostToChecker, expects: T, what: string, timeoutMs: number): Promise<Extract<Answer, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.kill(new ChildProcessError(`${what} took more than ${timeoutMs} ms; the type-check process was killed`, 'timeout')), timeoutMs);
      this.pending.set(message.id, { what, expects, resolve: resolve as (msg: Answer) => void, reject, timer });
      if (!this.child.send(message)) {
        this.pending.delete(message.id);
        clearTimeout(timer);
        reject(this.child.ended ?? new ChildProcessError('the type-check process is not running'));
      }
    });
  }

  /** What a message other than `ready` means before the process is ready: why it cannot serve. */
  private refusal(msg: CheckerToHost): string {
    return msg.type === 'fatal' ? `the type-check process gave up: ${msg.message}` : `the type-check process answered a request it was not asked (${msg.type}); it was killed`;
  }

  private receive(msg: CheckerToHost): void {
    if (msg.type === 'fatal') {
      this.kill(new ChildProcessError(`the type-check process gave up: ${msg.message}`, 'exit'));
      return;
    }
    const waiting = msg.type === 'ready' ? undefined : this.pending.get(msg.id);
    if (!waiting || (msg.type !== 'failed' && msg.type !== waiting.expects)) {
      this.child.breach(`answered a request it was not asked (${msg.type})`);
      return;
    }
    this.pending.delete(msg.id);
    clearTimeout(waiting.timer);
    if (msg.type === 'failed') waiting.reject(new ChildProcessError(`${waiting.what} failed in the type-check process: ${msg.message}`, 'failed'));
    else waiting.resolve(msg);
  }

  private rejectAll(why: ChildProcessError): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(why);
    }
  }
}
