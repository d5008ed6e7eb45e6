/**
 * OAuth 2.1 resource server: access tokens issued by the operator's identity provider, checked
 * with `jose` (signature against the IdP's JWKS, fetched and refreshed on key rotation; issuer,
 * audience, expiry), mapped to a principal and its capabilities by scope. Publishes RFC 9728
 * protected-resource metadata and points to it from every 401 (`WWW-Authenticate: Bearer
 * resource_metadata=…`), so MCP clients can discover the authorization server themselves.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { authParam, type AuthFailure, type AuthOutcome, type Authenticator, type Capability, type Principal } from './principal.js';

export interface OAuthSettings {
  /** The IdP's issuer identifier, exactly as it appears in its tokens' `iss`. */
  issuer: string;
  /** Accepted `aud` values; default: the resource identifier (the server's public MCP URL). */
  audience?: string[];
  /** The IdP's JWKS; default: `jwks_uri` from its discovery document. */
  jwksUri?: string;
  /** Authorization servers listed in the metadata; default `[issuer]`. */
  authorizationServers?: string[];
  /** The scope names that grant each capability. */
  scopes: Record<Capability, string>;
  /** The claim that names the principal (default `sub`). */
  principalClaim: string;
  /** The claim holding group names (default `groups`). */
  groupsClaim: string;
  clockToleranceSec: number;
  /** Accepted JWS algorithms (asymmetric only). */
  algorithms: string[];
  /** Least time between two JWKS fetches for unknown keys (rotation), seconds. */
  jwksCooldownSec: number;
}

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/** The token could not be checked for a reason that is not the token's (IdP down, bad discovery document). */
class KeySourceError extends Error {}

export class OAuthResourceServer implements Authenticator {
  readonly kind = 'oauth';
  private keys?: KeySet;
  private discovering?: Promise<KeySet>;
  private lastDiscoveryFailure = 0;
  private readonly audience: string[];

  constructor(
    private readonly settings: OAuthSettings,
    /** The resource identifier: the public URL of the MCP endpoint. */
    readonly resource: string,
    /** Where the metadata is served (absolute URL). */
    readonly metadataUrl: string,
    private readonly fetchTimeoutMs = 5_000,
  ) {
    this.audience = settings.audience && settings.audience.length > 0 ? settings.audience : [resource];
  }

  scopeFor(capability: Capability): string {
    return this.settings.scopes[capability];
  }

  metadata(): Record<string, unknown> {
    const { scopes } = this.settings;
    return {
      resource: this.resource,
      authorization_servers: this.settings.authorizationServers ?? [this.settings.issuer],
      scopes_supported: [scopes.read, scopes.write, scopes.approve],
      bearer_methods_supported: ['header'],
      resource_signing_alg_values_supported: this.settings.algorithms,
      resource_name: 'pve-code-mcp (Proxmox VE)',
    };
  }

  challenge(failure: AuthFailure): string {
    const params = [`resource_metadata=${authParam(this.metadataUrl)}`];
    if (failure.error) params.push(`error=${authParam(failure.error)}`, `error_description=${authParam(failure.description)}`);
    if (failure.scope) params.push(`scope=${authParam(failure.scope)}`);
    return `Bearer ${params.join(', ')}`;
  }

