/**
 * How the server starts a sandbox worker (the child process that runs isolated-vm; the words are
 * those of src/process/supervisor.ts): its Node flags, the permission model that confines it, and
 * its handshake and channel as the supervisor runs them.
 *
 * isolated-vm contains realm escapes, but a V8 bug that lets code out of the isolate would land in
 * the worker's own Node realm, running as the server's user. The worker holds no secrets, yet that
 * user can read the ones the server holds: its config file, `/proc/<server pid>/environ`, SSH keys.
 * Under Node's permission model the worker's realm may read only the files it runs from (its
 * compiled code, the prelude, isolated-vm and zod), and may not write files, start processes or
 * threads, use WASI or open the inspector. What the model leaves open (docs/sandbox.md,
 * "Processes"): `--allow-addons`, which isolated-vm needs, lets `process.dlopen` load an addon from
 * any path; the network is not restricted before Node 25.
 */
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { SupervisedChild, type ChildHooks } from '../process/supervisor.js';
import { encodeFrame, FrameReader } from './frames.js';
import { NO_SNAPSHOT_FLAG, workerToHostSchema, type HostToWorker, type WorkerToHost } from './worker-protocol.js';
import { ISOLATED_VM_PACKAGES } from './ivm.js';
import { packageRoot } from './locate.js';

/**
 * The packages the worker may load from node_modules (a test checks this against its imports):
 * whichever isolated-vm is installed (see ivm.ts) with the loader 6.x uses, zod, and TypeScript
 * (loaded on the first compile of a run that skips the type-check process).
 */
export const WORKER_PACKAGES = [...ISOLATED_VM_PACKAGES, 'node-gyp-build', 'zod', 'typescript'] as const;

export interface WorkerLaunch {
  /** Node arguments, the worker's path last. */
  args: string[];
  /** Paths the worker may read; empty when it is not confined. */
  readable: string[];
  confined: boolean;
}

export class WorkerConfinementError extends Error {
  constructor(reason: string) {
    super(`the sandbox worker cannot be confined: ${reason}; run the server on Node >= 20.19, or set "sandbox": {"confineWorker": false} in the configuration to run scripts without that layer`);
    this.name = 'WorkerConfinementError';
  }
}

const ALPINE_MARKER = '/etc/alpine-release';

/** The Node flag that turns the permission model on: stable `--permission` since Node 22.13/23.5. */
function permissionFlag(): string | undefined {
  const flags = process.allowedNodeEnvironmentFlags;
  if (flags.has('--permission')) return '--permission';
  if (flags.has('--experimental-permission')) return '--experimental-permission';
  return undefined;
}

