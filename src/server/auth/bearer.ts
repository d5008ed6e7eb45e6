/** The static bearer token: one shared secret, one principal. For single-user setups. */
import { timingSafeEqual } from 'node:crypto';
import { authParam, type AuthFailure, type AuthOutcome, type Authenticator, type Principal } from './principal.js';

export class StaticBearer implements Authenticator {
  readonly kind = 'bearer';
  private readonly expected: Buffer;
  private readonly principal: Principal;

  constructor(token: string, principalId = 'bearer') {
    this.expected = Buffer.from(`Bearer ${token}`);
    this.principal = { id: principalId, via: 'bearer', groups: [], capabilities: new Set(['read', 'write']), scopes: [] };
  }

  async authenticate(authorization: string | undefined): Promise<AuthOutcome> {
    if (!authorization) return { ok: false, status: 401, description: 'send "Authorization: Bearer <token>" (printed when the server started)' };
    const got = Buffer.from(authorization);
    if (got.length !== this.expected.length || !timingSafeEqual(got, this.expected)) {
      return { ok: false, status: 401, error: 'invalid_token', description: 'the bearer token is not the one this server was started with' };
    }
    return { ok: true, principal: this.principal };
  }

  challenge(failure: AuthFailure): string {
    return `Bearer realm="pve-code-mcp"${failure.error ? `, error=${authParam(failure.error)}, error_description=${authParam(failure.description)}` : ''}`;
  }

  scopeFor(): string {
    return '';
  }
}
