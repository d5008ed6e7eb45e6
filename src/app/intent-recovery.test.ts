import { describe, expect, it, vi } from 'vitest';
import type { OrphanIntent } from '../audit/intents.js';
import type { AuditSink } from '../audit/sink.js';
import type { PveClientLike } from '../client/client-like.js';
import { runIntentRecovery } from './intent-recovery.js';

/** An audit with open intents of a gone writer, settled in memory. */
function auditWith(orphans: OrphanIntent[]): { audit: AuditSink; settled: number[]; sweeps: () => number } {
  const settled: number[] = [];
  let sweeps = 0;
  const intents = {
    orphans: () => {
      sweeps++;
      return orphans.filter((o) => !settled.includes(o.seq));
    },
    settle: (s: { intent: number }) => {
      settled.push(s.intent);
      return true;
    },
    retireSettled: () => [],
  };
  return { audit: { intents } as unknown as AuditSink, settled, sweeps: () => sweeps };
}

const orphan: OrphanIntent = { seq: 7, ts: '2026-12-04T00:00:00Z', writer: 'gone', data: { cluster: 'lab', method: 'POST', path: '/nodes/pve1/qemu/100/snapshot', params: { snapname: 'x' } } };
// A client whose lookups fail: the verdict is `unknown`, which settles the intent all the same.
const client = { request: async () => Promise.reject(new Error('no answer')) } as unknown as PveClientLike;

describe('intent recovery after a degraded start', () => {
  it('sweeps at once when a cluster starts serving while intents wait for one, not a period later', async () => {
    const { audit, settled, sweeps } = auditWith([orphan]);
    let serving: PveClientLike | undefined;
    let wake: (() => void) | undefined;
    const stop = new AbortController();
    const said: string[] = [];
    const done = runIntentRecovery(
      { audit, client: () => serving, log: (l) => said.push(l), signal: stop.signal, onClusterServing: (l) => ((wake = l), () => (wake = undefined)) },
      { everyMs: 3_600_000 },
    );
    await vi.waitFor(() => expect(said.join('\n')).toMatch(/1 left for later/));
    expect(settled).toEqual([]);

    serving = client;
    wake?.();
    await vi.waitFor(() => expect(settled).toEqual([7]));

    // Nothing waits any more: another cluster coming up sweeps nothing.
    const before = sweeps();
    wake?.();
    await new Promise((r) => setTimeout(r, 20));
    expect(sweeps()).toBe(before);

    stop.abort();
    await done;
    expect(wake).toBeUndefined();
  });
});
