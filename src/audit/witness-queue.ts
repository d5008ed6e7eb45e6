/**
 * The queue every network witness publishes from. `write()` must never block the audit's append
 * (it runs under the log's lock), so records go into a bounded queue that one publisher drains in
 * order. Every failure is reported through the hooks — a refused or broken connection, a TLS
 * failure, a non-2xx answer, a timeout, a record dropped from a full queue — so a witness that
 * stops witnessing is an `alert`, not a silence. What each transport can tell is in
 * witness-syslog.ts and witness-https.ts.
 */

export interface WitnessHooks {
  /** A record could not be published: what, where and why, in one sentence. */
  onFailure(message: string): void;
  /** A record was published again after failures. */
  onRecovered?(): void;
}

/** Records waiting at most; past it the oldest is dropped (and reported). */
const WITNESS_QUEUE_LIMIT = 1000;

export interface Queued {
  seq: number;
  ts: string;
  line: string;
}

/**
 * A bounded queue drained by one publish at a time, in order. A failed record is reported and
 * not retried: the next record names a later end of the same chain, which is what verification
 * needs most.
 */
export abstract class QueuedWitness {
  abstract readonly description: string;
  private readonly queue: Queued[] = [];
  private draining = false;
  private failing = false;
  private closed = false;
  private readonly idle: Array<() => void> = [];

  constructor(
    private readonly hooks: WitnessHooks,
    private readonly limit = WITNESS_QUEUE_LIMIT,
  ) {}

  /** Deliver one record; rejects with an error whose message says why it was not delivered. */
  protected abstract publish(item: Queued): Promise<void>;
  /** Release sockets once the queue is empty after close(). */
  protected abstract release(): void;

  enqueue(item: Queued): void {
    if (this.closed) return;
    if (this.queue.length >= this.limit) {
      const dropped = this.queue.shift() as Queued;
      this.fail(`the audit witness ${this.description} is behind (${this.limit} records waiting): the record of seq ${dropped.seq} was dropped`);
    }
    this.queue.push(item);
    void this.drain();
  }

  /** Resolves once every queued record was published or failed, or after `timeoutMs` (reporting what is left). */
  flush(timeoutMs: number): Promise<void> {
    if (!this.draining && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const left = this.queue.length + (this.draining ? 1 : 0);
        this.fail(`the audit witness ${this.description} did not take ${left} record(s) within ${timeoutMs} ms of the shutdown`);
        resolve();
      }, timeoutMs);
      timer.unref();
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Stops taking records; what is queued is still sent, then the connection is released. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.draining) this.release();
  }

  protected fail(message: string): void {
    this.failing = true;
    try {
      this.hooks.onFailure(message);
    } catch {
      // A reporting hook that throws must not stop the witness.
    }
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    for (let item = this.queue.shift(); item; item = this.queue.shift()) {
      try {
        await this.publish(item);
        if (this.failing) {
          this.failing = false;
          try {
            this.hooks.onRecovered?.();
          } catch {
            // as in fail()
          }
        }
      } catch (err) {
        this.fail(`the audit witness ${this.description} did not take the record of seq ${item.seq}: ${(err as Error).message}`);
      }
    }
    this.draining = false;
    for (const done of this.idle.splice(0)) done();
    if (this.closed) this.release();
  }
}
