/**
 * The one supervisor of the server's child processes: how each is spawned, announces itself,
 * talks, is ended, is found gone, and is replaced.
 *
 * Words, the same in src/process, src/sandbox, src/script and the docs:
 * - **child process**: an OS process the server spawns and supervises with this module. The
 *   server has two kinds, and nothing else in those folders is called a worker:
 * - **sandbox worker**: the child process that runs isolated-vm (entry `src/sandbox/worker.ts`,
 *   started as `src/sandbox/worker-launch.ts` says; `SandboxEngine` keeps one per slot);
 * - **type-check process**: the child process that runs the TypeScript checker (entry
 *   `src/script/typecheck-entry.ts`; `TypeCheckService` keeps one, and its warmed replacement).
 * `SupervisedChild` is the server's handle of one child process; `ChildSlot` (child-slot.ts) is
 * the place one serves from, where it is counted, recycled and replaced.
 *
 * Every child process is started with the Node flags it is given (the sandbox worker's include
 * Node's permission model) and an empty environment unless told otherwise, so no credential
 * reaches it; its stdout and stderr go to the server's stderr, labelled with its name and pid,
 * never to stdout (the MCP stdio channel). It must send its ready message within a deadline.
 * Everything it sends is checked against its schema before anyone sees it: a child is not
 * trusted, and one that sends something malformed is killed. It is ended only with SIGKILL —
 * isolated-vm makes graceful exits unreliable, and a type-check process has nothing to save.
 *
 * The channel is either Node's IPC (`fork`, JSON serialisation) or a socket pair on the child's
 * fd 3 carrying the owner's own framing (the sandbox worker's frames, see src/sandbox/frames.ts):
 * the supervisor pulls the messages each chunk completes from the owner's decoder.
 * Messages go straight from the channel through the schema to their receiver, with no promise or
 * queue in between: the sandbox worker's channel carries ~1,000 messages a second. The receiver
 * is the owner's `message` hook, or whoever the owner hands the child to for a while
 * (`receiver`: a sandbox run while it holds its worker gets its messages without a relay).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { ZodType } from 'zod';
import { TurnWriter } from './turn-writer.js';

/** What went wrong: why a child process stopped serving or could not start, or a request failed. */
export type ChildErrorKind =
  /** It could not be spawned, or its ready message refused to serve. */
  | 'start'
  /** It missed a deadline: the ready message's, or one of its owner's. */
  | 'timeout'
  /** It broke the protocol: a malformed message, broken framing, an answer nobody asked for. */
  | 'breach'
  /** It exited (or was killed) without the server asking. */
  | 'exit'
  /** Its owner stopped it (recycling, cancellation, close). */
  | 'stopped'
  /** It could not serve one request, and still serves. */
  | 'failed';

export class ChildProcessError extends Error {
  constructor(
    message: string,
    readonly kind: ChildErrorKind = 'stopped',
  ) {
    super(message);
    this.name = 'ChildProcessError';
  }

  /** The child process went past a deadline (it has been killed). */
  get timedOut(): boolean {
    return this.kind === 'timeout';
  }
}

/** Turns the bytes of a socket channel into messages (still to be checked against the schema). */
export interface ChannelDecoder {
  /** The messages this chunk completed. */
  push(chunk: Buffer): readonly unknown[];
  /** Set when the framing is broken: the child is then killed. */
  readonly failure: Error | undefined;
}

export type ChannelSpec<In, D extends ChannelDecoder> =
  /** Node's IPC channel (`child_process.fork`, JSON serialisation). */
  | { kind: 'ipc' }
  /** A socket pair on the child's fd 3, framed by the owner. */
  | {
      kind: 'socket';
      encode(message: In): Buffer;
      /** Built once per child. */
      decoder(): D;
    };

export interface ChildSpec<Out extends { type: string }, In, D extends ChannelDecoder = ChannelDecoder> {
  /** How the child is named in errors and its log lines: `sandbox worker`, `type-check process`. */
  name: string;
  /** The compiled script it runs. */
  entry: string;
  /** Node flags, before the entry. */
  execArgv: readonly string[];
  /** Arguments after the entry. */
  args?: readonly string[];
  /** Its environment (default: empty). */
  env?: NodeJS.ProcessEnv;
  channel: ChannelSpec<In, D>;
  /** Everything it sends is checked against this before its owner sees it. */
  schema: ZodType<Out>;
  /** How long it has to send its ready message. */
  readyTimeoutMs: number;
  /**
   * Reads each message that arrives before the child is ready: `true` when it is the ready message,
   * the reason when the child cannot serve (it is killed and `ready` rejects with the reason),
   * `false` to pass over it.
   */
  handshake(message: Out): boolean | string;
}

/** How a child process ended, as the OS reported it. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why: the owner's or the supervisor's reason when it was killed, else that it exited. */
  reason: ChildProcessError;
}

/** Who gets a child's checked messages after the ready one. */
export interface ChildReceiver<Out> {
  message(message: Out): void;
}

export interface ChildHooks<Out> extends ChildReceiver<Out> {
  /** At once, when the child stops serving: killed, or found gone (before the OS reports its exit). */
  ended?(reason: ChildProcessError): void;
  /** The OS reported that the process is gone. */
  exit?(exit: ChildExit): void;
}

