import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PveAbortedError, PveConnectionError, PveHttpError, PveInputError, PveNodeOfflineError, PveNotFoundError, PvePermissionError, PveTimeoutError } from '../../src/client/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { caught, clientFor, startSim } from './sim.js';

let sim: RunningSimulator;
let node: string;
let vmid: number;

beforeAll(async () => {
  sim = await startSim();
  const g = sim.cluster.guests().find((x) => x.type === 'qemu');
  if (!g) throw new Error('the demo preset has no VM');
  node = g.node;
  vmid = g.vmid;
});
afterAll(async () => {
  await sim.close();
});

async function withClient<T>(fn: (c: ReturnType<typeof clientFor>) => Promise<T>, overrides = {}): Promise<T> {
  const client = clientFor(sim, overrides);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

describe('typed errors from the simulator', () => {
  it('PvePermissionError names the ACL path and privilege a privilege-separated token lacks', async () => {
    const t = sim.access.addToken('root@pam', 'noacl', { privsep: true });
    const err = await withClient((c) => caught(() => c.request('GET', '/nodes/{node}/qemu/{vmid}/status/current', { node, vmid })), { auth: { kind: 'token', tokenId: t.tokenid, secret: t.secret } });
    expect(err).toBeInstanceOf(PvePermissionError);
    expect(err).toMatchObject({ status: 403, aclPath: `/vms/${vmid}`, privilege: 'VM.Audit' });
    expect(err.message).toContain(t.tokenid);
    expect(err.message).not.toContain(t.secret);
  });

  it('PveHttpError carries the per-parameter errors of a 400', async () => {
    const err = await withClient((c) => caught(() => c.request('GET', '/nodes/{node}/qemu/{vmid}/status/current', { node, vmid: 'abc' })));
    expect(err).toBeInstanceOf(PveHttpError);
    expect((err as PveHttpError).status).toBe(400);
    expect((err as PveHttpError).errors).toHaveProperty('vmid');
    expect((err as PveHttpError).method).toBe('GET');
  });

  it('PveNotFoundError for a missing guest, an unknown node and an unknown path', async () => {
    await withClient(async (c) => {
      const guest = await caught(() => c.request('GET', '/nodes/{node}/qemu/{vmid}/status/current', { node, vmid: 999_999 }));
      expect(guest).toBeInstanceOf(PveNotFoundError);
      expect((guest as PveNotFoundError).status).toBe(500);
      expect((guest as PveNotFoundError).pveMessage).toMatch(/^Configuration file .* does not exist$/);
      const nodeErr = await caught(() => c.request('GET', '/nodes/{node}/qemu', { node: 'no-such-node' }));
      expect(nodeErr).toBeInstanceOf(PveNotFoundError);
      const pathErr = await caught(() => c.request('GET', '/nodes/{node}/no-such-thing', { node }));
      expect(pathErr).toBeInstanceOf(PveNotFoundError);
      expect((pathErr as PveNotFoundError).status).toBe(501);
    });
  });

  it('PveNodeOfflineError (595) names the offline node', async () => {
    const offline = sim.cluster.nodeNames.find((n) => n !== node)!;
    sim.faults.setNodeOffline(offline, 'refused');
    try {
      const err = await withClient((c) => caught(() => c.request('GET', '/nodes/{node}/qemu', { node: offline })));
      expect(err).toBeInstanceOf(PveNodeOfflineError);
      expect(err).toMatchObject({ status: 595, node: offline });
    } finally {
      sim.faults.setNodeOnline(offline);
    }
  });

  it('PveTimeoutError for the overall request timeout and for the headers timeout', async () => {
    const rule = sim.faults.add({ path: '/version', method: 'GET', latencyMs: 1_500 });
    try {
      const overall = await withClient((c) => caught(() => c.request('GET', '/version', undefined, { timeoutMs: 300 })));
      expect(overall).toBeInstanceOf(PveTimeoutError);
      expect(overall).toMatchObject({ phase: 'request', timeoutMs: 300 });
      const headers = await withClient((c) => caught(() => c.request('GET', '/version')), {
        timeouts: { headersMs: 200 },
        retry: { attempts: 1 },
      });
      expect(headers).toBeInstanceOf(PveTimeoutError);
      expect((headers as PveTimeoutError).phase).toBe('headers');
    } finally {
      sim.faults.remove(rule);
    }
  });

  it('PveAbortedError when the caller aborts', async () => {
    const rule = sim.faults.add({ path: '/version', method: 'GET', latencyMs: 1_000 });
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('user cancelled')), 100);
      const err = await withClient((c) => caught(() => c.request('GET', '/version', undefined, { signal: controller.signal })));
      expect(err).toBeInstanceOf(PveAbortedError);
    } finally {
      sim.faults.remove(rule);
    }
  });

  it('PveConnectionError (transient) when nothing listens on the port', async () => {
    const port = await freePort();
    const client = clientFor(sim, { url: `https://127.0.0.1:${port}` });
    try {
      const err = await caught(() => client.request('GET', '/version'));
      expect(err).toBeInstanceOf(PveConnectionError);
      expect(err).toMatchObject({ code: 'pve-connection', causeCode: 'ECONNREFUSED', transient: true });
    } finally {
      await client.close();
    }
  });

  it('PveInputError before sending when a path placeholder has no value', async () => {
    const before = sim.counters.snapshot().total;
    const err = await withClient((c) => caught(() => c.request('GET', '/nodes/{node}/qemu', {})));
    expect(err).toBeInstanceOf(PveInputError);
    expect(sim.counters.snapshot().total).toBe(before);
  });
});

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
