import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ConsoleSessions, type ConsoleUser } from './sessions.js';

const alice: ConsoleUser = { id: 'alice', via: 'oidc', groups: [], canApprove: false };

function request(cookie: string): IncomingMessage {
  return { headers: { cookie } } as IncomingMessage;
}

/** `name=value` of a Set-Cookie line. */
function pair(setCookie: string): string {
  return setCookie.split(';')[0] as string;
}

describe('console sessions', () => {
  it('sets an HttpOnly, Secure, SameSite=Strict cookie, __Host- prefixed over TLS, and finds the session by it', () => {
    const sessions = new ConsoleSessions(60_000, true);
    const { session, cookie } = sessions.open(alice);
    expect(cookie).toMatch(/^__Host-pve-console=[\w-]{43}; Path=\/; HttpOnly; Secure; SameSite=Strict; Max-Age=60$/);
    expect(sessions.of(request(pair(cookie)))?.user.id).toBe('alice');
    expect(session.csrf).not.toBe(session.id);
    expect(sessions.of(request(`__Host-pve-console=${'A'.repeat(43)}`))).toBeUndefined();
  });

  it('ends a session at its expiry, or at the identity’s own when sooner', () => {
    let now = 1_000_000;
    const sessions = new ConsoleSessions(60_000, false, () => now);
    const long = sessions.open(alice);
    const short = sessions.open(alice, now + 10_000);
    now += 10_001;
    expect(sessions.of(request(pair(short.cookie)))).toBeUndefined();
    expect(sessions.of(request(pair(long.cookie)))).toBeDefined();
    now += 50_000;
    expect(sessions.of(request(pair(long.cookie)))).toBeUndefined();
  });

  it('redeems a one-time link once, and not after it expired', () => {
    let now = 0;
    const sessions = new ConsoleSessions(60_000, false, () => now);
    const secret = sessions.oneTimeLink(alice, 1_000);
    expect(sessions.redeem(secret)?.id).toBe('alice');
    expect(sessions.redeem(secret)).toBeUndefined();
    const late = sessions.oneTimeLink(alice, 1_000);
    now = 1_001;
    expect(sessions.redeem(late)).toBeUndefined();
  });

  it('finishes a login only in the browser that began it, once', () => {
    const sessions = new ConsoleSessions(60_000);
    const begun = sessions.beginLogin('/console/plans/x');
    expect(sessions.finishLogin(request('pve-console-login=someone-else'), begun.state)).toBeUndefined();
    // Spent by the failed attempt too: a state is tried once.
    expect(sessions.finishLogin(request(pair(begun.cookie)), begun.state)).toBeUndefined();
    const again = sessions.beginLogin('/console/');
    expect(sessions.finishLogin(request(pair(again.cookie)), again.state)).toMatchObject({ next: '/console/', verifier: again.verifier, nonce: again.nonce });
  });
});
