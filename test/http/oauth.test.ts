/**
 * OAuth resource-server mode of the HTTP transport against a real OpenID provider on loopback:
 * discovery through RFC 9728 metadata by the SDK's own client-credentials flow, the refusals
 * (no token, expired, wrong audience, wrong issuer, missing scope) with the right status and
 * WWW-Authenticate, key rotation, an unreachable provider, and sessions bound to principals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { startHttpServer, type RunningHttpServer } from '../../src/server/http.js';
import { DEFAULT_ALGORITHMS } from '../../src/app/config/http-settings.js';
import { principalOf } from '../../src/server/auth/run-principal.js';
import type { OAuthSettings } from '../../src/server/auth/oauth.js';
import { claims, startIdp, type IdpClient, type RunningIdp } from './helpers/oidc.js';

const CLIENTS: IdpClient[] = [
  { id: 'alice', secret: 'alice-secret-0123456789', scope: 'pve:read pve:write', groups: ['ops'] },
  { id: 'bob', secret: 'bob-secret-0123456789', scope: 'pve:read pve:write' },
  { id: 'approver', secret: 'approver-secret-0123456789', scope: 'pve:approve' },
  { id: 'short', secret: 'short-secret-0123456789', scope: 'pve:read', ttl: 1 },
];

function settings(issuer: string, extra: Partial<OAuthSettings> = {}): OAuthSettings {
  return {
    issuer,
    scopes: { read: 'pve:read', write: 'pve:write', approve: 'pve:approve' },
    principalClaim: 'sub',
    groupsClaim: 'groups',
    clockToleranceSec: 0,
    algorithms: [...DEFAULT_ALGORITHMS],
    jwksCooldownSec: 0,
    ...extra,
  };
}

/** Sessions are bare servers with a `whoami` tool answering the request's principal. */
function session(): McpServer {
  const server = new McpServer({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
  server.registerTool('whoami', { description: 'the principal' }, (extra) => {
    const p = principalOf(extra.authInfo);
    return { content: [{ type: 'text', text: JSON.stringify({ id: p?.id, groups: p?.groups, capabilities: [...(p?.capabilities ?? [])] }) }] };
  });
  return server;
}

async function post(url: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('OAuth resource server (oidc-provider on loopback)', () => {
  let idp: RunningIdp & { keys: unknown[] };
  let http: RunningHttpServer;

  beforeAll(async () => {
    idp = await startIdp(CLIENTS);
    http = await startHttpServer(session, { port: 0, oauth: settings(idp.issuer), log: () => undefined });
  });
  afterAll(async () => {
    await http?.close();
    await idp?.close();
  });

  it('publishes RFC 9728 metadata and points to it from a 401 without a token', async () => {
    expect(http.mode).toBe('oauth');
    expect(http.metadataUrl).toBe(`${new URL(http.url).origin}/.well-known/oauth-protected-resource/mcp`);
    const meta = await (await fetch(http.metadataUrl as string)).json();
    expect(meta).toMatchObject({ resource: http.url, authorization_servers: [idp.issuer], scopes_supported: ['pve:read', 'pve:write', 'pve:approve'], bearer_methods_supported: ['header'] });
    // The root form serves the same document.
    expect(await (await fetch(`${new URL(http.url).origin}/.well-known/oauth-protected-resource`)).json()).toEqual(meta);
    const res = await post(http.url, undefined, INIT);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toBe(`Bearer resource_metadata="${http.metadataUrl}"`);
  });

  it('lets the SDK client discover the provider, get a token with the resource indicator, and use the tools', async () => {
    // The scopes the client asks for; without them the provider grants none and the server answers 403.
    const provider = new ClientCredentialsProvider({ clientId: 'alice', clientSecret: 'alice-secret-0123456789', scope: 'pve:read pve:write', expectedIssuer: idp.issuer });
    const transport = new StreamableHTTPClientTransport(new URL(http.url), { authProvider: provider });
    const client = new Client({ name: 'alice-agent', version: '1' });
    await client.connect(transport);
    const token = provider.tokens()?.access_token as string;
    expect(claims(token)).toMatchObject({ iss: idp.issuer, aud: http.url, sub: 'alice', scope: 'pve:read pve:write', groups: ['ops'] });
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const who = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}');
    expect(who).toEqual({ id: 'alice', groups: ['ops'], capabilities: ['read', 'write'] });
    await transport.terminateSession();
    await client.close();
  });

  it('refuses an expired token with 401 invalid_token and the metadata pointer', async () => {
    const token = await idp.token('short', http.url);
    expect((await post(http.url, token, INIT)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2_100));
    const res = await post(http.url, token, INIT);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer resource_metadata="[^"]+", error="invalid_token", error_description="the access token expired/);
    expect(challenge).toContain(http.metadataUrl as string);
  });

  it('refuses a token for another resource (wrong audience)', async () => {
    const token = await idp.token('alice', 'http://127.0.0.1:1/other-mcp');
    expect(claims(token).aud).toBe('http://127.0.0.1:1/other-mcp');
    const res = await post(http.url, token, INIT);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      /error="invalid_token", error_description="the token's audience 'http:\/\/127\.0\.0\.1:1\/other-mcp' is not this server .*request it with resource=/,
    );
  });

  it('refuses a token from another issuer, even one signed with the same key', async () => {
    const other = await startIdp(CLIENTS, { keys: idp.keys as never });
    try {
      const token = await other.token('alice', http.url);
      expect(claims(token)).toMatchObject({ iss: other.issuer, aud: http.url });
      const res = await post(http.url, token, INIT);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(`error="invalid_token", error_description="the token was issued by '${other.issuer}'; this server accepts tokens from ${idp.issuer} only"`);
    } finally {
      await other.close();
    }
  });

  it('refuses garbage, another scheme and a token without the MCP scopes', async () => {
    const garbage = await post(http.url, 'not.a.jwt', INIT);
    expect(garbage.status).toBe(401);
    expect(garbage.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const basic = await post(http.url, undefined, INIT, { authorization: 'Basic YWxpY2U6eA==' });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toContain('error="invalid_request"');
    const approveOnly = await idp.token('approver', http.url);
    const res = await post(http.url, approveOnly, INIT);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope", error_description="principal 'approver' has neither pve:read nor pve:write.*", scope="pve:read pve:write"/);
  });

  it('binds a session to its principal: another principal with the session id gets 404', async () => {
    const alice = await idp.token('alice', http.url);
    const bob = await idp.token('bob', http.url);
    const init = await post(http.url, alice, INIT);
    const sessionId = init.headers.get('mcp-session-id') as string;
    expect(sessionId).toMatch(/[0-9a-f-]{36}/);
    await init.text();
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const stolen = await post(http.url, bob, list, headers);
    expect(stolen.status).toBe(404);
    const del = await fetch(http.url, { method: 'DELETE', headers: { authorization: `Bearer ${bob}`, ...headers } });
    expect(del.status).toBe(404);
    const own = await post(http.url, alice, list, headers);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('whoami');
  });

  it('follows a key rotation at the provider: new tokens verify, tokens signed with the retired key do not', async () => {
    const before = await idp.token('bob', http.url);
    expect((await post(http.url, before, INIT)).status).toBe(200);
    const fetches = idp.counts.jwks;
    await idp.rotateKeys();
    const after = await idp.token('bob', http.url);
    const res = await post(http.url, after, INIT);
    expect(res.status).toBe(200);
    expect(idp.counts.jwks).toBeGreaterThan(fetches);
    const old = await post(http.url, before, INIT);
    expect(old.status).toBe(401);
    expect(old.headers.get('www-authenticate')).toContain('not signed by a current key');
  });
});

describe('OAuth mode with the provider down', () => {
  it('answers 503 (tokens cannot be checked), not 401, and says why', async () => {
    const idp = await startIdp(CLIENTS);
    const token = await idp.token('alice', 'http://127.0.0.1:9/mcp');
    await idp.close();
    const http = await startHttpServer(session, { port: 0, oauth: settings(idp.issuer, { audience: ['http://127.0.0.1:9/mcp'] }), log: () => undefined });
    try {
      const res = await post(http.url, token, INIT);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/cannot discover the identity provider's keys/);
    } finally {
      await http.close();
    }
  });
});
