/**
 * Entry point of the sandbox worker process (forked by `SandboxEngine`). This process — and only
 * this one — loads isolated-vm. It holds no secrets: every bridge call goes to the server over IPC.
 * It never writes to stdout, and it exits by being killed (SIGKILL), never gracefully, because
 * isolated-vm can crash or hang at process exit.
 */
import { fstatSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { FramePoster, FrameReader } from './frames.js';
import { FreshIsolate, isolateSettings } from './fresh-isolate.js';
import { CHANNEL_FD, hostToWorkerSchema, NO_SNAPSHOT_FLAG, SERVER_FRAME_LIMITS, type WorkerLimits, type WorkerToHost } from './worker-protocol.js';
import { IsolateRun, IsolateSeat } from './isolate-run.js';
import { loadIsolatedVm, type LoadedIsolatedVm } from './ivm.js';
import { TurnWriter } from '../process/turn-writer.js';
import { locatePrelude } from './locate.js';

function die(message: string): never {
  process.stderr.write(`pve-code-mcp sandbox worker: ${message}\n`);
  process.kill(process.pid, 'SIGKILL');
  throw new Error(message);
}

/** The channel to the server: fd 3, a socket pair the server opened for us. */
function openChannel(): Socket {
  try {
    if (!fstatSync(CHANNEL_FD).isSocket()) throw new Error('not a socket');
  } catch {
    die(`must be started by the server with its channel on fd ${CHANNEL_FD} (stdio: ['ignore', 'pipe', 'pipe', 'pipe'])`);
  }
  return new Socket({ fd: CHANNEL_FD, readable: true, writable: true });
}

/** Whether Node's permission model confines this process (see worker-launch.ts), as it reports itself. */
function confined(): boolean {
  const { permission } = process as { permission?: { has(scope: string): boolean } };
  return permission !== undefined && !permission.has('fs.write') && !permission.has('child') && !permission.has('worker');
}

function main(): void {
  // isolated-vm on Node >= 20 needs the flag; a mis-launched worker must fail loudly, not crash later.
  const flagged = process.execArgv.includes(NO_SNAPSHOT_FLAG) || (process.env.NODE_OPTIONS ?? '').split(/\s+/).includes(NO_SNAPSHOT_FLAG);
  if (!flagged) die(`refusing to start without ${NO_SNAPSHOT_FLAG} (start it as: node ${NO_SNAPSHOT_FLAG} worker.js)`);
  const channel = openChannel();
  // The calls a slice starts, and the messages of one turn, leave in one write (turn-writer.ts).
  const writer = new TurnWriter(channel, () => process.kill(process.pid, 'SIGKILL'));
  const frames = new FramePoster(writer);
  const post = (message: WorkerToHost): void => {
    frames.post(message);
    // The process may be killed before the turn ends: a fatal report leaves at once.
    if (message.type === 'fatal') writer.flush();
  };

  let loaded: LoadedIsolatedVm;
  try {
    loaded = loadIsolatedVm(createRequire(import.meta.url));
  } catch (err) {
    post({ type: 'fatal', message: (err as Error).message.slice(0, 2_000) });
    return die('isolated-vm could not be loaded');
  }
  const { ivm } = loaded;
  const prelude = readFileSync(locatePrelude(), 'utf8');
  const runs = new Map<number, IsolateRun>();
  /** The next run's isolate, built while idle with the last run's settings. */
  let spare: FreshIsolate<IsolateSeat> | undefined;

  const catastrophic = (message: string): void => {
    post({ type: 'fatal', message: message.slice(0, 2_000) });
    // The server kills us on that message; if it cannot, V8's advice is to abort.
    setTimeout(() => process.abort(), 2_000).unref();
  };
  const build = (limits: WorkerLimits): FreshIsolate<IsolateSeat> => new FreshIsolate(ivm, prelude, isolateSettings(limits), limits.entryTimeoutMs, catastrophic, new IsolateSeat());
  const obtain = (limits: WorkerLimits): FreshIsolate<IsolateSeat> => {
    const ready = spare;
    spare = undefined;
    if (ready?.matches(isolateSettings(limits))) return ready;
    ready?.dispose();
    return build(limits);
  };
  const prepareNext = (limits: WorkerLimits): void => {
    if (spare || runs.size > 0) return;
    try {
      spare = build(limits);
    } catch {
      // The next run builds its own and reports what fails.
    }
  };

  /**
   * TypeScript, loaded on the first compile and kept: a run that skips the type-check process is
   * compiled here, in the process that will run it, so the server never parses a script.
   */
  let compiler: Promise<typeof import('../script/compile.js')> | undefined;
  const compile = (jobId: number, code: string): void => {
    const started = performance.now();
    const first = compiler === undefined;
    compiler ??= import('../script/compile.js');
    compiler.then(
      ({ compileScript }) => {
        const loadMs = first ? performance.now() - started : undefined;
        const { transpiled, secrets } = compileScript(code);
        const rssMb = process.memoryUsage.rss() / (1024 * 1024);
        post({ type: 'compiled', jobId, transpiled, secrets, ms: performance.now() - started, ...(loadMs !== undefined ? { loadMs } : {}), rssMb });
      },
      (err: unknown) => {
        compiler = undefined;
        post({ type: 'fatal', jobId, message: `the sandbox worker could not load the compiler: ${err instanceof Error ? err.message : String(err)}`.slice(0, 2_000) });
      },
    );
  };

  let reported = false;
  const onMessage = (raw: unknown): void => {
    const parsed = hostToWorkerSchema.safeParse(raw);
    if (!parsed.success) {
      post({ type: 'fatal', message: 'the worker received a malformed message from the server' });
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'compile') {
      compile(msg.jobId, msg.code);
    } else if (msg.type === 'run') {
      if (runs.has(msg.jobId)) return;
      const { jobId } = msg;
      const { limits } = msg;
      // A run's calls and log lines go straight onto the channel as frames, with no relay here.
      const run = new IsolateRun(jobId, msg.js, limits, {
        post: frames.post.bind(frames),
        end: (end, stats) => {
          runs.delete(jobId);
          post({ type: 'end', jobId, end, stats });
          setImmediate(() => prepareNext(limits));
        },
      });
      runs.set(jobId, run);
      run.start(() => obtain(limits));
    } else if (msg.type === 'reply') {
      runs.get(msg.jobId)?.reply(msg.callId, msg.ok, msg.json);
    } else {
      runs.get(msg.jobId)?.cancel();
    }
  };
  const reader = new FrameReader(SERVER_FRAME_LIMITS);
  channel.on('data', (chunk: Buffer) => {
    for (const message of reader.push(chunk)) onMessage(message);
    // Broken framing: reported once (the server kills us on it); nothing more is read.
    if (reader.failure && !reported) {
      reported = true;
      post({ type: 'fatal', message: reader.failure.message });
    }
  });
  // Orphaned (server gone, channel closed or broken): nothing left to serve.
  const orphaned = (): void => {
    process.kill(process.pid, 'SIGKILL');
  };
  channel.on('end', orphaned);
  channel.on('close', orphaned);
  channel.on('error', orphaned);
  process.on('uncaughtException', (err) => {
    post({ type: 'fatal', message: `worker error: ${err.message}`.slice(0, 2_000) });
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), 100).unref();
  });
  process.on('unhandledRejection', (err) => {
    post({ type: 'fatal', message: `worker error: ${err instanceof Error ? err.message : String(err)}`.slice(0, 2_000) });
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), 100).unref();
  });
  post({ type: 'ready', pid: process.pid, confined: confined(), runtime: loaded.runtime });
}

main();