/** The server's handle of one child process. */
export class SupervisedChild<Out extends { type: string }, In, D extends ChannelDecoder = ChannelDecoder> {
  /** Resolves on the ready message; rejects with a ChildProcessError when the child cannot serve. */
  readonly ready: Promise<void>;
  /** The socket channel's decoder (its limits may be changed); undefined on Node's IPC. */
  readonly decoder: D | undefined;
  /** The ready message, once it arrived. */
  readyMessage: Out | undefined;
  /** How often its owner used it (runs, checks), for recycling. */
  uses = 0;
  /**
   * Where its messages go instead of the `message` hook while set: the owner hands the child to
   * one user for a while (a sandbox run), and takes it back by clearing it.
   */
  receiver: ChildReceiver<Out> | undefined;
  private readonly child: ChildProcess;
  private readonly socket: Socket | undefined;
  /** The socket channel's writes, one per event-loop turn (turn-writer.ts). */
  private readonly writer: TurnWriter | undefined;
  private readonly encode: ((message: In) => Buffer) | undefined;
  private alive = true;
  private endReason: ChildProcessError | undefined;
  private readyTimer: NodeJS.Timeout | undefined;
  private settleReady: ((error?: ChildProcessError) => void) | undefined;

  constructor(
    private readonly spec: ChildSpec<Out, In, D>,
    private readonly hooks: ChildHooks<Out>,
  ) {
    const env = spec.env ?? {};
    if (spec.channel.kind === 'ipc') {
      this.child = fork(spec.entry, [...(spec.args ?? [])], { execArgv: [...spec.execArgv], env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'json' });
      this.child.on('message', (raw: unknown) => this.receive(raw));
    } else {
      this.child = spawn(process.execPath, [...spec.execArgv, spec.entry, ...(spec.args ?? [])], { env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
      this.encode = spec.channel.encode;
      const decoder = spec.channel.decoder();
      this.decoder = decoder;
      const socket = this.child.stdio[3] as Socket;
      this.socket = socket;
      this.writer = new TurnWriter(socket, (err) => this.kill(new ChildProcessError(`cannot send to the ${spec.name}: ${err.message}`, 'exit')));
      socket.on('data', (chunk: Buffer) => {
        for (const raw of decoder.push(chunk)) this.receive(raw);
        const broken = decoder.failure;
        if (broken) this.kill(new ChildProcessError(`the ${spec.name} broke its channel (${broken.message}); it was killed`, 'breach'));
      });
      socket.on('error', (err) => this.kill(new ChildProcessError(`the ${spec.name}'s channel failed: ${err.message}`, 'exit')));
    }
    const forward = (chunk: Buffer) => process.stderr.write(`[${spec.name} ${this.child.pid ?? '?'}] ${chunk.toString('utf8')}`);
    this.child.stdout?.on('data', forward);
    this.child.stderr?.on('data', forward);

    this.ready = new Promise<void>((resolve, reject) => {
      this.settleReady = (error) => {
        clearTimeout(this.readyTimer);
        this.settleReady = undefined;
        if (error) reject(error);
        else resolve();
      };
    });
    // Rejections are read by whoever awaits `ready`; an unobserved one must not crash the server.
    this.ready.catch(() => undefined);
    this.readyTimer = setTimeout(() => this.kill(new ChildProcessError(`the ${spec.name} sent no ready signal within ${spec.readyTimeoutMs} ms`, 'timeout')), spec.readyTimeoutMs);

    this.child.on('exit', (code, signal) => {
      const reason = this.endReason ?? new ChildProcessError(`the ${spec.name} exited (${signal ?? `code ${code}`})`, 'exit');
      this.stop(reason);
      hooks.exit?.({ code, signal, reason });
    });
    this.child.on('error', (err) => this.kill(new ChildProcessError(`the ${spec.name} failed: ${err.message}`, 'start')));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isAlive(): boolean {
    return this.alive;
  }

  /** Why it stopped serving; undefined while it serves. */
  get ended(): ChildProcessError | undefined {
    return this.endReason;
  }

  /**
   * Sends one message; false when the child no longer serves. A failed write kills it. On a socket
   * channel the messages of one event-loop turn leave in one write (turn-writer.ts).
   */
  send(message: In): boolean {
    if (!this.alive) return false;
    if (this.encode) return (this.writer as TurnWriter).write(this.encode(message));
    if (!this.child.connected) return false;
    this.child.send(message as object, (err: Error | null | undefined): void => {
      if (err) this.kill(new ChildProcessError(`cannot send to the ${this.spec.name}: ${err.message}`, 'exit'));
    });
    return true;
  }

  /** Ends the process at once with SIGKILL; `ready` rejects if it had not settled. */
  kill(why: ChildProcessError = new ChildProcessError(`the ${this.spec.name} was stopped`)): void {
    if (!this.alive) return;
    this.stop(why);
    this.child.kill('SIGKILL');
    this.socket?.destroy();
  }

  /** Kills it for breaking the protocol, with `what` it did. */
  breach(what: string): void {
    this.kill(new ChildProcessError(`the ${this.spec.name} ${what}; it was killed`, 'breach'));
  }

  private stop(why: ChildProcessError): void {
    if (!this.alive) return;
    this.alive = false;
    this.endReason = why;
    this.settleReady?.(why);
    this.hooks.ended?.(why);
  }

  private receive(raw: unknown): void {
    if (!this.alive) return;
    const parsed = this.spec.schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      this.breach(`sent a malformed message (${issue ? `${issue.path.join('.') || 'message'}: ${issue.message}` : 'malformed'})`);
      return;
    }
    const message = parsed.data;
    if (this.settleReady) {
      const verdict = this.spec.handshake(message);
      if (verdict === true) {
        this.readyMessage = message;
        this.settleReady();
      } else if (verdict !== false) {
        this.kill(new ChildProcessError(verdict, 'start'));
      }
      return;
    }
    (this.receiver ?? this.hooks).message(message);
  }
}
