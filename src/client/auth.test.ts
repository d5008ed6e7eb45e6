import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../simulator/index.js';
import { DEFAULT_TICKET_LIFETIME_MS, TicketAuthenticator, type TicketEndpoint } from './auth.js';
import { PveAuthError } from './http-errors.js';
import { PveClient } from './client.js';

/** A ticket server with PVE's rule: a ticket (or renewal) older than the lifetime is refused. */
function fakeServer(lifetimeMs: number, now: () => number) {
  const issued = new Map<string, number>();
  const calls: Array<{ kind: 'password' | 'renew' | 'expired-renew' }> = [];
  let n = 0;
  const endpoint: TicketEndpoint = async (params) => {
    const at = issued.get(params.password as string);
    if (at !== undefined) {
      if (now() - at >= lifetimeMs) {
        calls.push({ kind: 'expired-renew' });
        throw new PveAuthError({ status: 401, pveMessage: 'authentication failure', method: 'POST', path: '/access/ticket' }, 'expired');
      }
      calls.push({ kind: 'renew' });
    } else {
      calls.push({ kind: 'password' });
    }
    const ticket = `PVE:root@pam:${(n++).toString(16)}::sig`;
    issued.set(ticket, now());
    return { username: 'root@pam', ticket, CSRFPreventionToken: 'csrf' };
  };
  /** Whether the server would accept this cookie now. */
  const valid = (cookie: string): boolean => {
    const at = issued.get(cookie.replace('PVEAuthCookie=', ''));
    return at !== undefined && now() - at < lifetimeMs;
  };
  return { endpoint, calls, valid };
}

describe('tickets are never sent expired', () => {
  it('a server idle past the lifetime: the next call logs in with the password, never sends or renews the dead ticket', async () => {
    let t = 0;
    const server = fakeServer(DEFAULT_TICKET_LIFETIME_MS, () => t);
    const auth = new TicketAuthenticator({ kind: 'ticket', username: 'root', password: 'pw' }, server.endpoint, () => t);
    expect(server.valid((await auth.credentials()).read.cookie as string)).toBe(true);
    t += DEFAULT_TICKET_LIFETIME_MS + 60_000;
    const cred = await auth.credentials();
    expect(server.valid(cred.read.cookie as string)).toBe(true);
    expect(server.calls.map((c) => c.kind)).toEqual(['password', 'password']);
  });

  it('renews before expiry whatever renewAfterMs says (3 h configured, 2 h tickets)', async () => {
    let t = 0;
    const server = fakeServer(DEFAULT_TICKET_LIFETIME_MS, () => t);
    const auth = new TicketAuthenticator({ kind: 'ticket', username: 'root', password: 'pw', renewAfterMs: 3 * 3_600_000 }, server.endpoint, () => t);
    for (let i = 0; i < 40; i++) {
      expect(server.valid((await auth.credentials()).change.cookie as string), `at ${t / 60_000} min`).toBe(true);
      t += 20 * 60_000;
    }
    expect(server.calls.filter((c) => c.kind === 'expired-renew')).toEqual([]);
    expect(server.calls.filter((c) => c.kind === 'password')).toHaveLength(1);
  });

  it('learns a shorter lifetime from a 401 and renews before it from then on', async () => {
    let t = 0;
    const lifetime = 10_000;
    const server = fakeServer(lifetime, () => t);
    const auth = new TicketAuthenticator({ kind: 'ticket', username: 'root', password: 'pw' }, server.endpoint, () => t);
    const first = await auth.credentials();
    t += 12_000;
    const stale = await auth.credentials();
    const sentAt = t;
    expect(server.valid(stale.read.cookie as string)).toBe(false); // the one request PVE's 2 h default cannot foresee
    t += 3_000; // PVE delays the 401
    expect(await auth.recover(stale, sentAt)).toBe(true);
    expect(first.generation).toBe(stale.generation);
    expect(auth.ticketLifetimeMs).toBe(12_000);
    for (let i = 0; i < 60; i++) {
      t += 1_700;
      expect(server.valid((await auth.credentials()).read.cookie as string), `step ${i}`).toBe(true);
    }
    t += 30_000; // idle past it
    expect(server.valid((await auth.credentials()).read.cookie as string)).toBe(true);
    expect(server.calls.filter((c) => c.kind === 'expired-renew')).toEqual([]);
  });
});

describe('tickets against the simulator (3 s lifetime, PVE 401 delay of 3 s)', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ preset: 'demo', port: 0, ticketLifetimeSec: 3, authFailureDelayMs: 3_000 });
  });
  afterAll(async () => {
    await sim?.close();
  });
  const client = (extra: Record<string, unknown> = {}) =>
    new PveClient({ name: 'sim', url: sim.url, auth: { kind: 'ticket', username: 'root', realm: 'pam', password: sim.rootPassword, ...extra }, tls: { fingerprint: sim.fingerprint } });
  const timed = async (c: PveClient): Promise<number> => {
    const started = performance.now();
    await c.request('GET', '/version');
    return performance.now() - started;
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('with the lifetime known: no call waits for a delayed 401, busy or idle past the lifetime', async () => {
    const c = client({ ticketLifetimeMs: 3_000 });
    try {
      await timed(c);
      for (const gap of [1_000, 1_000, 1_000, 1_000, 3_500]) {
        await sleep(gap);
        expect(await timed(c), `after ${gap} ms`).toBeLessThan(1_500);
      }
    } finally {
      await c.close();
    }
  }, 30_000);

  it("with PVE's default assumed: one delayed 401 teaches the lifetime, then no call waits for one", async () => {
    const c = client();
    try {
      await timed(c);
      await sleep(3_300);
      expect(await timed(c)).toBeGreaterThanOrEqual(2_900); // the one 401 (PVE delays it)
      for (const gap of [1_200, 1_200, 1_200, 1_200, 3_500]) {
        await sleep(gap);
        expect(await timed(c), `after ${gap} ms`).toBeLessThan(1_500);
      }
    } finally {
      await c.close();
    }
  }, 40_000);
});
