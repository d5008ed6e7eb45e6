/**
 * What became of a call, as `callOutcomeOf` tells it, for the faults a real node shows: a reset
 * after the request arrived, an abort before and after dispatch, a malformed 200 to a write, a
 * refused connection, a retried read, and a write to a guest on an offline node (simulator).
 */
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callOutcomeOf, PveAbortedError, PveConnectionError, PveNodeOfflineError, PveOutcomeUnknownError, PveProtocolError, PveTimeoutError } from '../../src/client/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { type FaultServer, faultClient, json, startFaultServer } from './fault-server.js';
import { caught, clientFor, startSim } from './sim.js';

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

const START = '/nodes/pve1/qemu/100/status/start';

describe('a request that left', () => {
  it('a write whose connection is reset after the request arrived is outcome unknown, sent once', async () => {
    server.behave = (req) => req.socket.destroy();
    const client = faultClient(server, { retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 5 } });
    try {
      const err = await caught(() => client.request('POST', START));
      expect(err).toBeInstanceOf(PveOutcomeUnknownError);
      expect(err).toMatchObject({ sent: true, method: 'POST', path: START });
      expect(callOutcomeOf(err, 'POST')).toBe('unknown');
      expect(server.received).toEqual([`POST /api2/json${START}`]);
    } finally {
      await client.close();
    }
  });

  it('a malformed 200 to a write is outcome unknown (it may have run); to a read it is a protocol error', async () => {
    server.behave = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>proxy says hi</html>');
    };
    const client = faultClient(server);
    try {
      const write = await caught(() => client.request('POST', START));
      expect(write).toBeInstanceOf(PveOutcomeUnknownError);
      expect((write as PveOutcomeUnknownError).cause).toBeInstanceOf(PveProtocolError);
      expect(write.message).toMatch(/was sent, but its answer was not a Proxmox API answer \(HTTP 200, body is not JSON\): the outcome is unknown/);
      expect(callOutcomeOf(write, 'POST')).toBe('unknown');
      const read = await caught(() => client.request('GET', '/nodes'));
      expect(read).toBeInstanceOf(PveProtocolError);
      expect(callOutcomeOf(read, 'GET')).toBe('failed');
    } finally {
      await client.close();
    }
  });

  it('a read retried to the end says how often it was tried', async () => {
    server.behave = (_req, res) => json(res, 503, { data: null, message: 'busy' });
    const client = faultClient(server, { retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 5 } });
    try {
      const err = await caught(() => client.request('GET', '/nodes'));
      expect(err.message).toMatch(/HTTP 503: busy.*\(gave up after 3 attempts\)$/);
      expect(server.received).toHaveLength(3);
      expect(callOutcomeOf(err, 'GET')).toBe('failed');
    } finally {
      await client.close();
    }
  });
});

