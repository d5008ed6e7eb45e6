/**
 * Server-side handle of one sandbox worker process. The worker is started with the flags of its
 * launch (`--no-node-snapshot`, and Node's permission model unless turned off: see
 * worker-launch.ts), an empty environment (no credentials can leak into it), its stdout/stderr
 * piped to our stderr, so nothing it prints can reach the MCP stdio channel, and its channel to us
 * on fd 3 (length-prefixed frames, see frames.ts). It is only ever ended with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { encodeFrame, FrameReader } from './frames.js';
import { CHANNEL_FD, workerFrameLimits, workerToHostSchema, type HostToWorker, type WorkerToHost } from './ipc.js';
import type { WorkerLaunch } from './worker-launch.js';

export interface WorkerProcessEvents {
  message(msg: WorkerToHost): void;
  /** The process is gone (crash, abort, kill). `signal` is set when a signal ended it. */
  exit(code: number | null, signal: NodeJS.Signals | null): void;
}

const READY_TIMEOUT_MS = 15_000;
/** Until a run says otherwise a worker only sends header-only messages (ready, fatal). */
const IDLE_FRAME_LIMITS = { maxHeaderBytes: 64 * 1024, maxPayloadBytes: 0 };

export class WorkerStartError extends Error {
  constructor(message: string) {
    super(`the sandbox worker did not start: ${message}`);
    this.name = 'WorkerStartError';
  }
}

export class WorkerProcess {
  readonly ready: Promise<void>;
  private readonly child: ChildProcess;
  private readonly channel: Socket;
  private readonly reader: FrameReader;
  private alive = true;
  /** Runs started on this process (for periodic recycling). */
  runsStarted = 0;
  /** The isolated-vm the worker loaded (`isolated-vm 5.0.4`), once it is ready. */
  runtime: string | undefined;

  constructor(launch: WorkerLaunch, events: WorkerProcessEvents) {
    this.child = spawn(process.execPath, launch.args, {
      env: {},
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    this.channel = this.child.stdio[CHANNEL_FD] as Socket;
    const forward = (chunk: Buffer) => process.stderr.write(`[sandbox worker ${this.child.pid ?? '?'}] ${chunk.toString('utf8')}`);
    this.child.stdout?.on('data', forward);
    this.child.stderr?.on('data', forward);

    let onMessage: (raw: unknown) => void = () => undefined;
    this.reader = new FrameReader(IDLE_FRAME_LIMITS, (raw) => onMessage(raw), (err) => {
      // A worker that breaks the framing is compromised or broken either way.
      process.stderr.write(`pve-code-mcp: ${err.message}; killing the sandbox worker\n`);
      this.kill();
    });
    this.channel.on('data', (chunk: Buffer) => this.reader.push(chunk));
    this.channel.on('error', () => this.kill());

    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new WorkerStartError(`no ready signal within ${READY_TIMEOUT_MS} ms`));
        this.kill();
      }, READY_TIMEOUT_MS);
      onMessage = (raw: unknown) => {
        const parsed = workerToHostSchema.safeParse(raw);
        if (!parsed.success) {
          process.stderr.write('pve-code-mcp: sandbox worker sent a malformed message; killing it\n');
          this.kill();
          return;
        }
        if (parsed.data.type === 'ready') {
          clearTimeout(timer);
          if (launch.confined && !parsed.data.confined) {
            // Launched under the permission model yet not confined by it: never run scripts there.
            reject(new WorkerStartError(`Node ${process.version} started it without the permission model confining it (writes, processes or threads allowed)`));
            this.kill();
            return;
          }
          this.runtime = parsed.data.runtime;
          resolve();
        } else if (parsed.data.type === 'fatal') {
          clearTimeout(timer);
          reject(new WorkerStartError(parsed.data.message));
        }
        events.message(parsed.data);
      };
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
    if (!this.alive || this.channel.destroyed) return;
    // What the worker may send back is bounded by the limits of the run it is given.
    if (message.type === 'run') this.reader.limits = workerFrameLimits(message.limits);
    this.channel.write(encodeFrame(message), (err) => {
      if (err) this.kill();
    });
  }

  /** Ends the process at once; isolated-vm makes graceful exits unreliable. */
  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    this.child.kill('SIGKILL');
    this.channel.destroy();
  }
}
