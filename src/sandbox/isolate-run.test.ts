/**
 * The deadlock verdict against a stalled worker: the prelude's `done` is fire-and-forget, so a
 * finished script's result reaches the worker's thread in libuv's poll phase, after the timers.
 * A worker the OS did not schedule for the grace (two cores under load) finds the grace timer due
 * and the `done` pending in the same turn, and must not call the finished script stuck. A
 * stand-in isolate delivers `done` the way isolated-vm does (an I/O completion, poll phase).
 */
import { stat } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FreshIsolate } from './fresh-isolate.js';
import { IsolateRun, IsolateSeat } from './isolate-run.js';
import { DEFAULT_LIMITS } from './limits.js';
import type { RunEndStatus, WorkerLimits } from './worker-protocol.js';

const LIMITS = { ...DEFAULT_LIMITS, maxRssMb: 65_536 } as unknown as WorkerLimits;

/** An isolate whose script finishes at once and reports it as isolated-vm reports `done`. */
function finishingIsolate(seat: IsolateSeat): FreshIsolate<IsolateSeat> {
  const isolate = { cpuTime: 0n, isDisposed: false, createContextSync: () => ({}), dispose: () => undefined, compileScriptSync: () => script };
  const script = {
    runSync: () => {
      stat(import.meta.dirname, () => seat.onDone(true, '1', 0));
    },
  };
  return { isolate, context: {}, resolveRef: { applySync: () => undefined }, listener: seat } as unknown as FreshIsolate<IsolateSeat>;
}

function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // The OS not scheduling the worker, as seen from its event loop.
  }
}

describe('a finished script in a stalled worker', () => {
  it('ends ok, not as a deadlock, when the grace timer and its done fall due in the same turn', async () => {
    const ends: RunEndStatus[] = [];
    const ended = new Promise<void>((resolve) => {
      const run = new IsolateRun(1, 'return 1;', LIMITS, {
        post: () => undefined,
        end: (end) => {
          ends.push(end);
          resolve();
        },
      });
      const seat = new IsolateSeat();
      run.start(() => finishingIsolate(seat));
    });
    blockFor(200);
    await ended;
    await new Promise((r) => setTimeout(r, 100));
    expect(ends).toEqual([{ status: 'ok', resultJson: '1' }]);
  });
});
