/**
 * Console sessions: a random id in a cookie (`HttpOnly; Secure; SameSite=Strict`, `__Host-` prefix
 * over TLS), kept in memory only, expiring at a fixed time after login (and at the identity's own
 * expiry, when sooner). Each session has its synchronizer CSRF token, which every form carries.
 * One-time login links (the local console) and pending OpenID Connect logins live here too.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../auth/principal.js';

/** Who is logged in to the console. */
export interface ConsoleUser {
  /** The principal id (OpenID Connect: the same id as the MCP principal), or the host's OS user. */
  id: string;
  via: 'oidc' | 'local';
  groups: string[];
  /** May approve plans (the approve scope; always for the host operator). */
  canApprove: boolean;
  /** The MCP principal (OpenID Connect sign-in): whose policy the explorer applies. */
  principal?: Principal;
}

export interface ConsoleSession {
  id: string;
  csrf: string;
  user: ConsoleUser;
  expiresAt: number;
}

const SESSION_COOKIE = 'pve-console';
const LOGIN_COOKIE = 'pve-console-login';

function token(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time string comparison (lengths are not secret: both are base64url of 32 bytes). */
export function sameSecret(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function cookies(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    if (!out.has(name)) out.set(name, part.slice(i + 1).trim());
  }
  return out;
}

export class ConsoleSessions {
  private readonly sessions = new Map<string, ConsoleSession>();
  private readonly links = new Map<string, { user: ConsoleUser; expiresAt: number }>();
  private readonly logins = new Map<string, { verifier: string; nonce: string; next: string; expiresAt: number; browser: string }>();

  constructor(
    /** A session lasts this long after login. */
    private readonly ttlMs: number,
    private tls = false,
    private readonly now: () => number = Date.now,
  ) {}

  /** Over TLS the cookie gets the `__Host-` prefix: no subdomain or plain-HTTP page can set or shadow it. */
  setTls(tls: boolean): void {
    this.tls = tls;
  }

  private get cookieName(): string {
    return this.tls ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
  }

  private get loginCookieName(): string {
    return this.tls ? `__Host-${LOGIN_COOKIE}` : LOGIN_COOKIE;
  }

  /** A new session for `user`; the cookie to set. `until`: the identity's own expiry (ms), when sooner. */
  open(user: ConsoleUser, until?: number): { session: ConsoleSession; cookie: string } {
    this.sweep();
    const now = this.now();
    const expiresAt = Math.min(now + this.ttlMs, until ?? Number.POSITIVE_INFINITY);
    const session: ConsoleSession = { id: token(), csrf: token(), user, expiresAt };
    // Stored by a hash of the id: a memory dump or a log line of the map shows no usable cookie.
    this.sessions.set(digest(session.id), session);
    const maxAge = Math.max(1, Math.floor((expiresAt - now) / 1000));
    return { session, cookie: `${this.cookieName}=${session.id}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=${maxAge}` };
  }

  /** The request's unexpired session. */
  of(req: IncomingMessage): ConsoleSession | undefined {
    const id = cookies(req).get(this.cookieName);
    if (!id) return undefined;
    const s = this.sessions.get(digest(id));
    if (!s) return undefined;
    if (s.expiresAt <= this.now()) {
      this.sessions.delete(digest(id));
      return undefined;
    }
    return s;
  }

  close(req: IncomingMessage): string {
    const id = cookies(req).get(this.cookieName);
    if (id) this.sessions.delete(digest(id));
    return `${this.cookieName}=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0`;
  }

  /** A one-time login link's secret for `user`, valid for `ttlMs`. */
  oneTimeLink(user: ConsoleUser, ttlMs = 10 * 60_000): string {
    const secret = token();
    this.links.set(digest(secret), { user, expiresAt: this.now() + ttlMs });
    return secret;
  }

  /** The link's user, once: the secret is spent by its first use. */
  redeem(secret: string): ConsoleUser | undefined {
    const key = digest(secret);
    const link = this.links.get(key);
    this.links.delete(key);
    return link && link.expiresAt > this.now() ? link.user : undefined;
  }

  /**
   * A login in progress (OpenID Connect): its state is bound to this browser by a short-lived
   * cookie (SameSite=Lax: it has to come back on the identity provider's redirect), so a callback
   * link planted in another browser logs nobody in there (login CSRF).
   */
  beginLogin(next: string, ttlMs = 10 * 60_000): { state: string; verifier: string; nonce: string; cookie: string } {
    this.sweep();
    const state = token();
    const verifier = token();
    const nonce = token();
    const browser = token();
    this.logins.set(state, { verifier, nonce, next, expiresAt: this.now() + ttlMs, browser });
    return { state, verifier, nonce, cookie: `${this.loginCookieName}=${browser}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${Math.floor(ttlMs / 1000)}` };
  }

  /** The pending login of `state` if this browser began it; spent either way. */
  finishLogin(req: IncomingMessage, state: string): { verifier: string; nonce: string; next: string } | undefined {
    const login = this.logins.get(state);
    this.logins.delete(state);
    if (!login || login.expiresAt <= this.now()) return undefined;
    if (!sameSecret(cookies(req).get(this.loginCookieName), login.browser)) return undefined;
    return { verifier: login.verifier, nonce: login.nonce, next: login.next };
  }

  clearLoginCookie(): string {
    return `${this.loginCookieName}=; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=0`;
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(k);
    for (const [k, l] of this.links) if (l.expiresAt <= now) this.links.delete(k);
    for (const [k, l] of this.logins) if (l.expiresAt <= now) this.logins.delete(k);
  }
}

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}
