/**
 * Who is on the other end of an HTTP session. Every request is authenticated to a principal
 * (the static bearer's single user, or the subject of an OAuth access token); its session, its
 * runs' audit entries, its plans and its approvals are bound to it.
 */

/** What a principal may do, from the token's scopes (see `OAuthSettings.scopes`). */
export type Capability = 'read' | 'write' | 'approve';

export interface Principal {
  /** Stable identity: the token's `sub` (or the configured claim); `bearer` for the static token. */
  id: string;
  via: 'oauth' | 'bearer';
  issuer?: string;
  /** The OAuth client the token was issued to (`client_id` / `azp`), when the token says. */
  clientId?: string;
  /** Group names from the token's groups claim (policy mapping). */
  groups: string[];
  capabilities: ReadonlySet<Capability>;
  /** The token's scopes as sent (for the SDK's AuthInfo). */
  scopes: string[];
  /** Token expiry, seconds since the epoch. */
  expiresAt?: number;
}

/** The principal as it appears in audit entries: compact, no token material. */
export function auditIdentity(p: Principal): Record<string, unknown> {
  return {
    id: p.id,
    via: p.via,
    ...(p.issuer ? { issuer: p.issuer } : {}),
    ...(p.clientId && p.clientId !== p.id ? { client: p.clientId } : {}),
    ...(p.groups.length > 0 ? { groups: p.groups } : {}),
  };
}

/** What `authenticate` answers: a principal, or the HTTP status and RFC 6750 error to send. */
export type AuthOutcome = { ok: true; principal: Principal } | AuthFailure;

export interface AuthFailure {
  ok: false;
  /** 401: no or bad token; 403: a valid token without the scope; 503: tokens cannot be checked now (the IdP is unreachable). */
  status: 401 | 403 | 503;
  /** RFC 6750 error code; absent when no token was sent at all (RFC 6750 §3.1). */
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  description: string;
  /** The scope(s) that would do, for `insufficient_scope`. */
  scope?: string;
}

export interface Authenticator {
  readonly kind: 'bearer' | 'oauth';
  /** Checks an `Authorization` header value; never throws. */
  authenticate(authorization: string | undefined): Promise<AuthOutcome>;
  /** The `WWW-Authenticate` value for a refusal. */
  challenge(failure: AuthFailure): string;
  /** The scope a capability maps to (for `insufficient_scope` answers). */
  scopeFor(capability: Capability): string;
  /** RFC 9728 protected-resource metadata (OAuth only). */
  metadata?(): Record<string, unknown>;
}

/** A quoted-string for an auth-param: RFC 6750 allows %x20-21 / %x23-5B / %x5D-7E only. */
export function authParam(value: string): string {
  return `"${value.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, "'").replace(/"/g, "'")}"`;
}
