import diagnostics_channel from 'node:diagnostics_channel';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PveConnectionError, PveHttpError } from '../../src/client/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { caught, clientFor, memoryLogger, pickVm, startSim } from './sim.js';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSim();
});
afterEach(() => {
  sim.faults.clear();
});
afterAll(async () => {
  await sim.close();
});

describe('retries', () => {
  it('retries a GET after a connection reset and succeeds once the fault is gone', async () => {
    const rule = sim.faults.add({ path: '/nodes', method: 'GET', resetRate: 1 });
    const logger = memoryLogger();
    // The retry is logged at debug level; lifting the fault there makes the second try succeed.
    logger.debug = (m) => {
      logger.debugs.push(m);
      sim.faults.remove(rule);
    };
    const client = clientFor(sim, { logger });
    try {
      const before = sim.counters.get('GET /nodes');
      const nodes = await client.request<unknown[]>('GET', '/nodes');
      expect(nodes).toHaveLength(sim.cluster.nodeNames.length);
      expect(sim.counters.get('GET /nodes') - before).toBe(2);
      expect(logger.debugs).toHaveLength(1);
      expect(logger.debugs[0]).toMatch(/retry 1 of GET \/nodes/);
    } finally {
      await client.close();
    }
  });

  it('gives up on a GET after the configured attempts of 503', async () => {
    sim.faults.add({ path: '/cluster/resources', method: 'GET', errorRate: 1, errorStatus: 503, errorMessage: 'service unavailable' });
    const client = clientFor(sim, { retry: { attempts: 4, baseDelayMs: 5, maxDelayMs: 10 } });
    try {
      const before = sim.counters.get('GET /cluster/resources');
      const err = await caught(() => client.request('GET', '/cluster/resources'));
      expect(err).toBeInstanceOf(PveHttpError);
      expect((err as PveHttpError).status).toBe(503);
      expect(sim.counters.get('GET /cluster/resources') - before).toBe(4);
    } finally {
      await client.close();
    }
  });

  it('does not retry a GET that fails with a 500 handler error', async () => {
    sim.faults.add({ path: '/version', method: 'GET', errorRate: 1, errorStatus: 500, errorMessage: 'boom' });
    const client = clientFor(sim);
    try {
      const before = sim.counters.get('GET /version');
      expect(await caught(() => client.request('GET', '/version'))).toBeInstanceOf(PveHttpError);
      expect(sim.counters.get('GET /version') - before).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('sends a POST exactly once even when its answer is lost after it ran', async () => {
    const { node, vmid } = pickVm(sim, 'stopped');
    sim.faults.add({ path: '/nodes/*/qemu/*/status/start', method: 'POST', resetRate: 1, resetWhen: 'after' });
    const client = clientFor(sim, { retry: { attempts: 5, baseDelayMs: 5, maxDelayMs: 10 } });
    try {
      const key = 'POST /nodes/{node}/qemu/{vmid}/status/start';
      const before = { calls: sim.counters.get(key), writes: sim.counters.snapshot().writes };
      const err = await caught(() => client.request('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node, vmid }));
      expect(err).toBeInstanceOf(PveConnectionError);
      expect(sim.counters.get(key) - before.calls).toBe(1);
      expect(sim.counters.snapshot().writes - before.writes).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('sends a POST exactly once on a 503', async () => {
    const { node, vmid } = pickVm(sim, 'stopped');
    sim.faults.add({ path: '/nodes/*/qemu/*/status/start', method: 'POST', errorRate: 1, errorStatus: 503 });
    const client = clientFor(sim, { retry: { attempts: 5, baseDelayMs: 5, maxDelayMs: 10 } });
    try {
      const key = 'POST /nodes/{node}/qemu/{vmid}/status/start';
      const before = sim.counters.get(key);
      const err = await caught(() => client.request('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node, vmid }));
      expect((err as PveHttpError).status).toBe(503);
      expect(sim.counters.get(key) - before).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('concurrency cap', () => {
  it('keeps at most maxConcurrency requests in flight and queues the rest', async () => {
    sim.faults.add({ path: '/version', method: 'GET', latencyMs: 400 });
    const client = clientFor(sim, { maxConcurrency: 2 });
    try {
      const calls = Array.from({ length: 5 }, () => client.request('GET', '/version'));
      await new Promise((r) => setTimeout(r, 150));
      expect(client.load).toEqual({ active: 2, queued: 3 });
      const results = await Promise.all(calls);
      expect(results).toHaveLength(5);
      expect(client.load).toEqual({ active: 0, queued: 0 });
    } finally {
      await client.close();
    }
  });

  it('sends the request waiting for a slot within the turn of the answer that freed it', async () => {
    // undici writes to a connection reused after its answer ended only in a check phase (it first
    // looks for bytes or a close the server sent meanwhile), and to the connection that answered
    // only in the check phase after that: with a spare connection the waiting request goes out in
    // this turn's check phase. 'next' marks the following turn's check phase.
    sim.faults.add({ path: '/version', method: 'GET', latencyMs: 20 });
    const client = clientFor(sim, { maxConcurrency: 1 });
    const events: string[] = [];
    const ended = (): void => {
      events.push('end');
      setImmediate(() => setImmediate(() => events.push('next')));
    };
    const sent = (): void => void events.push('send');
    diagnostics_channel.subscribe('undici:request:trailers', ended);
    diagnostics_channel.subscribe('undici:client:sendHeaders', sent);
    try {
      await Promise.all(Array.from({ length: 6 }, () => client.request('GET', '/version')));
    } finally {
      diagnostics_channel.unsubscribe('undici:request:trailers', ended);
      diagnostics_channel.unsubscribe('undici:client:sendHeaders', sent);
      await client.close();
    }
    const afterEachEnd = events.flatMap((e, i) => (e === 'end' ? [events[i + 1]] : []));
    expect(afterEachEnd).toHaveLength(6);
    // The first answer's waiter opens the spare connection (a handshake, turns later); from then on
    // one connection is always idle. The last answer frees the slot for nobody.
    expect(afterEachEnd.slice(1, 5)).toEqual(['send', 'send', 'send', 'send']);
  });
});
