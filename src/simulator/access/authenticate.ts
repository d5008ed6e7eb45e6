/**
 * pveproxy's auth handler: which calls need no credentials, ticket and API token verification,
 * and the CSRF header rule (every non-GET ticket call; token calls never).
 */
import type { HttpMethod } from '../../schema/model.js';
import type { SimPrincipal } from '../contract.js';
import { extractCredentials, splitTokenValue } from './credentials.js';
import { FULL_TOKEN_RE, USERID_RE, type AccessStore } from './store.js';
import type { TicketAuthority } from './tickets.js';

/**
 * `modern`: PVE ≥ 9.1.5 answers every ticket/token failure with `Authentication failed!`.
 * `legacy`: older nodes give `permission denied - invalid PVE ticket` and raw token reasons.
 */
export type AuthFailureStyle = 'modern' | 'legacy';

export type AuthOutcome =
  /** An auth-exempt call: credentials are not looked at, but a token header still counts for `allowtoken`. */
  { kind: 'exempt'; apiTokenSent: boolean } | { kind: 'authenticated'; principal: SimPrincipal; viaToken: boolean } | { kind: 'denied'; reason: string };

const EXEMPT: ReadonlyArray<[HttpMethod, string]> = [
  ['GET', '/access/domains'],
  ['GET', '/access/ticket'],
  ['POST', '/access/ticket'],
  ['POST', '/access/vncticket'],
  ['POST', '/access/openid/login'],
  ['POST', '/access/openid/auth-url'],
];

export function isAuthExempt(method: HttpMethod, relPath: string): boolean {
  return EXEMPT.some(([m, p]) => m === method && p === relPath);
}

export const CSRF_FAILURE = 'Permission denied - invalid csrf token';

export interface AuthRequest {
  method: HttpMethod;
  /** Path below `/api2/<format>`, already URL-decoded. */
  relPath: string;
  cookie?: string;
  authorization?: string;
  csrfToken?: string;
}

export class Authenticator {
  constructor(
    private readonly store: AccessStore,
    private readonly tickets: TicketAuthority,
    public failureStyle: AuthFailureStyle,
  ) {}

  authenticate(req: AuthRequest): AuthOutcome {
    const creds = extractCredentials(req.cookie, req.authorization);
    if (isAuthExempt(req.method, req.relPath)) return { kind: 'exempt', apiTokenSent: creds.apiToken !== undefined };
    if (creds.apiToken !== undefined) return this.byToken(creds.apiToken);
    if (creds.ticket === undefined) return { kind: 'denied', reason: 'No ticket' };
    const verified = this.tickets.verify(creds.ticket);
    const userid = verified?.data;
    if (!userid || !USERID_RE.test(userid) || this.store.userProblem(userid)) {
      return this.fail('permission denied - invalid PVE ticket');
    }
    if (req.method !== 'GET' && !isUpload(req.method, req.relPath) && !this.tickets.verifyCsrf(userid, req.csrfToken)) {
      return { kind: 'denied', reason: CSRF_FAILURE };
    }
    return { kind: 'authenticated', principal: { userid, authId: userid }, viaToken: false };
  }

  private byToken(value: string): AuthOutcome {
    const parsed = splitTokenValue(value);
    if (!parsed) return this.fail('no tokenid specified');
    const m = FULL_TOKEN_RE.exec(parsed.tokenid);
    if (!m) return this.fail(`'${parsed.tokenid}' is not a valid token ID`);
    const userid = m[1] as string;
    const name = m[2] as string;
    const userProblem = this.store.userProblem(userid);
    if (userProblem) return this.fail(userProblem);
    const token = this.store.user(userid)?.tokens.get(name);
    if (!token) return this.fail(`no such token '${name}' for user '${userid}'`);
    if (token.expire > 0 && token.expire < this.store.nowSec()) return this.fail(`token '${name}' access expired`);
    if (token.secret !== parsed.secret) return this.fail('invalid token value!');
    return { kind: 'authenticated', principal: { userid, tokenid: name, authId: parsed.tokenid }, viaToken: true };
  }

  private fail(legacyReason: string): AuthOutcome {
    return { kind: 'denied', reason: this.failureStyle === 'modern' ? 'Authentication failed!' : legacyReason };
  }
}

/** The multipart upload is exempt from CSRF (browsers cannot add the header to a form post). */
function isUpload(method: HttpMethod, relPath: string): boolean {
  return method === 'POST' && /^\/nodes\/[^/]+\/storage\/[^/]+\/upload$/.test(relPath);
}