describe('aborts', () => {
  it('aborted while queued behind the concurrency cap: not sent, and nothing reached the server', async () => {
    server.behave = () => undefined;
    const client = faultClient(server, { maxConcurrency: 1, timeouts: { headersMs: 600 } });
    try {
      const first = caught(() => client.request('GET', '/nodes'));
      await until(() => server.received.length === 1);
      const controller = new AbortController();
      const queued = caught(() => client.request('POST', START, undefined, { signal: controller.signal }));
      controller.abort(new Error('run ended'));
      const err = await queued;
      expect(err).toBeInstanceOf(PveAbortedError);
      expect(err).toMatchObject({ sent: false });
      expect(err.message).toMatch(/before it was sent: nothing reached Proxmox/);
      expect(callOutcomeOf(err, 'POST')).toBe('not-sent');
      expect(server.received).toEqual(['GET /api2/json/nodes']);
      await client.close().catch(() => undefined);
      await first;
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it('the deadline passing while queued is a request timeout that was not sent', async () => {
    server.behave = () => undefined;
    const client = faultClient(server, { maxConcurrency: 1, timeouts: { headersMs: 600 } });
    try {
      const first = caught(() => client.request('GET', '/nodes'));
      await until(() => server.received.length === 1);
      const err = await caught(() => client.request('DELETE', '/nodes/pve1/qemu/100/snapshot/s1', undefined, { timeoutMs: 100 }));
      expect(err).toBeInstanceOf(PveTimeoutError);
      expect(err).toMatchObject({ phase: 'request', sent: false });
      expect(callOutcomeOf(err, 'DELETE')).toBe('not-sent');
      await client.close().catch(() => undefined);
      await first;
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it('aborted after dispatch: a read was sent (failed), a write is outcome unknown', async () => {
    server.behave = () => undefined;
    const client = faultClient(server, { timeouts: { headersMs: 5_000 } });
    try {
      const readAbort = new AbortController();
      const read = caught(() => client.request('GET', '/nodes', undefined, { signal: readAbort.signal }));
      await until(() => server.received.length === 1);
      readAbort.abort(new Error('run ended'));
      const readErr = await read;
      expect(readErr).toBeInstanceOf(PveAbortedError);
      expect(readErr).toMatchObject({ sent: true });
      expect(callOutcomeOf(readErr, 'GET')).toBe('failed');

      const writeAbort = new AbortController();
      const write = caught(() => client.request('POST', START, undefined, { signal: writeAbort.signal }));
      await until(() => server.received.length === 2);
      writeAbort.abort(new Error('run ended'));
      const writeErr = await write;
      expect(writeErr).toBeInstanceOf(PveOutcomeUnknownError);
      expect(writeErr).toMatchObject({ failure: 'cancelled after it was sent', sent: true });
      expect(callOutcomeOf(writeErr, 'POST')).toBe('unknown');

      // The call's own deadline after dispatch says it timed out, and still that it may have run.
      const timed = await caught(() => client.request('PUT', '/nodes/pve1/qemu/100/config', { memory: 512 }, { timeoutMs: 200 }));
      expect(timed).toBeInstanceOf(PveOutcomeUnknownError);
      expect((timed as PveOutcomeUnknownError).failure).toMatch(/^timed out after it was sent: the request took longer than 200 ms/);
    } finally {
      await client.close();
    }
  });
});

describe('nothing sent', () => {
  it('a refused connection says nothing was sent, for a write too', async () => {
    const port = await freePort();
    const client = faultClient({ ...server, url: `https://127.0.0.1:${port}` });
    try {
      const err = await caught(() => client.request('POST', START));
      expect(err).toBeInstanceOf(PveConnectionError);
      expect(err).toMatchObject({ code: 'pve-connection', causeCode: 'ECONNREFUSED', sent: false });
      expect(err.message).toMatch(/Nothing was sent\.$/);
      expect(callOutcomeOf(err, 'POST')).toBe('not-sent');
    } finally {
      await client.close();
    }
  });
});

describe('a write to a guest on an offline node (simulator)', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSim();
  });
  afterAll(async () => {
    await sim.close();
  });

  it('says the node is offline, and that the write may or may not have reached it', async () => {
    const local = sim.cluster.nodeNames[0]!;
    const vm = sim.cluster.guests().find((g) => g.type === 'qemu' && g.node !== local)!;
    sim.faults.setNodeOffline(vm.node, 'refused');
    const client = clientFor(sim);
    try {
      const err = await caught(() => client.request('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node: vm.node, vmid: vm.vmid }));
      expect(err).toBeInstanceOf(PveNodeOfflineError);
      expect(err).toMatchObject({ status: 595, node: vm.node });
      expect(err.message).toMatch(new RegExp(`could not reach node '${vm.node}': it is offline`));
      expect(err.message).toMatch(/Whether this POST reached .* is unknown/);
      expect(err.message).not.toMatch(/VM\.Audit|lacks/);
      expect(callOutcomeOf(err, 'POST')).toBe('unknown');
      // A read of it is retried, says how often, and failed: reads are safe to repeat.
      const read = await caught(() => client.request('GET', '/nodes/{node}/qemu/{vmid}/config', { node: vm.node, vmid: vm.vmid }));
      expect(read.message).toMatch(/gave up after 3 attempts/);
      expect(callOutcomeOf(read, 'GET')).toBe('failed');
    } finally {
      sim.faults.setNodeOnline(vm.node);
      await client.close();
    }
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error('the condition never held');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
