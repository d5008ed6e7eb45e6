/**
 * The built server over Streamable HTTP (`serve --http`), driven by the SDK client: the core flow,
 * approval by elicitation, progress, cancellation, plus the transport's own guards — bearer
 * token, DNS-rebinding protection (Host/Origin) and independent sessions.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { checkDryRun, checkGetSchema, checkRead, checkSearch, checkToolList, checkWrite, statusOf, stopScript } from './helpers/flows.js';
import { callTool, connectHttp, runAnswer, startHttpServe, type Connected, type HttpServerProcess } from './helpers/mcp.js';

const TOKEN = 'e2e-token-0123456789abcdef';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw POST with full control over the headers (fetch cannot set Host). */
function rawPost(url: string, headers: Record<string, string>, body = INITIALIZE): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('MCP over Streamable HTTP: the built server and the SDK client', () => {
  let env: E2eEnv;
  let server: HttpServerProcess;
  let main: Connected;

  beforeAll(async () => {
    env = await startE2eEnv({ sandbox: { workers: 2, limits: { entryTimeoutMs: 300_000, cpuMs: 300_000, wallMs: 300_000 } } });
    server = await startHttpServe(env, TOKEN);
    main = await connectHttp(server.url, TOKEN, { name: 'http-main', elicit: () => ({ action: 'accept', content: { approve: true } }) });
  }, 180_000);

  afterAll(async () => {
    await main?.close();
    await server?.close();
    await env?.close();
  });

  it('listens on loopback at the printed URL', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.stderr()).toContain(`Authorization: Bearer ${TOKEN}`);
  });

  it('carries the core flow: tools, search, get_schema, reads, writes, dry-run', async () => {
    await checkToolList(main);
    await checkSearch(main);
    await checkGetSchema(main);
    await checkRead(main, env.sim);
    await checkWrite(main, env.sim, 'pve2', 107);
    await checkDryRun(main, env.sim, 'pve3', 108);
  });

  it("asks for approval on the tool call's own stream and runs the accepted destructive write", async () => {
    const { result } = await callTool(main, 'run_script', { code: stopScript('pve1', 100) });
    const answer = runAnswer(result);
    expect(answer.error).toBeUndefined();
    expect(answer.approval).toMatchObject({ via: 'elicitation', answer: 'accept' });
    expect(main.elicitations).toHaveLength(1);
    expect(statusOf(env.sim, 100)).toBe('stopped');
  });

  it('sends progress and logging messages, and honours cancellation', async () => {
    const controller = new AbortController();
    const code = "console.log('spinning');\nawait pve.get('/version');\nwhile (true) {}";
    const pending = callTool(
      main,
      'run_script',
      { code },
      {
        signal: controller.signal,
        timeout: 120_000,
        onProgress: (p) => {
          if (p.message === 'log: spinning') controller.abort('stop');
        },
      },
    );
    await expect(pending).rejects.toThrow();
    expect(controller.signal.aborted).toBe(true);
    await vi.waitFor(() => expect(main.logs).toContain('spinning'));
    // Two workers: both must be free again, so two parallel runs finish.
    const [a, b] = await Promise.all([callTool(main, 'run_script', { code: 'return 1;' }, { timeout: 30_000 }), callTool(main, 'run_script', { code: 'return 2;' }, { timeout: 30_000 })]);
    expect([runAnswer(a.result).result, runAnswer(b.result).result]).toEqual([1, 2]);
  });

  it('rejects a missing or wrong bearer token with 401', async () => {
    const missing = await rawPost(server.url, { host: new URL(server.url).host });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(JSON.parse(missing.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    const wrong = await rawPost(server.url, { host: new URL(server.url).host, authorization: `Bearer ${TOKEN}x` });
    expect(wrong.status).toBe(401);
    const scheme = await rawPost(server.url, { host: new URL(server.url).host, authorization: `Basic ${TOKEN}` });
    expect(scheme.status).toBe(401);
  });

  it('rejects foreign Host and Origin headers with 403 (DNS rebinding), even with the token', async () => {
    const port = new URL(server.url).port;
    const auth = { authorization: `Bearer ${TOKEN}` };
    const host = await rawPost(server.url, { ...auth, host: `evil.example:${port}` });
    expect(host.status).toBe(403);
    expect(JSON.parse(host.body).error.message).toMatch(/Host header/);
    const origin = await rawPost(server.url, { ...auth, host: `127.0.0.1:${port}`, origin: 'http://evil.example' });
    expect(origin.status).toBe(403);
    const good = await rawPost(server.url, { ...auth, host: `localhost:${port}`, origin: `http://localhost:${port}` });
    expect(good.status).toBe(200);
    expect(good.headers['mcp-session-id']).toBeTruthy();
  });

  it('keeps two sessions apart and serves them at the same time', async () => {
    const [one, two] = await Promise.all([connectHttp(server.url, TOKEN, { name: 'one' }), connectHttp(server.url, TOKEN, { name: 'two' })]);
    try {
      const sessionOne = (one.client.transport as { sessionId?: string }).sessionId;
      const sessionTwo = (two.client.transport as { sessionId?: string }).sessionId;
      expect(sessionOne).toBeTruthy();
      expect(sessionTwo).toBeTruthy();
      expect(sessionOne).not.toBe(sessionTwo);
      const [r1, r2] = await Promise.all([callTool(one, 'run_script', { code: "return 'one';" }), callTool(two, 'run_script', { code: "return 'two';" })]);
      expect(runAnswer(r1.result).result).toBe('one');
      expect(runAnswer(r2.result).result).toBe('two');
      // Ending one session leaves the other working.
      await one.close();
      expect(runAnswer((await callTool(two, 'run_script', { code: "return 'still two';" })).result).result).toBe('still two');
    } finally {
      await two.close();
    }
  });
});
