/**
 * Server-side handle of one type-check process: forks it, validates everything it says, turns
 * requests into promises with deadlines, and ends it with SIGKILL. Any protocol breach, missed
 * deadline or exit kills the process and rejects what was pending with a typed error; deciding
 * what a failed check means is the caller's job (`CheckerProcess`).
 *
 * Forked with an empty environment and no inherited node flags; its stdout and stderr go to the
 * server's stderr, never stdout (the MCP stdio channel).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkerToHostSchema, type CheckerToHost, type DeclarationSet, type HostToChecker } from './checker-protocol.js';
import type { CheckAnswer } from './typecheck.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ENTRY = 'checker-worker.js';

/** Why the type-check process could not answer. */
export class CheckerProcessError extends Error {
  constructor(
    message: string,
    /** The process went past a deadline (it has been killed). */
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'CheckerProcessError';
  }
}

export class CheckerFilesMissingError extends Error {
  constructor(tried: string) {
    super(`the type-check process entry is missing (looked for ${tried}); build the project first (npm run build)`);
    this.name = 'CheckerFilesMissingError';
  }
}

/**
 * The compiled entry: next to this module when running from dist/, else under the package's
 * dist/ (tests run from the TypeScript sources, but a forked `node` needs JavaScript).
 */
export function locateCheckerWorker(): string {
  const sibling = path.join(here, ENTRY);
  if (existsSync(sibling)) return sibling;
  let dir = here;
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'package.json'))) {
      const built = path.join(dir, 'dist', 'src', 'script', ENTRY);
      if (!existsSync(built)) throw new CheckerFilesMissingError(built);
      return built;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new CheckerFilesMissingError(sibling);
}

type Answer = Extract<CheckerToHost, { type: 'ready' | 'loaded' | 'result' }>;

interface Pending {
  what: string;
  /** The only answer that fits the request (besides `failed`). */
  expects: Answer['type'];
  resolve(msg: Answer): void;
  reject(err: CheckerProcessError): void;
  timer: NodeJS.Timeout;
}

export class CheckerChild {
  readonly ready: Promise<void>;
  /** Checks answered by this process (for periodic recycling). */
  checks = 0;
  /** The process's RSS as it last reported it. */
  rssMb = 0;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private readonly loads = new Map<string, Promise<void>>();
  private nextId = 1;
  private alive = true;
  private ended: CheckerProcessError | undefined;

  constructor(entry: string, readyTimeoutMs: number, onExit: (child: CheckerChild, why: CheckerProcessError) => void) {
    this.child = fork(entry, [], {
      execArgv: [],
      env: {},
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const forward = (chunk: Buffer) => process.stderr.write(`[type-check process ${this.child.pid ?? '?'}] ${chunk.toString('utf8')}`);
    this.child.stdout?.on('data', forward);
    this.child.stderr?.on('data', forward);

    // The ready signal is request 0: it shares the deadline and failure handling of every request.
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.kill(new CheckerProcessError(`the type-check process sent no ready signal within ${readyTimeoutMs} ms`, true)), readyTimeoutMs);
      this.pending.set(0, { what: 'start', expects: 'ready', resolve: () => resolve(), reject, timer });
    });
    // Rejections are read by whoever awaits `ready`; an unobserved one must not crash the server.
    this.ready.catch(() => undefined);

    this.child.on('message', (raw: unknown) => this.receive(raw));
    this.child.on('exit', (code, signal) => {
      this.alive = false;
      const why = this.ended ?? new CheckerProcessError(`the type-check process exited (${signal ?? `code ${code}`})`);
      this.ended = why;
      this.rejectAll(why);
      onExit(this, why);
    });
    this.child.on('error', (err) => this.kill(new CheckerProcessError(`the type-check process failed: ${err.message}`)));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isAlive(): boolean {
    return this.alive;
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
    this.checks++;
    this.rssMb = msg.rssMb;
    return msg.transpiled ? { result: msg.result, transpiled: msg.transpiled } : { result: msg.result };
  }

  /** Ends the process at once; whatever was pending is rejected. */
  kill(why = new CheckerProcessError('the type-check process was stopped')): void {
    this.ended ??= why;
    this.rejectAll(this.ended);
    if (!this.alive) return;
    this.alive = false;
    this.child.kill('SIGKILL');
  }

  private request<T extends Answer['type']>(message: HostToChecker, expects: T, what: string, timeoutMs: number): Promise<Extract<Answer, { type: T }>> {
    if (!this.alive || !this.child.connected) return Promise.reject(this.ended ?? new CheckerProcessError('the type-check process is not running'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.kill(new CheckerProcessError(`${what} took more than ${timeoutMs} ms; the type-check process was killed`, true)),
        timeoutMs,
      );
      this.pending.set(message.id, { what, expects, resolve: resolve as (msg: Answer) => void, reject, timer });
      this.child.send(message, (err) => {
        if (err) this.kill(new CheckerProcessError(`cannot send to the type-check process: ${err.message}`));
      });
    });
  }

  private receive(raw: unknown): void {
    const parsed = checkerToHostSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      this.kill(new CheckerProcessError(`the type-check process sent a malformed message (${issue ? `${issue.path.join('.') || 'message'}: ${issue.message}` : 'malformed'}); it was killed`));
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'fatal') {
      this.kill(new CheckerProcessError(`the type-check process gave up: ${msg.message}`));
      return;
    }
    const id = msg.type === 'ready' ? 0 : msg.id;
    const waiting = this.pending.get(id);
    if (!waiting || (msg.type !== 'failed' && msg.type !== waiting.expects)) {
      this.kill(new CheckerProcessError(`the type-check process answered a request it was not asked (${msg.type}); it was killed`));
      return;
    }
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    if (msg.type === 'failed') waiting.reject(new CheckerProcessError(`${waiting.what} failed in the type-check process: ${msg.message}`));
    else waiting.resolve(msg);
  }

  private rejectAll(why: CheckerProcessError): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(why);
    }
  }
}
