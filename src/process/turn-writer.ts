/**
 * Writes a socket channel's frames once per event-loop turn. Every frame one side writes while
 * handling one turn's events — the replies to the bridge calls whose answers arrived together,
 * the calls a script starts in one slice (`Promise.all`) — leaves in one `writev` instead of one
 * write each. On this project's 2-vCPU machine most of a bridge call's cost was not the work but
 * waking the other process, on a halted vCPU, once per frame in each direction (docs/benchmarks.md,
 * "session 10"); one write per turn wakes it once per batch. Frames stay whole, separate and in
 * order, so the receiver handles each one exactly as before: batching changes how many writes
 * carry them, not what they say.
 *
 * The batch is flushed in the turn's check phase (`setImmediate`), after every I/O callback and
 * microtask of the turn, so a batch never waits for more than the work already in progress.
 */
import type { Socket } from 'node:net';

export class TurnWriter {
  private corked = false;

  /** `onError` hears of a write that failed (the channel is then broken). */
  constructor(
    private readonly socket: Socket,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Queues `frame` for this turn's write; false when the socket is gone. */
  write(frame: Buffer): boolean {
    const { socket } = this;
    if (socket.destroyed) return false;
    if (!this.corked) {
      this.corked = true;
      socket.cork();
      setImmediate(this.flush);
    }
    socket.write(frame, this.written);
    return true;
  }

  /**
   * Writes what this turn queued now: for a last message before the process dies (a worker's
   * `fatal`), which cannot wait for a turn that may never come.
   */
  readonly flush = (): void => {
    if (!this.corked) return;
    this.corked = false;
    if (!this.socket.destroyed) this.socket.uncork();
  };

  private readonly written = (err: Error | null | undefined): void => {
    if (err) this.onError(err);
  };
}
