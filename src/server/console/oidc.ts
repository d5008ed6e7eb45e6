/**
 * The console's OpenID Connect login with the operator's identity provider: authorization code
 * with PKCE (S256), `state` bound to the browser, `nonce` in the ID token. The ID token is checked
 * with `jose` (signature against the provider's JWKS, issuer, audience = the console's client id,
 * expiry, nonce); the access token that comes with it is checked by the MCP endpoint's own
 * resource-server code, so the console's principal (id, groups, approve scope) is exactly the one
 * `POST /approvals` would see for that person.
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { z } from 'zod';

export interface OidcClientSettings {
  issuer: string;
  clientId: string;
  /** Confidential clients only; a public client relies on PKCE alone. */
  clientSecret?: string;
  /** Scopes asked for besides `openid`: the MCP scopes, so the access token carries the approve scope. */
  scopes: string[];
  /** The MCP resource (RFC 8707 resource indicator): the access token's audience. */
  resource: string;
  algorithms: string[];
  clockToleranceSec: number;
}

/** Why a login failed, in words for the page (never a token). */
export class OidcLoginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OidcLoginError';
  }
}

const DiscoverySchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  jwks_uri: z.url(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
});

const TokenSchema = z.object({ id_token: z.string().min(1), access_token: z.string().min(1), token_type: z.string() });

type Discovery = z.infer<typeof DiscoverySchema>;

export class OidcLogin {
  private discovery?: Promise<Discovery>;
  private keys?: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    private readonly settings: OidcClientSettings,
    private readonly fetchTimeoutMs = 5_000,
  ) {}

  /** Where to send the browser to log in. */
  async authorizationUrl(redirectUri: string, login: { state: string; verifier: string; nonce: string }): Promise<string> {
    const d = await this.discover();
    const u = new URL(d.authorization_endpoint);
    u.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.settings.clientId,
      redirect_uri: redirectUri,
      scope: ['openid', ...this.settings.scopes].join(' '),
      state: login.state,
      nonce: login.nonce,
      code_challenge: createHash('sha256').update(login.verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: this.settings.resource,
    }).toString();
    return u.href;
  }

  /** Redeems the code; answers the checked ID token's subject and the access token (checked by the caller). */
  async finish(code: string, redirectUri: string, login: { verifier: string; nonce: string }): Promise<{ subject: string; accessToken: string }> {
    const d = await this.discover();
    const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: login.verifier, resource: this.settings.resource });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (this.settings.clientSecret !== undefined) {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(this.settings.clientId)}:${encodeURIComponent(this.settings.clientSecret)}`).toString('base64')}`;
    } else {
      body.set('client_id', this.settings.clientId);
    }
    let json: unknown;
    try {
      const res = await fetch(d.token_endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.fetchTimeoutMs), redirect: 'error' });
      json = await res.json();
      if (!res.ok) {
        const e = json as { error?: unknown; error_description?: unknown };
        throw new OidcLoginError(`the identity provider refused the login code (${String(e.error ?? res.status)}${typeof e.error_description === 'string' ? `: ${e.error_description}` : ''})`);
      }
    } catch (err) {
      if (err instanceof OidcLoginError) throw err;
      throw new OidcLoginError(`the identity provider's token endpoint could not be reached (${err instanceof Error ? err.message : String(err)})`);
    }
    const tokens = TokenSchema.safeParse(json);
    if (!tokens.success) throw new OidcLoginError('the identity provider answered without an ID token and an access token (is the client allowed the openid scope?)');
    let payload: Record<string, unknown>;
    try {
      this.keys ??= createRemoteJWKSet(new URL(d.jwks_uri), { timeoutDuration: this.fetchTimeoutMs });
      ({ payload } = await jwtVerify(tokens.data.id_token, this.keys, {
        issuer: this.settings.issuer,
        audience: this.settings.clientId,
        algorithms: this.settings.algorithms,
        clockTolerance: this.settings.clockToleranceSec,
        requiredClaims: ['sub', 'exp', 'iat', 'nonce'],
      }));
    } catch (err) {
      throw new OidcLoginError(`the ID token does not verify (${err instanceof Error ? err.message : String(err)})`);
    }
    // The nonce ties the ID token to the login this browser began: a replayed token fails here.
    if (payload.nonce !== login.nonce) throw new OidcLoginError('the ID token was not issued for this login (nonce mismatch)');
    return { subject: String(payload.sub), accessToken: tokens.data.access_token };
  }

  private discover(): Promise<Discovery> {
    this.discovery ??= (async () => {
      const url = `${this.settings.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      let doc: unknown;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(this.fetchTimeoutMs), headers: { accept: 'application/json' } });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        doc = await res.json();
      } catch (err) {
        throw new OidcLoginError(`cannot read the identity provider's discovery document ${url} (${err instanceof Error ? err.message : String(err)})`);
      }
      const parsed = DiscoverySchema.safeParse(doc);
      if (!parsed.success) throw new OidcLoginError(`the discovery document ${url} lacks an authorization, token or JWKS endpoint`);
      if (parsed.data.issuer !== this.settings.issuer) throw new OidcLoginError(`the discovery document ${url} names issuer ${parsed.data.issuer}, not ${this.settings.issuer}`);
      const methods = parsed.data.code_challenge_methods_supported;
      if (methods && !methods.includes('S256')) throw new OidcLoginError(`the identity provider does not offer PKCE with S256 (code_challenge_methods_supported: ${methods.join(', ')})`);
      return parsed.data;
    })().catch((err: unknown) => {
      // A failed discovery is tried again at the next login, not remembered.
      this.discovery = undefined;
      throw err;
    });
    return this.discovery;
  }
}
