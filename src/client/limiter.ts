/**
 * Caps how many requests one cluster has in flight; callers beyond the cap wait in FIFO order.
 * PVE nodes are small machines shared with guests, and pveproxy runs a handful of workers.
 */
export class ConcurrencyLimiter {
  #active = 0;
  readonly #waiting: Array<{ start: () => void }> = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency cap must be a positive integer, got ${max}`);
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** A slot, at once or in FIFO order; rejects with the signal's reason when it aborts while queued. Every slot taken is given back with `release`. */
  acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#active < this.max) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.#waiting.indexOf(entry);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal?.reason);
      };
      const entry = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#active++;
          resolve();
        },
      };
      this.#waiting.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(): void {
    this.#active--;
    this.#waiting.shift()?.start();
  }
}
