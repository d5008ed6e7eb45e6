/**
 * A real OpenID provider (oidc-provider) on 127.0.0.1 for the console's tests: people sign in with
 * the authorization code flow and PKCE through a plain login form (the test types the user's
 * name), and agents get client-credentials tokens for the MCP resource, as in the other HTTP
 * tests. Access tokens are JWTs for the resource named by the request's resource indicator,
 * with the person's (or client's) scopes and groups.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface Person {
  id: string;
  scope: string;
  groups?: string[];
}

export interface AgentClient {
  id: string;
  secret: string;
  scope: string;
  groups?: string[];
}

export interface LoginIdp {
  issuer: string;
  close(): Promise<void>;
}

export async function startLoginIdp(options: { consoleClientId: string; redirectUri: string; people: Person[]; agents: AgentClient[] }): Promise<LoginIdp> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const key = { ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: 'login-idp' };
  const people = new Map(options.people.map((p) => [p.id, p]));
  const agents = new Map(options.agents.map((a) => [a.id, a]));
  let provider: Provider | undefined;
  const server = createServer((req, res) => {
    void route(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const p = provider as Provider;
    const m = /^\/interaction\/([\w-]+)(\/login)?$/.exec(req.url ?? '');
    if (m && req.method === 'GET' && !m[2]) {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><title>Test IdP</title><form method="post" action="/interaction/${m[1]}/login"><label>User <input name="login" autofocus></label><button type="submit">Sign in</button></form>`,
        );
      return;
    }
    if (m && req.method === 'POST' && m[2]) {
      const body = await new Promise<string>((resolve) => {
        let text = '';
        req.on('data', (c: Buffer) => (text += c.toString('utf8')));
        req.on('end', () => resolve(text));
      });
      const login = new URLSearchParams(body).get('login') ?? '';
      const person = people.get(login);
      if (!person) {
        res.writeHead(403, { 'content-type': 'text/plain' }).end('no such user');
        return;
      }
      const details = await p.interactionDetails(req, res);
      const params = details.params as { client_id: string; scope?: string; resource?: string };
      const grant = new p.Grant({ accountId: person.id, clientId: params.client_id });
      grant.addOIDCScope('openid');
      if (params.resource) {
        // The person gets what it may have; the rest is refused (not asked again).
        const asked = (params.scope ?? '').split(' ').filter((s) => s !== '' && s !== 'openid');
        const mine = person.scope.split(' ');
        grant.addResourceScope(params.resource, asked.filter((s) => mine.includes(s)).join(' '));
        const refused = asked.filter((s) => !mine.includes(s));
        if (refused.length > 0) grant.rejectResourceScope(params.resource, refused.join(' '));
      }
      const grantId = await grant.save();
      await p.interactionFinished(req, res, { login: { accountId: person.id }, consent: { grantId } }, { mergeWithLastSubmission: false });
      return;
    }
    (p.callback() as unknown as (req: IncomingMessage, res: ServerResponse) => void)(req, res);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = new Provider(issuer, {
    clients: [
      { client_id: options.consoleClientId, redirect_uris: [options.redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' },
      ...options.agents.map((a) => ({
        client_id: a.id,
        client_secret: a.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      })),
    ],
    jwks: { keys: [key as never] },
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    findAccount: (_ctx, id) => (people.has(id) ? { accountId: id, claims: () => ({ sub: id }) } : undefined),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator, client) => ({
          scope: agents.get(client.clientId)?.scope ?? 'pve:read pve:write pve:approve',
          audience: resourceIndicator,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 600,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    extraTokenClaims: (_ctx, token) => {
      const t = token as unknown as { accountId?: string; clientId: string };
      const groups = t.accountId !== undefined ? people.get(t.accountId)?.groups : agents.get(t.clientId)?.groups;
      return groups ? { groups } : undefined;
    },
  });
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
