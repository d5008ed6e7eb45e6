/**
 * Server-side handle of one sandbox worker process. The worker is forked with
 * `--no-node-snapshot` (required by isolated-vm on Node >= 20), an empty environment (no
 * credentials can leak into it) and its stdout/stderr piped to our stderr, so nothing it prints
 * can reach the MCP stdio channel. It is only ever ended with SIGKILL.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { workerToHostSchema, type HostToWorker, type WorkerToHost } from './ipc.js';

export interface WorkerProcessEvents {
  message(msg: WorkerToHost): void;
  /** The process is gone (crash, abort, kill). `signal` is set when a signal ended it. */
  exit(code: number | null, signal: NodeJS.Signals | null): void;
}

const READY_TIMEOUT_MS = 15_000;

export class WorkerStartError extends Error {
  constructor(message: string) {
    super(`the sandbox worker did not start: ${message}`);
    this.name = 'WorkerStartError';
  }
}

export class WorkerProcess {
  readonly ready: Promise<void>;
  private readonly child: ChildProcess;
  private alive = true;
  /** Runs started on this process (for periodic recycling). */
  runsStarted = 0;

  constructor(workerPath: string, events: WorkerProcessEvents) {
    this.child = fork(workerPath, [], {
      execArgv: ['--no-node-snapshot'],
      env: {},
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const forward = (chunk: Buffer) => process.stderr.write(`[sandbox worker ${this.child.pid ?? '?'}] ${chunk.toString('utf8')}`);
    this.child.stdout?.on('data', forward);
    this.child.stderr?.on('data', forward);

    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new WorkerStartError(`no ready signal within ${READY_TIMEOUT_MS} ms`));
        this.kill();
      }, READY_TIMEOUT_MS);
      this.child.on('message', (raw: unknown) => {
        const parsed = workerToHostSchema.safeParse(raw);
        if (!parsed.success) {
          // A worker that speaks garbage is compromised or broken either way.
          process.stderr.write('pve-code-mcp: sandbox worker sent a malformed message; killing it\n');
          this.kill();
          return;
        }
        if (parsed.data.type === 'ready') {
          clearTimeout(timer);
          resolve();
        } else if (parsed.data.type === 'fatal') {
          clearTimeout(timer);
          reject(new WorkerStartError(parsed.data.message));
        }
        events.message(parsed.data);
      });
      this.child.on('exit', (code, signal) => {
        clearTimeout(timer);
        this.alive = false;
        reject(new WorkerStartError(`exited with ${signal ?? `code ${code}`}`));
        events.exit(code, signal);
      });
      this.child.on('error', (err) => {
        clearTimeout(timer);
        reject(new WorkerStartError(err.message));
        this.kill();
      });
    });
    // Rejections are read by whoever awaits `ready`; an unobserved one must not crash the server.
    this.ready.catch(() => undefined);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isAlive(): boolean {
    return this.alive;
  }

  send(message: HostToWorker): void {
    if (!this.alive || !this.child.connected) return;
    this.child.send(message, (err) => {
      if (err) this.kill();
    });
  }

  /** Ends the process at once; isolated-vm makes graceful exits unreliable. */
  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    this.child.kill('SIGKILL');
  }
}
