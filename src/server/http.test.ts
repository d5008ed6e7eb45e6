import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { startHttpServer, type HttpServerOptions, type RunningHttpServer } from './http.js';

const running: RunningHttpServer[] = [];
/** A gate tool calls wait on (Node 20 has no Promise.withResolvers). */
function gate(): { promise: Promise<void>; resolve(): void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
let held = gate();

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** A server whose sessions are bare McpServers, remembered so the test can see them closed. */
async function serve(options: HttpServerOptions = {}) {
  const created: McpServer[] = [];
  const logs: string[] = [];
  const http = await startHttpServer(
    () => {
      const server = new McpServer({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
      server.registerTool('ping', { description: 'answers pong' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
      // A tool call in flight until the test lets it go.
      server.registerTool('hold', { description: 'answers when released' }, async () => {
        await held.promise;
        return { content: [{ type: 'text', text: 'released' }] };
      });
      created.push(server);
      return server;
    },
    { port: 0, log: (line) => logs.push(line), ...options },
  );
  running.push(http);
  return { http, created, logs };
}

async function connect(http: RunningHttpServer) {
  const transport = new StreamableHTTPClientTransport(new URL(http.url), {
    requestInit: { headers: { authorization: `Bearer ${http.token}` } },
  });
  const client = new Client({ name: 'test-client', version: '1' });
  await client.connect(transport);
  return { client, transport };
}

const until = async (cond: () => boolean, ms = 5_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('HTTP sessions', () => {
  it('removes a session and disconnects its McpServer when the client ends it', async () => {
    const { http, created } = await serve();
    const { client, transport } = await connect(http);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ping', 'hold']);
    expect(http.sessions()).toBe(1);
    await transport.terminateSession();
    expect(http.sessions()).toBe(0);
    expect(created[0]?.isConnected()).toBe(false);
    await client.close();
  });

  it('closes sessions left idle by clients that went away without ending them', async () => {
    const { http, created } = await serve({ sessionIdleMs: 100 });
    const { client } = await connect(http);
    await client.listTools();
    await until(() => http.sessions() === 0);
    expect(created[0]?.isConnected()).toBe(false);
    await expect(client.listTools()).rejects.toThrow(/404|Session not found/);
    await client.close();
  });

  it('keeps at most maxSessions open by closing the one idle longest', async () => {
    const { http, created, logs } = await serve({ maxSessions: 2 });
    const first = await connect(http);
    const second = await connect(http);
    await first.client.listTools(); // the second session is now the idlest
    const third = await connect(http);
    expect(http.sessions()).toBe(2);
    expect(created[1]?.isConnected()).toBe(false);
    expect(logs.some((l) => /2 sessions open \(the server's cap\): closed session/.test(l))).toBe(true);
    await expect(second.client.listTools()).rejects.toThrow(/404|Session not found/);
    expect((await first.client.listTools()).tools).toHaveLength(2);
    expect((await third.client.listTools()).tools).toHaveLength(2);
    await Promise.all([first, second, third].map((c) => c.client.close()));
  });

  it('never closes a session with a tool call in flight to make room; refuses the new one when every session is busy', async () => {
    held = gate();
    const { http, logs } = await serve({ maxSessionsPerPrincipal: 2 });
    const busy = await connect(http);
    const call = busy.client.callTool({ name: 'hold', arguments: {} });
    await new Promise((r) => setTimeout(r, 100));
    const idle = await connect(http);
    await idle.client.listTools();
    // The busy session is the idlest, yet the idle one makes room.
    const third = await connect(http);
    expect(http.sessions()).toBe(2);
    await expect(idle.client.listTools()).rejects.toThrow(/404|Session not found/);
    expect(logs.some((l) => /principal 'bearer' has 2 sessions open \(its cap\): closed session/.test(l))).toBe(true);
    const stuck = third.client.callTool({ name: 'hold', arguments: {} });
    await new Promise((r) => setTimeout(r, 100));
    await expect(connect(http)).rejects.toThrow(/429|Too many sessions/);
    held.resolve();
    expect(await call).toMatchObject({ content: [{ text: 'released' }] });
    expect(await stuck).toMatchObject({ content: [{ text: 'released' }] });
    await Promise.all([busy, idle, third].map((c) => c.client.close()));
  });
});

describe('GET /healthz', () => {
  const probe = async (http: RunningHttpServer, method = 'GET', host?: string) => {
    const { request } = await import('node:http');
    const u = new URL(http.url);
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: u.hostname, port: u.port, path: '/healthz', method, headers: host ? { host } : {} }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  };

  it('answers a balancer probing by address, without a token, with nothing but ok', async () => {
    const { http } = await serve();
    expect(await probe(http, 'GET', '10.9.8.7:8765')).toEqual({ status: 200, body: 'ok\n' });
    expect((await probe(http, 'POST')).status).toBe(405);
  });

  it('says 503 with the reason when the shared state does not answer', async () => {
    let up = true;
    const { http } = await serve({ health: () => (up ? { ok: true } : { ok: false, reason: 'state store unreachable' }) });
    expect((await probe(http)).status).toBe(200);
    up = false;
    expect(await probe(http)).toEqual({ status: 503, body: 'unavailable: state store unreachable\n' });
  });
});
