import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { startHttpServer, type HttpServerOptions, type RunningHttpServer } from './http.js';

const running: RunningHttpServer[] = [];

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
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ping']);
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
    expect(logs.some((l) => /2 sessions open: closed session/.test(l))).toBe(true);
    await expect(second.client.listTools()).rejects.toThrow(/404|Session not found/);
    expect((await first.client.listTools()).tools).toHaveLength(1);
    expect((await third.client.listTools()).tools).toHaveLength(1);
    await Promise.all([first, second, third].map((c) => c.client.close()));
  });
});
