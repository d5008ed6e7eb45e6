/**
 * The client loads undici and opens its pool with the first request (transport.ts), so a server
 * starting from a cached schema answers tools/list before it talks to a cluster. What must not
 * change: bad TLS settings are refused when the client is created, and a client closed before its
 * first request refuses requests as any closed client does, sending nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PveConfigError, PveConnectionError } from '../../src/client/index.js';
import { callOutcomeOf } from '../../src/client/outcome.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { caught, clientFor, startSim } from './sim.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSim({ preset: 'small' });
});
afterAll(async () => {
  await sim.close();
});

describe('the pool opens with the first request', () => {
  it('refuses an unreadable CA file and a malformed pin when the client is created', () => {
    expect(() => clientFor(sim, { tls: { caFile: '/nonexistent/ca.pem' } })).toThrow(PveConfigError);
    expect(() => clientFor(sim, { tls: { fingerprint: 'not-a-fingerprint' } })).toThrow(PveConfigError);
  });

  it('a client closed before its first request refuses it as closed, sending nothing', async () => {
    const client = clientFor(sim);
    await client.close();
    const before = sim.counters.snapshot().total;
    const err = await caught(() => client.request('POST', '/nodes/pve1/qemu/100/status/start'));
    expect(err).toBeInstanceOf(PveConnectionError);
    expect(err.message).toMatch(/the client for cluster '.*' is closed; create a new one/);
    expect((err as PveConnectionError).sent).toBe(false);
    expect(callOutcomeOf(err, 'POST')).toBe('not-sent');
    expect(sim.counters.snapshot().total).toBe(before);
  });
});
