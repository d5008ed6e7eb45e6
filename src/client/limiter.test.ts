import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from './limiter.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Work under a slot, as the transport does: acquire, run, release whatever happens. */
async function run<T>(limiter: ConcurrencyLimiter, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  await limiter.acquire(signal);
  try {
    return await fn();
  } finally {
    limiter.release();
  }
}

describe('ConcurrencyLimiter', () => {
  it('never runs more than max at once and starts queued work in order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    let peak = 0;
    const runs = gates.map((g, i) =>
      run(limiter, async () => {
        started.push(i);
        peak = Math.max(peak, limiter.active);
        await g.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limiter.queued).toBe(2);
    gates[1]!.resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
    expect(limiter.active).toBe(0);
  });

  it('drops a queued call when its signal aborts', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const gate = deferred();
    const first = run(limiter, () => gate.promise);
    const controller = new AbortController();
    const second = run(limiter, async () => 'ran', controller.signal);
    controller.abort(new Error('stop'));
    await expect(second).rejects.toThrow('stop');
    expect(limiter.queued).toBe(0);
    gate.resolve();
    await first;
    expect(limiter.active).toBe(0);
  });

  it('releases the slot when the work throws', async () => {
    const limiter = new ConcurrencyLimiter(1);
    await expect(run(limiter, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await run(limiter, async () => 'next')).toBe('next');
  });
});
