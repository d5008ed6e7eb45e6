/**
 * Bounded I/O against a real local HTTPS server: a body that never ends is cut at the size cap
 * (and memory stays bounded), a body that trickles is cut by the total-body deadline, a server
 * that hangs before or after its headers is cut by those timeouts — and each says what became of
 * the call (`callOutcomeOf`).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callOutcomeOf, MIN_MAX_RESPONSE_BYTES, PveOutcomeUnknownError, PveResponseTooLargeError, PveTimeoutError } from '../../src/client/index.js';
import { caught } from './sim.js';
import { type FaultServer, faultClient, startEndlessServer, startFaultServer, streamForever } from './fault-server.js';

let server: FaultServer;

beforeAll(async () => {
  server = await startFaultServer();
});
afterEach(() => {
  server.received.length = 0;
});
afterAll(async () => {
  await server.close();
});

const CAP = MIN_MAX_RESPONSE_BYTES;

/** A full GC now, so RSS shows what is kept rather than what the collector has not reached yet. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
/** Long enough that only the rule under test can end the exchange within the test's time. */
const SLOW = { connectMs: 5_000, headersMs: 60_000, bodyMs: 60_000, bodyTotalMs: 60_000, requestMs: 60_000 };

function neverEnding(): void {
  server.behave = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8' });
    res.write('{"data":[');
    streamForever(res, Buffer.from('{"type":"qemu","vmid":100,"name":"x"},'.repeat(1_700)));
  };
}

describe('response-size cap', () => {
  it('cuts a never-ending body as soon as it passes the cap, and memory stays bounded', async () => {
    const endless = await startEndlessServer();
    const client = faultClient({ ...server, ...endless }, { maxResponseBytes: CAP, timeouts: SLOW });
    try {
      // One runaway answer first: the TLS session, V8's young generation growing to the allocation
      // rate and malloc's arenas are paid once (measured: 35-50 MiB with a 16 MiB cap), not per body.
      await caught(() => client.request('GET', '/cluster/resources'));
      collectGarbage();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      // Runaway answers in a row: each is cut at the cap, and none is kept.
      for (let i = 0; i < 4; i++) {
        const err = await caught(() => client.request('GET', '/cluster/resources'));
        expect(err).toBeInstanceOf(PveResponseTooLargeError);
        expect(err).toMatchObject({ code: 'pve-too-large', limitBytes: CAP });
        expect((err as PveResponseTooLargeError).receivedBytes).toBeLessThan(CAP + 1024 * 1024);
        expect(err.message).toMatch(/larger than 16777216 bytes.*Ask for less.*maxResponseBytes/);
        expect(callOutcomeOf(err, 'GET')).toBe('failed');
        // What a cut exchange leaves is garbage: collected, it is gone (a kept body would not be).
        collectGarbage();
      }
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const growth = peak - before;
      console.log(`rss before ${(before / 2 ** 20).toFixed(1)} MiB, peak growth over 4 runaway answers ${(growth / 2 ** 20).toFixed(1)} MiB (cap ${CAP / 2 ** 20} MiB)`);
      expect(growth).toBeLessThan(2 * CAP);
    } finally {
      await client.close();
      endless.close();
    }
  }, 30_000);

  it('a write whose answer is cut for its size has an unknown outcome', async () => {
    neverEnding();
    const client = faultClient(server, { maxResponseBytes: CAP, timeouts: SLOW });
    try {
      const err = await caught(() => client.request('POST', '/nodes/pve1/qemu/100/snapshot', { snapname: 's1' }));
      expect(err).toBeInstanceOf(PveOutcomeUnknownError);
      expect((err as PveOutcomeUnknownError).cause).toBeInstanceOf(PveResponseTooLargeError);
      expect(err.message).toMatch(/was sent, but its answer was cut for its size .*the outcome is unknown/);
      expect(callOutcomeOf(err, 'POST')).toBe('unknown');
    } finally {
      await client.close();
    }
  }, 30_000);

  it('refuses an announced content-length above the cap before reading the body', async () => {
    server.behave = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(CAP * 4) });
      res.write('{"data":');
    };
    const client = faultClient(server, { maxResponseBytes: CAP, timeouts: SLOW });
    try {
      const err = await caught(() => client.request('GET', '/cluster/resources'));
      expect(err).toMatchObject({ code: 'pve-too-large', receivedBytes: CAP * 4 });
    } finally {
      await client.close();
    }
  });

  it('is never set below the sandbox reply cap', () => {
    expect(() => faultClient(server, { maxResponseBytes: CAP - 1 })).toThrow(/at least 16777216 bytes/);
  });
});

describe('deadlines', () => {
  it('cuts a trickling body by the total-body deadline, though every byte comes within the idle timeout', async () => {
    server.behave = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":"');
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('a')), 20);
    };
    const client = faultClient(server, { timeouts: { ...SLOW, bodyMs: 2_000, bodyTotalMs: 500 } });
    try {
      const started = Date.now();
      const err = await caught(() => client.request('GET', '/nodes/pve1/tasks'));
      expect(err).toBeInstanceOf(PveTimeoutError);
      expect(err).toMatchObject({ phase: 'body', timeoutMs: 500, sent: true });
      expect(err.message).toMatch(/whole body must arrive within 500 ms/);
      expect(Date.now() - started).toBeLessThan(1_900);
      expect(callOutcomeOf(err, 'GET')).toBe('failed');
    } finally {
      await client.close();
    }
  });

  it('a server hung after its headers: a read times out (body), a write is outcome unknown', async () => {
    server.behave = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
    };
    const client = faultClient(server, { timeouts: { ...SLOW, bodyMs: 300 } });
    try {
      const read = await caught(() => client.request('GET', '/nodes'));
      expect(read).toMatchObject({ code: 'pve-timeout', phase: 'body' });
      const write = await caught(() => client.request('PUT', '/nodes/pve1/qemu/100/config', { memory: 2048 }));
      expect(write).toBeInstanceOf(PveOutcomeUnknownError);
      expect(write.message).toMatch(/timed out \(body\)/);
      expect(callOutcomeOf(write, 'PUT')).toBe('unknown');
    } finally {
      await client.close();
    }
  });

  it('a server hung before its headers: a read fails (it was sent), a write is outcome unknown', async () => {
    server.behave = () => undefined;
    const client = faultClient(server, { timeouts: { ...SLOW, headersMs: 300 } });
    try {
      const read = await caught(() => client.request('GET', '/nodes'));
      expect(read).toMatchObject({ code: 'pve-timeout', phase: 'headers', sent: true });
      expect(callOutcomeOf(read, 'GET')).toBe('failed');
      const write = await caught(() => client.request('POST', '/nodes/pve1/qemu/100/status/start'));
      expect(write).toMatchObject({ code: 'pve-outcome-unknown', failure: 'timed out (headers)' });
      expect(callOutcomeOf(write, 'POST')).toBe('unknown');
      expect(server.received).toEqual(['GET /api2/json/nodes', 'POST /api2/json/nodes/pve1/qemu/100/status/start']);
    } finally {
      await client.close();
    }
  });

  it('keeps every default below the run wall of 60 s, the whole call below the 55 s call deadline', async () => {
    const { DEFAULT_TIMEOUTS } = await import('../../src/client/index.js');
    expect(DEFAULT_TIMEOUTS.requestMs).toBeLessThan(55_000);
    for (const ms of Object.values(DEFAULT_TIMEOUTS)) expect(ms).toBeLessThanOrEqual(DEFAULT_TIMEOUTS.requestMs);
  });
});
