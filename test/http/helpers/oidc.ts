/**
 * A real OpenID provider (`oidc-provider`, a certified implementation) on 127.0.0.1 for the
 * HTTP tests: client-credentials clients whose access tokens are JWTs for the resource named by
 * the token request's resource indicator (RFC 8707), signed with the provider's keys (which
 * the test can rotate), with a `groups` claim and a per-client lifetime.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface IdpClient {
  id: string;
  secret: string;
  /** Scopes this client may get at the resource. */
  scope: string;
  groups?: string[];
  /** Access token lifetime, seconds (default 600). */
  ttl?: number;
}

export interface RunningIdp {
  issuer: string;
  /** Client-credentials token for `resource` (the resource indicator), as the SDK would request it. */
  token(clientId: string, resource: string, scope?: string): Promise<string>;
  /** Replace the signing key (the old one is no longer published). */
  rotateKeys(): Promise<void>;
  /** Token requests answered so far, and JWKS fetches. */
  counts: { token: number; jwks: number };
  close(): Promise<void>;
}

async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, alg: 'ES256', use: 'sig', kid: `k-${Math.random().toString(36).slice(2, 10)}` };
}

/** Start a provider. `keys` lets two providers share keys (to test the issuer check on its own). */
export async function startIdp(clients: IdpClient[], options: { keys?: JWK[] } = {}): Promise<RunningIdp & { keys: JWK[] }> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const counts = { token: 0, jwks: 0 };
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/token')) counts.token += 1;
    if (req.url?.startsWith('/jwks')) counts.jwks += 1;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const byId = new Map(clients.map((c) => [c.id, c]));
  let keys = options.keys ?? [await signingKey()];

  const build = (jwks: JWK[]): Provider => {
    const provider = new Provider(issuer, {
      clients: clients.map((c) => ({
        client_id: c.id,
        client_secret: c.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      })),
      jwks: { keys: jwks as never[] },
      clientDefaults: { id_token_signed_response_alg: 'ES256' },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          // Tokens only for the resource the client names: no default audience.
          defaultResource: () => undefined as unknown as string,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resourceIndicator, client) => {
            const c = byId.get(client.clientId);
            return {
              scope: c?.scope ?? '',
              audience: resourceIndicator,
              accessTokenFormat: 'jwt',
              accessTokenTTL: c?.ttl ?? 600,
              jwt: { sign: { alg: 'ES256' } },
            };
          },
        },
      },
      extraTokenClaims: (_ctx, token) => {
        const c = byId.get((token as unknown as { clientId: string }).clientId);
        return c?.groups ? { groups: c.groups } : undefined;
      },
    });
    return provider;
  };
  let provider = build(keys);
  handler = provider.callback() as unknown as typeof handler;

  return {
    issuer,
    counts,
    get keys() {
      return keys;
    },
    async token(clientId, resource, scope) {
      const c = byId.get(clientId);
      if (!c) throw new Error(`no client ${clientId}`);
      const body = new URLSearchParams({ grant_type: 'client_credentials', resource, scope: scope ?? c.scope });
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      const json = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!json.access_token) throw new Error(`token request failed: ${res.status} ${json.error ?? ''} ${json.error_description ?? ''}`);
      return json.access_token;
    },
    async rotateKeys() {
      keys = [await signingKey()];
      provider = build(keys);
      handler = provider.callback() as unknown as typeof handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Decoded JWT payload (no verification; for assertions on what the provider issued). */
export function claims(jwt: string): Record<string, unknown> {
  const part = jwt.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}
