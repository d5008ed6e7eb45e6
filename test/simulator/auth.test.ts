/**
 * Authentication fidelity (checklist points 5–15) over real HTTPS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/simulator/access/totp.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call, login, startTestSimulator } from './helpers.js';

let sim: RunningSimulator;
let now = Date.UTC(2026, 2, 1, 12, 0, 0);
beforeAll(async () => {
  sim = await startTestSimulator({ clock: () => now, rootPassword: 'secret-root' });
  sim.access.addUser('alice@pve', { password: 'alice-password' });
  sim.access.addUser('carol@pve', { password: 'carol-password', enable: false });
});
afterAll(async () => {
  await sim.close();
});

const TICKET_RE = /^PVE:root@pam:[0-9A-F]{8}::[A-Za-z0-9+/=]+$/;
const CSRF_RE = /^[A-Z0-9]{8}:[A-Za-z0-9+/]{43}$/;

describe('simulator authentication', () => {
  it('point 5: exactly the login/realm calls are exempt; /version needs auth', async () => {
    expect((await call(sim, '/api2/json/access/domains', { auth: 'none' })).status).toBe(200);
    expect((await call(sim, '/api2/json/access/ticket', { auth: 'none' })).status).toBe(200);
    const version = await call(sim, '/api2/json/version', { auth: 'none' });
    expect(version.status).toBe(401);
    expect(version.statusText).toBe('No ticket');
    expect((await call(sim, '/api2/json/access/users', { auth: 'none' })).status).toBe(401);
    const realms = (await call(sim, '/api2/json/access/domains', { auth: 'none' })).json.data;
    expect(realms.map((r: { realm: string }) => r.realm).sort()).toEqual(['pam', 'pve']);
  });

  it('point 6: ticket from Cookie or Authorization, token with "=" or space, URL-decoded, ticket wins', async () => {
    const { ticket } = await login(sim, 'root@pam', 'secret-root');
    const byCookie = await call(sim, '/api2/json/version', { auth: 'none', headers: { Cookie: `other=1; PVEAuthCookie=${encodeURIComponent(ticket)}; x=y` } });
    expect(byCookie.status).toBe(200);
    const byAuthHeader = await call(sim, '/api2/json/version', { auth: 'none', headers: { Authorization: `PVEAuthCookie=${ticket}` } });
    expect(byAuthHeader.status).toBe(200);
    const tokenSpace = await call(sim, '/api2/json/version', { auth: 'none', headers: { Authorization: `PVEAPIToken ${sim.token.id}=${sim.token.secret}` } });
    expect(tokenSpace.status).toBe(200);
    const tokenEncoded = await call(sim, '/api2/json/version', {
      auth: 'none',
      headers: { Authorization: `PVEAPIToken=${encodeURIComponent(`${sim.token.id}=${sim.token.secret}`)}` },
    });
    expect(tokenEncoded.status).toBe(200);
    // A (bad) ticket in the cookie wins over a valid token.
    const both = await call(sim, '/api2/json/version', { auth: 'none', headers: { Cookie: 'PVEAuthCookie=PVE:root@pam:00000000::AAAA', Authorization: sim.token.header } });
    expect(both.status).toBe(401);
    const caseMismatch = await call(sim, '/api2/json/version', { auth: 'none', headers: { Cookie: `pveauthcookie=${encodeURIComponent(ticket)}` } });
    expect(caseMismatch.statusText).toBe('No ticket');
  });

  it('point 7: token ID and secret split at the last "=", ":" rejected, enabled/expire/secret checked', async () => {
    // The last "=" splits, so a secret containing "=" can never authenticate (as on PVE).
    const odd = sim.access.addToken('alice@pve', 'eq', { secret: 'se=cret', privsep: false });
    expect((await call(sim, '/api2/json/version', { auth: { tokenHeader: odd.header } })).status).toBe(401);
    const plain = sim.access.addToken('alice@pve', 'plain', { secret: 'secret', privsep: false });
    expect((await call(sim, '/api2/json/version', { auth: { tokenHeader: plain.header } })).status).toBe(200);
    const colon = await call(sim, '/api2/json/version', { auth: { tokenHeader: `PVEAPIToken=${sim.token.id}:${sim.token.secret}` } });
    expect(colon.status).toBe(401);
    const wrong = await call(sim, '/api2/json/version', { auth: { tokenHeader: `PVEAPIToken=${sim.token.id}=00000000-0000-0000-0000-000000000000` } });
    expect(wrong.statusText).toBe('Authentication failed!');
    const disabledOwner = sim.access.addToken('carol@pve', 't1', { privsep: false });
    expect((await call(sim, '/api2/json/version', { auth: { tokenHeader: disabledOwner.header } })).status).toBe(401);
    const expired = sim.access.addToken('alice@pve', 'old', { privsep: false, expire: Math.floor(now / 1000) - 1 });
    expect((await call(sim, '/api2/json/version', { auth: { tokenHeader: expired.header } })).status).toBe(401);
  });

  it('point 8: ticket and CSRF shapes, 2 h lifetime with 300 s skew, renewal with the ticket as password', async () => {
    const start = now;
    const session = await login(sim, 'root@pam', 'secret-root');
    expect(session.ticket).toMatch(TICKET_RE);
    expect(session.csrf).toMatch(CSRF_RE);
    now = start + 7199_000;
    expect((await call(sim, '/api2/json/version', { auth: { ticket: session.ticket } })).status).toBe(200);
    const renewed = await call(sim, '/api2/json/access/ticket', { method: 'POST', auth: 'none', body: { username: 'root@pam', password: session.ticket } });
    expect(renewed.status).toBe(200);
    expect(renewed.json.data.ticket).not.toBe(session.ticket);
    now = start + 7200_000;
    expect((await call(sim, '/api2/json/version', { auth: { ticket: session.ticket } })).status).toBe(401);
    expect((await call(sim, '/api2/json/version', { auth: { ticket: renewed.json.data.ticket } })).status).toBe(200);
    // Minted "in the future" (client clock behind): accepted up to 300 s.
    const future = sim.access.ticketFor('root@pam').ticket;
    now -= 299_000;
    expect((await call(sim, '/api2/json/version', { auth: { ticket: future } })).status).toBe(200);
    now -= 2_000;
    expect((await call(sim, '/api2/json/version', { auth: { ticket: future } })).status).toBe(401);
    now = start;
    const otherUser = await call(sim, '/api2/json/access/ticket', { method: 'POST', auth: 'none', body: { username: 'alice@pve', password: session.ticket } });
    expect(otherUser.status).toBe(200); // root@pam tickets may renew for others
    const alice = await login(sim, 'alice@pve', 'alice-password');
    const steal = await call(sim, '/api2/json/access/ticket', { method: 'POST', auth: 'none', body: { username: 'root@pam', password: alice.ticket } });
    expect(steal.status).toBe(401);
  });

  it('point 9: CSRFPreventionToken required on POST/PUT/DELETE with tickets only', async () => {
    const s = await login(sim, 'root@pam', 'secret-root');
    const noCsrf = await call(sim, '/api2/json/access/users', { method: 'POST', auth: { ticket: s.ticket }, body: { userid: 'csrf1@pve' } });
    expect(noCsrf.status).toBe(401);
    expect(noCsrf.statusText).toBe('Permission denied - invalid csrf token');
    expect(noCsrf.text).toBe('');
    const withCsrf = await call(sim, '/api2/json/access/users', { method: 'POST', auth: { ticket: s.ticket, csrf: s.csrf }, body: { userid: 'csrf1@pve' } });
    expect(withCsrf.status).toBe(200);
    const delNoCsrf = await call(sim, '/api2/json/access/users/csrf1@pve', { method: 'DELETE', auth: { ticket: s.ticket } });
    expect(delNoCsrf.status).toBe(401);
    const alienCsrf = (await login(sim, 'alice@pve', 'alice-password')).csrf;
    const wrongUser = await call(sim, '/api2/json/access/users/csrf1@pve', { method: 'DELETE', auth: { ticket: s.ticket, csrf: alienCsrf } });
    expect(wrongUser.status).toBe(401);
    expect((await call(sim, '/api2/json/version', { auth: { ticket: s.ticket } })).status).toBe(200);
    expect((await call(sim, '/api2/json/access/users/csrf1@pve', { method: 'DELETE' })).status).toBe(200); // token: no CSRF
  });

  it('point 10: login returns username, ticket, CSRF token, cap with seven areas and clustername; no Set-Cookie', async () => {
    const r = await call(sim, '/api2/json/access/ticket', { method: 'POST', auth: 'none', body: { username: 'root', realm: 'pam', password: 'secret-root' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('set-cookie')).toBeNull();
    const d = r.json.data;
    expect(d.username).toBe('root@pam');
    expect(Object.keys(d.cap).sort()).toEqual(['access', 'dc', 'mapping', 'nodes', 'sdn', 'storage', 'vms']);
    expect(d.cap.vms['VM.PowerMgmt']).toBe(1);
    expect(d.clustername).toBe(sim.cluster.clusterName);
    const alice = await login(sim, 'alice@pve', 'alice-password');
    expect(alice.data.clustername).toBeUndefined();
    expect(alice.data.cap.vms).toEqual({});
  });

  it('point 11: a failed login is 401 "authentication failure" with a JSON body', async () => {
    for (const body of [
      { username: 'root@pam', password: 'wrong' },
      { username: 'nobody@pve', password: 'x' },
      { username: 'carol@pve', password: 'carol-password' },
    ]) {
      const r = await call(sim, '/api2/json/access/ticket', { method: 'POST', auth: 'none', body });
      expect(r.status).toBe(401);
      expect(r.statusText).toBe('authentication failure');
      expect(r.json).toEqual({ data: null, message: 'authentication failure\n' });
    }
  });

  it('point 12: 401 answers are delayed (configurable)', async () => {
    sim.settings.authFailureDelayMs = 400;
    try {
      const t0 = Date.now();
      await call(sim, '/api2/json/version', { auth: 'none' });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(380);
      const t1 = Date.now();
      await call(sim, '/api2/json/access/ticket', { method: 'POST', auth: 'none', body: { username: 'root@pam', password: 'nope' } });
      expect(Date.now() - t1).toBeGreaterThanOrEqual(380);
    } finally {
      sim.settings.authFailureDelayMs = 0;
    }
  });

  it('point 13: bad-credential reason text follows the configured PVE version', async () => {
    const badTicket = { Cookie: 'PVEAuthCookie=PVE:root@pam:00000000::AAAA' };
    expect((await call(sim, '/api2/json/version', { auth: 'none', headers: badTicket })).statusText).toBe('Authentication failed!');
    sim.setAuthFailureStyle('legacy');
    try {
      expect((await call(sim, '/api2/json/version', { auth: 'none', headers: badTicket })).statusText).toBe('permission denied - invalid PVE ticket');
      const wrong = await call(sim, '/api2/json/version', { auth: { tokenHeader: `PVEAPIToken=${sim.token.id}=nope` } });
      expect(wrong.statusText).toBe('invalid token value!');
      const noId = await call(sim, '/api2/json/version', { auth: { tokenHeader: 'PVEAPIToken=justtext' } });
      expect(noId.statusText).toBe('no tokenid specified');
    } finally {
      sim.setAuthFailureStyle('modern');
    }
  });

  it('point 14: TOTP second factor with NeedTFA half ticket, totp: and recovery: responses', async () => {
    const secret = 'JBSWY3DPEHPK3PXP';
    sim.access.addUser('tfa@pve', { password: 'tfa-password', totpSecret: secret, recoveryCodes: ['rc-1111'] });
    const first = await call(sim, '/api2/json/access/ticket', { method: 'POST', auth: 'none', body: { username: 'tfa@pve', password: 'tfa-password' } });
    expect(first.status).toBe(200);
    expect(first.json.data.NeedTFA).toBe(1);
    expect(first.json.data.cap).toBeUndefined();
    const half = first.json.data.ticket as string;
    expect(half.startsWith('PVE:!tfa!')).toBe(true);
    expect((await call(sim, '/api2/json/version', { auth: { ticket: half } })).status).toBe(401);
    const code = totpCode(secret, Math.floor(now / 1000));
    const second = await call(sim, '/api2/json/access/ticket', {
      method: 'POST',
      auth: 'none',
      body: { username: 'tfa@pve', 'tfa-challenge': half, password: `totp:${code}` },
    });
    expect(second.status).toBe(200);
    expect(second.json.data.ticket).toMatch(/^PVE:tfa@pve:/);
    const withOtpToo = await call(sim, '/api2/json/access/ticket', {
      method: 'POST',
      auth: 'none',
      body: { username: 'tfa@pve', 'tfa-challenge': half, password: `totp:${code}`, otp: code },
    });
    expect(withOtpToo.status).toBe(401);
    const recovery = { username: 'tfa@pve', 'tfa-challenge': half, password: 'recovery:rc-1111' };
    expect((await call(sim, '/api2/json/access/ticket', { method: 'POST', auth: 'none', body: recovery })).status).toBe(200);
    expect((await call(sim, '/api2/json/access/ticket', { method: 'POST', auth: 'none', body: recovery })).status).toBe(401);
  });

  it('point 15: API tokens on allowtoken=0 calls get 403', async () => {
    const r = await call(sim, '/api2/json/access/ticket', { method: 'POST', body: { username: 'root@pam', password: 'secret-root' } });
    expect(r.status).toBe(403);
    expect(r.statusText).toBe("Permission check failed (URI '/access/ticket' not available with API token, need proper ticket.");
    expect(r.json.message).toBe("Permission check failed (URI '/access/ticket' not available with API token, need proper ticket.\n)\n");
  });
});