  async authenticate(authorization: string | undefined): Promise<AuthOutcome> {
    if (!authorization) return { ok: false, status: 401, description: `an access token from ${this.settings.issuer} is required (see the resource metadata)` };
    const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
    if (!m?.[1]) return { ok: false, status: 401, error: 'invalid_request', description: 'the Authorization header must be "Bearer <access token>"' };
    let payload: JWTPayload;
    try {
      const keys = await this.keySet();
      ({ payload } = await jwtVerify(m[1], keys, {
        issuer: this.settings.issuer,
        audience: this.audience,
        algorithms: this.settings.algorithms,
        clockTolerance: this.settings.clockToleranceSec,
        requiredClaims: ['exp', this.settings.principalClaim],
      }));
    } catch (err) {
      return this.refusal(err);
    }
    const id = payload[this.settings.principalClaim];
    if (typeof id !== 'string' || id === '' || id.length > 256) {
      return { ok: false, status: 401, error: 'invalid_token', description: `the token's ${this.settings.principalClaim} claim is not a non-empty string of at most 256 characters` };
    }
    const scopes = tokenScopes(payload);
    const capabilities = new Set<Capability>();
    for (const c of ['read', 'write', 'approve'] as const) if (scopes.includes(this.settings.scopes[c])) capabilities.add(c);
    // Writing includes reading: a script has to look before it changes anything.
    if (capabilities.has('write')) capabilities.add('read');
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : typeof payload.azp === 'string' ? payload.azp : undefined;
    const principal: Principal = {
      id,
      via: 'oauth',
      issuer: this.settings.issuer,
      ...(clientId ? { clientId } : {}),
      groups: stringList(payload[this.settings.groupsClaim]),
      capabilities,
      scopes,
      ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp } : {}),
    };
    return { ok: true, principal };
  }

  /** Why a token was refused, in words that say what to do. */
  private refusal(err: unknown): AuthFailure {
    const bad = (description: string): AuthFailure => ({ ok: false, status: 401, error: 'invalid_token', description });
    if (err instanceof KeySourceError || err instanceof errors.JWKSTimeout || err instanceof TypeError || (err instanceof errors.JOSEError && /JSON Web Key Set HTTP response/.test(err.message))) {
      return { ok: false, status: 503, description: `access tokens cannot be checked right now: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (err instanceof errors.JWTExpired) {
      const exp = typeof err.payload.exp === 'number' ? new Date(err.payload.exp * 1000).toISOString() : 'in the past';
      return bad(`the access token expired (${exp}): get a new one from ${this.settings.issuer}`);
    }
    if (err instanceof errors.JWTClaimValidationFailed) {
      if (err.claim === 'iss') return bad(`the token was issued by ${JSON.stringify(err.payload.iss ?? null)}; this server accepts tokens from ${this.settings.issuer} only`);
      if (err.claim === 'aud') {
        return bad(`the token's audience ${JSON.stringify(err.payload.aud ?? null)} is not this server (${this.audience.join(', ')}): request it with resource=${this.resource}`);
      }
      if (err.claim === 'nbf') return bad('the token is not valid yet (nbf): check the clocks of the server and the identity provider');
      return bad(`the token's ${err.claim} claim is not acceptable (${err.reason})`);
    }
    if (err instanceof errors.JWKSNoMatchingKey) return bad(`the token is not signed by a current key of ${this.settings.issuer}`);
    if (err instanceof errors.JWSSignatureVerificationFailed) return bad('the token signature does not verify');
    if (err instanceof errors.JOSEAlgNotAllowed) return bad(`the token's signature algorithm is not accepted (accepted: ${this.settings.algorithms.join(', ')})`);
    if (err instanceof errors.JOSEError) return bad(`the access token is not a valid signed JWT (${err.code})`);
    return bad('the access token is not a valid signed JWT');
  }

  /** The JWKS (discovered on first use; a failed discovery is retried after 5 s, not on every request). */
  private async keySet(): Promise<KeySet> {
    if (this.keys) return this.keys;
    if (this.discovering) return this.discovering;
    if (Date.now() - this.lastDiscoveryFailure < 5_000) throw new KeySourceError(`the identity provider ${this.settings.issuer} could not be reached a moment ago; retrying shortly`);
    this.discovering = this.discover()
      .then(
        (uri) => {
          this.keys = createRemoteJWKSet(new URL(uri), {
            timeoutDuration: this.fetchTimeoutMs,
            cooldownDuration: this.settings.jwksCooldownSec * 1000,
            cacheMaxAge: 10 * 60_000,
          });
          return this.keys;
        },
        (err: unknown) => {
          this.lastDiscoveryFailure = Date.now();
          throw err instanceof KeySourceError ? err : new KeySourceError(err instanceof Error ? err.message : String(err));
        },
      )
      .finally(() => {
        this.discovering = undefined;
      });
    return this.discovering;
  }

  /** `jwks_uri` from the IdP's OpenID (or RFC 8414) metadata, whose `issuer` must be the configured one. */
  private async discover(): Promise<string> {
    if (this.settings.jwksUri) return this.settings.jwksUri;
    const issuer = this.settings.issuer;
    const base = issuer.replace(/\/+$/, '');
    const u = new URL(issuer);
    const path = u.pathname.replace(/\/+$/, '');
    const candidates = [`${base}/.well-known/openid-configuration`, `${u.origin}/.well-known/oauth-authorization-server${path}`];
    const problems: string[] = [];
    for (const url of candidates) {
      let doc: unknown;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(this.fetchTimeoutMs), headers: { accept: 'application/json' } });
        if (!res.ok) {
          problems.push(`${url}: HTTP ${res.status}`);
          continue;
        }
        doc = await res.json();
      } catch (err) {
        problems.push(`${url}: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`);
        continue;
      }
      const meta = doc as { issuer?: unknown; jwks_uri?: unknown };
      if (meta.issuer !== issuer) throw new KeySourceError(`the discovery document ${url} names issuer ${JSON.stringify(meta.issuer)}, not ${issuer}: fix http.oauth.issuer`);
      if (typeof meta.jwks_uri !== 'string') throw new KeySourceError(`the discovery document ${url} has no jwks_uri: set http.oauth.jwksUri`);
      return meta.jwks_uri;
    }
    throw new KeySourceError(`cannot discover the identity provider's keys (${problems.join('; ')}): check http.oauth.issuer or set http.oauth.jwksUri`);
  }
}

function tokenScopes(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter((s) => s !== '');
  // `scp` as an array (Okta, Entra ID) or a space-separated string.
  const scp = payload.scp;
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string');
  if (typeof scp === 'string') return scp.split(' ').filter((s) => s !== '');
  return [];
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v.length <= 256).slice(0, 256);
  return [];
}