/** The directory of an installed package, as the worker resolves it; undefined when it is not installed. */
function packageDir(fromFile: string, name: string): string | undefined {
  try {
    return path.dirname(createRequire(fromFile).resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

/** The paths a worker at `workerPath` needs to read, with symlinks resolved too. */
function workerReadablePaths(workerPath: string): string[] {
  const root = packageRoot();
  const paths = new Set<string>();
  const add = (p: string): void => {
    paths.add(p);
    try {
      paths.add(realpathSync(p));
    } catch {
      // A path that does not exist yet is still granted as named.
    }
  };
  const absolute = path.resolve(workerPath);
  const insideDist = root !== undefined && !path.relative(path.join(root, 'dist'), absolute).startsWith('..');
  if (root) {
    add(path.join(root, 'dist'));
    add(path.join(root, 'sandbox'));
    add(path.join(root, 'package.json'));
  }
  if (!insideDist) add(path.dirname(absolute));
  for (const name of WORKER_PACKAGES) {
    const dir = packageDir(absolute, name);
    if (!dir) continue;
    add(dir);
    // node-gyp-build picks musl or glibc binaries by looking for this file when it loads; on Node
    // 24 a denied look throws instead of answering "absent". It is a distro marker, nothing secret.
    if (name === 'node-gyp-build') paths.add(ALPINE_MARKER);
  }
  return [...paths];
}

/** How a launch's confinement reads in the server's log and in `config check`. */
export function describeConfinement(confined: boolean): string {
  return confined ? "confined by Node's permission model" : 'NOT confined (sandbox.confineWorker is false)';
}

/**
 * The arguments that start the worker at `workerPath`, confined unless `confine` is false. Throws
 * WorkerConfinementError when confinement is asked for and this Node cannot provide it.
 */
export function workerLaunch(workerPath: string, confine: boolean): WorkerLaunch {
  if (!confine) return { args: [NO_SNAPSHOT_FLAG, workerPath], readable: [], confined: false };
  const flag = permissionFlag();
  if (!flag || !process.allowedNodeEnvironmentFlags.has('--allow-addons')) {
    throw new WorkerConfinementError(`Node ${process.version} has no permission model with --allow-addons`);
  }
  const readable = workerReadablePaths(workerPath);
  return {
    args: [
      NO_SNAPSHOT_FLAG,
      flag,
      '--allow-addons',
      ...readable.map((p) => `--allow-fs-read=${p}`),
      // The worker's stderr reaches the server's log: the model's own notices would be noise there.
      '--disable-warning=ExperimentalWarning',
      '--disable-warning=SecurityWarning',
      workerPath,
    ],
    readable,
    confined: true,
  };
}

/**
 * V8 flags of every sandbox worker, before the launch's own. The worker's Node heap holds frames
 * and answers in passing (the script's objects live in the isolate's own heap), so the default
 * young generation, which grows to 16 MB semi-spaces as soon as a run allocates, is headroom it
 * never needs: 61 → 55–56 MB of RSS after a first run (docs/benchmarks.md, "session 11").
 *
 * A run's isolate is fresh, so whatever TurboFan optimizes in it (the prelude's call path, the
 * script's callbacks) is compiled again by the next run, on a background thread that competes with
 * the server and the nodes' answers for the machine's cores: in a 300-call `Promise.all` sweep a
 * third of the worker's CPU was those compiles. Eight times V8's default interrupt budget (66 KB
 * of bytecode run per profiler tick, a few ticks before a function is considered for
 * optimization) lets only code that stays hot get there: the worker's CPU per call in the sweep
 * 256–311 → 167–189 µs, and a script that computes for 0.4 s (200,000 objects sorted and walked
 * 20 times) runs as fast as before (docs/benchmarks.md, "session 12"). Node 20 only: see
 * `workerV8Flags`.
 */
export const WORKER_V8_FLAGS: readonly string[] = workerV8Flags(process.versions.node);

/**
 * The flags for a Node version: `--interrupt-budget` is V8 11's (Node 20); V8 12 and later (Node
 * 22, 24) replaced it with per-tier invocation counts and refuse the flag at start ("bad option"),
 * so there the worker keeps V8's own tiering, which also has Maglev in between.
 */
export function workerV8Flags(nodeVersion: string): string[] {
  const major = Number(nodeVersion.split('.')[0]);
  return ['--max-semi-space-size=1', ...(major < 22 ? ['--interrupt-budget=524288'] : [])];
}

/** The server's handle of one sandbox worker; `decoder.limits` bounds what it may send. */
export type SandboxWorker = SupervisedChild<WorkerToHost, HostToWorker, FrameReader>;

const READY_TIMEOUT_MS = 15_000;
/** Until a run says otherwise a worker only sends header-only messages (ready, fatal). */
const IDLE_FRAME_LIMITS = { maxHeaderBytes: 64 * 1024, maxPayloadBytes: 0 };

/**
 * Starts a sandbox worker as `launch` says: an empty environment (no credentials can leak into
 * it), its output on our stderr, its channel on fd 3 (length-prefixed frames, see frames.ts), and
 * only ever ended with SIGKILL. A worker launched confined whose ready message says it is not is
 * killed before it gets a script.
 */
export function startWorker(launch: WorkerLaunch, hooks: ChildHooks<WorkerToHost>): SandboxWorker {
  return new SupervisedChild<WorkerToHost, HostToWorker, FrameReader>(
    {
      name: 'sandbox worker',
      entry: launch.args.at(-1) as string,
      execArgv: [...WORKER_V8_FLAGS, ...launch.args.slice(0, -1)],
      channel: { kind: 'socket', encode: encodeFrame, decoder: () => new FrameReader(IDLE_FRAME_LIMITS) },
      schema: workerToHostSchema,
      readyTimeoutMs: READY_TIMEOUT_MS,
      handshake: (msg) => {
        if (msg.type === 'fatal') return `the sandbox worker did not start: ${msg.message}`;
        if (msg.type !== 'ready') return false;
        // Launched under the permission model yet not confined by it: never run scripts there.
        if (launch.confined && !msg.confined)
          return `the sandbox worker did not start: Node ${process.version} started it without the permission model confining it (writes, processes or threads allowed)`;
        return true;
      },
    },
    {
      ...hooks,
      ended: (why) => {
        // A worker that breaks the framing or the schema is compromised or broken either way.
        if (why.kind === 'breach') process.stderr.write(`pve-code-mcp: ${why.message}\n`);
        hooks.ended?.(why);
      },
    },
  );
}
