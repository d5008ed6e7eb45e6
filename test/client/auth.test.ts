import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PveAuthError } from '../../src/client/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { totpCode } from '../../src/simulator/access/totp.js';
import { caught, clientFor, pickVm, startSim, ticketAuth } from './sim.js';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSim({ ticketLifetimeSec: 4 });
});
afterAll(async () => {
  await sim.close();
});

const LOGIN = 'POST /access/ticket';

describe('API token auth', () => {
  it('authenticates with PVEAPIToken and returns the envelope data', async () => {
    const client = clientFor(sim);
    try {
      const version = await client.version();
      expect(version.version).toMatch(/^\d+\.\d+/);
      const nodes = await client.request<Array<{ node: string }>>('GET', '/nodes');
      expect(nodes.map((n) => n.node).sort()).toEqual([...sim.cluster.nodeNames].sort());
      expect(client.authId).toBe(sim.token.id);
    } finally {
      await client.close();
    }
  });

  it('fails with PveAuthError naming the token, never its secret', async () => {
    const wrong = '00000000-0000-4000-8000-000000000000';
    const client = clientFor(sim, { auth: { kind: 'token', tokenId: sim.token.id, secret: wrong } });
    try {
      const err = await caught(() => client.request('GET', '/nodes'));
      expect(err).toBeInstanceOf(PveAuthError);
      expect((err as PveAuthError).status).toBe(401);
      expect(err.message).toContain(sim.token.id);
      expect(err.message + inspect(err) + inspect(client)).not.toContain(wrong);
    } finally {
      await client.close();
    }
  });
});

describe('ticket auth', () => {
  it('logs in, sends the CSRF token on POST and DELETE, and keeps the password out of sight', async () => {
    const client = clientFor(sim, { auth: ticketAuth(sim) });
    try {
      const before = sim.counters.get(LOGIN);
      const { vmid, node } = pickVm(sim, 'stopped');
      // Without the CSRF header the simulator answers 401 to these writes and the re-login would not help.
      const upid = await client.request<string>('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node, vmid });
      expect(upid).toMatch(/^UPID:/);
      await client.waitTask(upid, { timeoutMs: 10_000, pollMs: 50 });
      const snap = await client.request<string>('POST', '/nodes/{node}/qemu/{vmid}/snapshot', { node, vmid, snapname: 'pre' });
      await client.waitTask(snap, { timeoutMs: 10_000, pollMs: 50 });
      const del = await client.request<string>('DELETE', '/nodes/{node}/qemu/{vmid}/snapshot/{snapname}', { node, vmid, snapname: 'pre' });
      await client.waitTask(del, { timeoutMs: 10_000, pollMs: 50 });
      expect(sim.counters.get(LOGIN) - before).toBe(1);
      expect(client.authId).toBe('root@pam');
      expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(sim.rootPassword);
    } finally {
      await client.close();
    }
  });

  it('rejects a wrong password with PveAuthError that does not contain it', async () => {
    const client = clientFor(sim, { auth: ticketAuth(sim, { password: 'not-the-password-xyz' }) });
    try {
      const err = await caught(() => client.request('GET', '/nodes'));
      expect(err).toBeInstanceOf(PveAuthError);
      expect(err.message).toContain('root@pam');
      expect(err.message + inspect(err)).not.toContain('not-the-password-xyz');
    } finally {
      await client.close();
    }
  });

  it('renews the ticket once it is older than renewAfterMs, and keeps working past the old ticket expiry', async () => {
    const client = clientFor(sim, { auth: ticketAuth(sim, { renewAfterMs: 1_000 }) });
    try {
      const start = sim.counters.get(LOGIN);
      await client.request('GET', '/version');
      expect(sim.counters.get(LOGIN) - start).toBe(1);
      await new Promise((r) => setTimeout(r, 1_200));
      await client.request('GET', '/version');
      expect(sim.counters.get(LOGIN) - start).toBe(2);
      // The first ticket (lifetime 4 s) is dead by now; renewals kept the session alive without a 401 re-login.
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 1_100));
        await client.request('GET', '/version');
      }
      expect(sim.counters.get(LOGIN) - start).toBe(6);
    } finally {
      await client.close();
    }
  });

  it('logs in again once when a call gets a 401 (expired ticket) and repeats the call', async () => {
    const client = clientFor(sim, { auth: ticketAuth(sim) });
    try {
      const start = sim.counters.get(LOGIN);
      await client.request('GET', '/version');
      await sim.faults.expireTickets();
      const nodes = await client.request<unknown[]>('GET', '/nodes');
      expect(nodes.length).toBe(sim.cluster.nodeNames.length);
      expect(sim.counters.get(LOGIN) - start).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('answers NeedTFA with the otp callback (TOTP)', async () => {
    const secret = 'JBSWY3DPEHPK3PXP';
    sim.access.addUser('tfa@pve', { password: 'tfa-password', totpSecret: secret });
    const asked: string[] = [];
    const client = clientFor(sim, {
      auth: {
        kind: 'ticket',
        username: 'tfa@pve',
        password: 'tfa-password',
        otp: ({ userid }) => {
          asked.push(userid);
          return totpCode(secret, Math.floor(Date.now() / 1000));
        },
      },
    });
    const noOtp = clientFor(sim, { auth: { kind: 'ticket', username: 'tfa@pve', password: 'tfa-password' } });
    try {
      await client.login();
      expect(asked).toEqual(['tfa@pve']);
      expect(await client.request('GET', '/version')).toHaveProperty('version');
      const err = await caught(() => noOtp.request('GET', '/version'));
      expect(err).toBeInstanceOf(PveAuthError);
      expect(err.message).toMatch(/two-factor/);
    } finally {
      await client.close();
      await noOtp.close();
    }
  });
});
