/**
 * The HTTP transport's own settings: allowed hosts and origins (DNS rebinding, CORS), the URL it
 * prints, TLS from files with reload on change, and settings that cannot work refused at start.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Agent } from 'undici';
import { startHttpServer, type HttpServerOptions, type RunningHttpServer } from '../../src/server/http.js';
import { HttpConfigError } from '../../src/server/auth/errors.js';
import { hostMatcher } from '../../src/server/auth/hosts.js';
import { tlsIdentity } from '../../src/simulator/server/certificate.js';

const TOKEN = 'transport-test-token-0123456789';
const running: RunningHttpServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

function session(): McpServer {
  const server = new McpServer({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
  server.registerTool('ping', { description: 'pong' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
  return server;
}

async function serve(options: HttpServerOptions = {}): Promise<RunningHttpServer> {
  const http = await startHttpServer(session, { port: 0, token: TOKEN, log: () => undefined, ...options });
  running.push(http);
  return http;
}

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request with full control over Host and Origin (fetch cannot set Host). */
function raw(url: string, method: string, headers: Record<string, string>, body?: string, ca?: string): Promise<Raw> {
  const u = new URL(url);
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: u.port, path: u.pathname, method, headers, ...(ca ? { ca, servername: 'localhost' } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` };

describe('allowed hosts and origins', () => {
  it('matches names on any port, name:port exactly, and IPv6 in brackets', () => {
    const ok = hostMatcher(['mcp.example.lan', 'proxy.example:8443', '[fd00::5]']);
    expect(ok('mcp.example.lan')).toBe(true);
    expect(ok('MCP.example.lan:8765')).toBe(true);
    expect(ok('proxy.example:8443')).toBe(true);
    expect(ok('proxy.example:8444')).toBe(false);
    expect(ok('proxy.example')).toBe(false);
    expect(ok('[fd00::5]:8765')).toBe(true);
    expect(ok('evil.example')).toBe(false);
    expect(ok('mcp.example.lan.evil.example')).toBe(false);
    expect(ok(undefined)).toBe(false);
    expect(ok('a b')).toBe(false);
  });

  it('answers an allowed Host, refuses others with a fix in the message', async () => {
    const http = await serve({ allowedHosts: ['mcp.example.lan'] });
    const good = await raw(http.url, 'POST', { ...JSON_HEADERS, host: `mcp.example.lan:${http.port}` }, INIT);
    expect(good.status).toBe(200);
    const bad = await raw(http.url, 'POST', { ...JSON_HEADERS, host: `evil.example:${http.port}` }, INIT);
    expect(bad.status).toBe(403);
    expect(bad.body).toContain('--allowed-host');
  });

  it('answers CORS preflights for allowed origins only, and exposes the session header', async () => {
    const http = await serve({ allowedOrigins: ['http://localhost:6274'] });
    const host = `127.0.0.1:${http.port}`;
    const pre = await raw(http.url, 'OPTIONS', {
      host,
      origin: 'http://localhost:6274',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, mcp-session-id',
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('http://localhost:6274');
    expect(String(pre.headers['access-control-allow-headers'])).toContain('mcp-session-id');
    const post = await raw(http.url, 'POST', { ...JSON_HEADERS, host, origin: 'http://localhost:6274' }, INIT);
    expect(post.status).toBe(200);
    expect(String(post.headers['access-control-expose-headers'])).toContain('mcp-session-id');
    const evil = await raw(http.url, 'OPTIONS', { host, origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.body).toContain('--allowed-origin');
  });

  it('prints a usable URL for every interface and for a public URL, whose host it allows', async () => {
    const wild = await serve({ host: '0.0.0.0' });
    expect(wild.url).not.toContain('0.0.0.0');
    const printed = new URL(wild.url);
    // The printed URL works as printed: its host is accepted.
    const res = await raw(wild.url, 'POST', { ...JSON_HEADERS, host: printed.host }, INIT);
    expect(res.status).toBe(200);
    const pub = await serve({ publicUrl: 'https://mcp.example.lan/mcp' });
    expect(pub.url).toBe('https://mcp.example.lan/mcp');
    expect((await raw(`http://127.0.0.1:${pub.port}/mcp`, 'POST', { ...JSON_HEADERS, host: 'mcp.example.lan' }, INIT)).status).toBe(200);
  });

  it('refuses settings that cannot work, naming the setting', async () => {
    await expect(serve({ allowedOrigins: ['https://app.example/path'] })).rejects.toThrow(/http\.allowedOrigins\[0\]: .*did you mean 'https:\/\/app\.example'/);
    await expect(serve({ allowedHosts: ['not a host'] })).rejects.toThrow(HttpConfigError);
    await expect(serve({ publicUrl: 'ftp://x/mcp' })).rejects.toThrow(/http\.publicUrl/);
    await expect(serve({ token: 'short' })).rejects.toThrow(/at least 16 characters/);
  });
});

describe('TLS', () => {
  let dir: string;
  let first: { cert: string; key: string };
  let second: { cert: string; key: string };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pve-http-tls-'));
    [first, second] = await Promise.all([tlsIdentity(undefined, 'localhost'), tlsIdentity(undefined, 'localhost')]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The certificate the server presents now (a fresh TLS handshake). */
  const served = (url: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: Number(new URL(url).port), servername: 'localhost', rejectUnauthorized: false }, () => {
        resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
        socket.end();
      });
      socket.on('error', reject);
    });

  it('serves HTTPS that a real MCP client verifies, and reloads a renewed certificate without a restart', async () => {
    const certFile = join(dir, 'cert.pem');
    const keyFile = join(dir, 'key.pem');
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    const logs: string[] = [];
    const http = await serve({ host: 'localhost', tls: { certFile, keyFile, reloadIntervalMs: 50 }, log: (l) => logs.push(l) });
    expect(http.url).toMatch(/^https:\/\/localhost:\d+\/mcp$/);
    const dispatcher = new Agent({ connect: { ca: first.cert } });
    const transport = new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      fetch: (input, init) => fetch(input, { ...init, dispatcher } as RequestInit),
    });
    const client = new Client({ name: 'tls', version: '1' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ping']);
    await client.close();
    expect(await served(http.url)).toBe(new X509Certificate(first.cert).fingerprint256);

    // A half-renewed pair (new certificate, old key) is not taken; the working pair stays.
    writeFileSync(certFile, second.cert);
    await new Promise((r) => setTimeout(r, 200));
    expect(logs.some((l) => /not reloaded.*does not belong/.test(l))).toBe(true);
    expect(await served(http.url)).toBe(new X509Certificate(first.cert).fingerprint256);
    writeFileSync(keyFile, second.key);
    const end = Date.now() + 5_000;
    while (http.tlsReloads() === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    expect(http.tlsReloads()).toBe(1);
    expect(await served(http.url)).toBe(new X509Certificate(second.cert).fingerprint256);
  });

  it('refuses at start a key that does not match, and files that are not PEM', async () => {
    const certFile = join(dir, 'c2.pem');
    const keyFile = join(dir, 'k2.pem');
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, second.key);
    await expect(serve({ tls: { certFile, keyFile } })).rejects.toThrow(/http\.tls: the key in .* does not belong to the certificate/);
    writeFileSync(keyFile, 'hello');
    await expect(serve({ tls: { certFile, keyFile } })).rejects.toThrow(/http\.tls\.key: .* holds no PEM private key/);
    await expect(serve({ tls: { certFile: join(dir, 'missing.pem'), keyFile } })).rejects.toThrow(/http\.tls\.cert: cannot read .*ENOENT/);
  });
});
