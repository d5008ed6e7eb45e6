/**
 * Robustness: 1,000 malformed requests over stdio and 1,000 over HTTP, in bursts, plus a few of
 * several megabytes. Every one gets a JSON-RPC error or a tool error, the process stays up, and a
 * valid request afterwards works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { fuzzCases, hugeCases, isErrorAnswer, type FuzzCase } from './helpers/fuzz-cases.js';
import { callTool, connectHttp, runAnswer, startHttpServe, type HttpServerProcess } from './helpers/mcp.js';
import { RawStdioServer } from './helpers/raw-stdio.js';

const COUNT = 1000;
const BURST = 50;
const TOKEN = 'fuzz-token-0123456789abcdef';

describe('fuzz: malformed requests never crash the server', () => {
  let env: E2eEnv;

  beforeAll(async () => {
    env = await startE2eEnv();
  }, 120_000);

  afterAll(async () => {
    await env?.close();
  });

  it(`stdio: ${COUNT} malformed requests in bursts of ${BURST}, each answered with an error`, async () => {
    const server = new RawStdioServer(env);
    try {
      await server.initialize();
      const cases = [...fuzzCases(COUNT, 11), ...hugeCases()];
      const offset = server.received.length;
      let nullIdsExpected = 0;
      for (let start = 0; start < cases.length; start += BURST) {
        const burst = cases.slice(start, start + BURST);
        for (const c of burst) server.send(c.body);
        nullIdsExpected += burst.filter((c) => c.id === null).length;
        const ids = burst.filter((c) => c.id !== null).map((c) => c.id);
        await server.until(
          (received) => {
            const answered = new Set(received.slice(offset).map((l) => l.json.id));
            return ids.every((id) => answered.has(id)) && received.slice(offset).filter((l) => l.json.id === null).length >= nullIdsExpected;
          },
          120_000,
          `answers to requests ${start}..${start + burst.length - 1}`,
        );
      }
      const answers = server.received.slice(offset).filter((l) => l.json.id !== undefined);
      const byId = new Map(answers.map((l) => [l.json.id, l]));
      for (const c of cases.filter((c) => c.id !== null)) {
        const answer = byId.get(c.id);
        expect(answer && isErrorAnswer(answer.json), `${c.label}: ${answer?.text.slice(0, 300)}`).toBe(true);
      }
      const nullAnswers = answers.filter((l) => l.json.id === null);
      expect(nullAnswers).toHaveLength(nullIdsExpected);
      for (const a of nullAnswers) expect([-32700, -32600]).toContain(a.json.error?.code);
      // Every request got exactly one answer: no duplicates, nothing unasked.
      expect(answers).toHaveLength(cases.length);

      expect(server.alive).toBe(true);
      const list = await server.request('after', 'tools/list');
      expect((list.json.result as { tools: unknown[] }).tools).toHaveLength(3);
      const run = await server.request('after-run', 'tools/call', { name: 'run_script', arguments: { code: 'return 40 + 2;' } });
      expect((run.json.result as { structuredContent: { result: unknown } }).structuredContent.result).toBe(42);
    } finally {
      await server.close();
    }
  });

  it(`HTTP: ${COUNT} malformed requests, ${BURST} at a time, each answered with an error`, async () => {
    const server: HttpServerProcess = await startHttpServe(env, TOKEN);
    try {
      const headers = {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      const init = await fetch(server.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } }),
      });
      expect(init.status).toBe(200);
      await init.text();
      const session = init.headers.get('mcp-session-id') as string;
      expect(session).toBeTruthy();
      const withSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
      await fetch(server.url, { method: 'POST', headers: withSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });

      const post = async (c: FuzzCase, h: Record<string, string>): Promise<{ status: number; answer: unknown; raw: string }> => {
        const res = await fetch(server.url, { method: 'POST', headers: h, body: c.body });
        const raw = await res.text();
        return { status: res.status, answer: parseAnswer(raw, res.headers.get('content-type')), raw };
      };

      // Most go to the live session; some arrive without a session or with a stale one.
      const cases = [...fuzzCases(COUNT, 23), ...hugeCases()];
      const stale = { ...withSession, 'mcp-session-id': '00000000-0000-4000-8000-000000000000' };
      const noSession = headers;
      for (let start = 0; start < cases.length; start += BURST) {
        const burst = cases.slice(start, start + BURST);
        const results = await Promise.all(burst.map((c, i) => post(c, (start + i) % 17 === 0 ? stale : (start + i) % 19 === 0 ? noSession : withSession)));
        results.forEach((r, i) => {
          const c = burst[i] as FuzzCase;
          expect(isErrorAnswer(r.answer), `${c.label} ${c.body.slice(0, 100)} → HTTP ${r.status}: ${r.raw.slice(0, 300)}`).toBe(true);
        });
      }
      // A body over the 4 MB limit is refused before it is parsed.
      const tooBig = await post(
        { body: JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'tools/list', params: { pad: 'x'.repeat(5 * 1024 * 1024) } }), id: 'big', label: '5 MB body' },
        withSession,
      );
      expect(tooBig.status).toBe(413);
      expect(isErrorAnswer(tooBig.answer)).toBe(true);
      // Wrong media types and methods.
      const plain = await fetch(server.url, { method: 'POST', headers: { ...withSession, 'content-type': 'text/plain' }, body: 'hello' });
      expect(plain.status).toBeGreaterThanOrEqual(400);
      const put = await fetch(server.url, { method: 'PUT', headers: withSession, body: '{}' });
      expect(put.status).toBe(405);
      const elsewhere = await fetch(new URL('/admin', server.url), { headers: withSession });
      expect(elsewhere.status).toBe(404);

      expect(server.child.exitCode).toBeNull();
      const client = await connectHttp(server.url, TOKEN, { name: 'after-fuzz' });
      try {
        expect((await client.client.listTools()).tools).toHaveLength(3);
        expect(runAnswer((await callTool(client, 'run_script', { code: 'return 40 + 2;' })).result).result).toBe(42);
      } finally {
        await client.close();
      }
    } finally {
      await server.close();
    }
  });
});

/** The JSON-RPC answer in a JSON or SSE response body. */
function parseAnswer(raw: string, contentType: string | null): unknown {
  if (contentType?.includes('text/event-stream')) {
    for (const line of raw.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const message = JSON.parse(line.slice(5)) as { id?: unknown };
      if ('id' in message) return message;
    }
    return undefined;
  }
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
