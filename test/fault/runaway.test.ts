/**
 * A node whose proxy misbehaves: an answer that never ends, one that trickles a byte at a time,
 * a request that is accepted and never answered — for reads and for a write. The run is answered
 * within its deadline with each call's outcome, the hung write is `unknown` (never cancelled),
 * the server's memory stays bounded, and the worker is free for the next run. Each timeout is
 * shortened in the cluster's config so the case takes seconds, not the defaults' minute.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tlsIdentity } from '../../src/simulator/server/certificate.js';
import { OFFICIAL_SCHEMA, startE2eEnv, type E2eEnv } from '../e2e/helpers/harness.js';
import { callTool, connectStdio, runAnswer, type Connected } from '../e2e/helpers/mcp.js';
import { auditEntries } from './audit-trail.js';

const TOKEN = { id: 'root@pam!fault', secret: '0b2f6c1e-5d1a-4f1e-9c3b-7a6d5e4f3a2b' };

let env: E2eEnv;
let hostile: Server;
let mcp: Connected;
let port = 0;
const open = new Set<import('node:net').Socket>();

beforeAll(async () => {
  if (!OFFICIAL_SCHEMA) throw new Error('the runaway-response cases need the official 9.1 schema (PVE_SCHEMA_DIR)');
  env = await startE2eEnv();
  const id = await tlsIdentity(undefined, '127.0.0.1');
  hostile = createServer({ cert: id.cert, key: id.key }, (req, res) => {
    const path = (req.url ?? '').replace(/^\/api2\/json/, '').split('?')[0];
    if (path === '/cluster/resources') {
      // An answer that never ends, as fast as the client reads it.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      const chunk = Buffer.from('{"id":"qemu/100","type":"qemu","vmid":100,"node":"pve1","name":"x"},'.repeat(1000));
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
      return;
    }
    if (path === '/nodes') {
      // A byte every 200 ms: never idle long enough for an idle timeout.
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 200);
      return;
    }
    if (req.method === 'GET' && path === '/nodes/pve1/qemu/100/config') {
      // The identity check before the write is answered, so the write itself goes out.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { name: 'x', memory: 2048, digest: 'a'.repeat(40) } }));
      return;
    }
    // Everything else (GET /version, the POST) is accepted and never answered.
  });
  hostile.on('connection', (s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', () => r()));
  port = (hostile.address() as import('node:net').AddressInfo).port;
  const config = JSON.parse(readFileSync(env.configFile, 'utf8')) as Record<string, any>;
  config.clusters = {
    hung: {
      url: `https://127.0.0.1:${port}`,
      auth: { tokenId: TOKEN.id, secret: TOKEN.secret },
      tls: { fingerprint: id.fingerprint },
      schema: OFFICIAL_SCHEMA,
      policy: 'e2e',
      timeouts: { headersMs: 3_000, bodyMs: 2_000, requestMs: 6_000 },
    },
  };
  const file = join(env.dir, 'hung.json');
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  mcp = await connectStdio(env, { name: 'runaway' }, file);
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  for (const s of open) s.destroy();
  await new Promise<void>((r) => hostile?.close(() => r()));
  await env?.close();
});

function serverRssMb(): number {
  const pid = (mcp.client.transport as unknown as { pid?: number }).pid;
  if (!pid) throw new Error('no server pid');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

describe('a node that never ends, trickles or hangs', () => {
  it("answers the run within its deadline with each call's outcome, and memory stays bounded", async () => {
    const before = serverRssMb();
    const code = `
const attempt = async (what, f) => {
  try { await f(); return { what, ok: true }; }
  catch (e) { return { what, kind: e.kind, outcome: e.outcome, message: String(e.message).slice(0, 200) }; }
};
return await Promise.all([
  attempt('endless', () => pve.get('/cluster/resources')),
  attempt('trickle', () => pve.get('/nodes')),
  attempt('hung read', () => pve.get('/version')),
  attempt('hung write', () => pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 100 })),
]);`;
    const started = Date.now();
    const { result } = await callTool(mcp, 'run_script', { code, typecheck: false });
    const elapsed = Date.now() - started;
    const answer = runAnswer(result);
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
    const byWhat = Object.fromEntries((answer.result as Array<{ what: string }>).map((r) => [r.what, r])) as Record<string, { ok?: boolean; kind?: string; outcome?: string; message?: string }>;
    expect(byWhat.endless).toMatchObject({ outcome: 'failed' });
    expect(byWhat.endless?.message).toMatch(/larger than|bytes/);
    expect(byWhat.trickle).toMatchObject({ outcome: 'failed' });
    expect(byWhat['hung read']).toMatchObject({ outcome: 'failed' });
    // The hung write reached the node: it may have run.
    expect(byWhat['hung write']).toMatchObject({ kind: 'unknown', outcome: 'unknown' });
    expect(elapsed).toBeLessThan(55_000);
    expect(serverRssMb() - before).toBeLessThan(300);
    const calls = auditEntries(env.stateDir).filter((e) => e.type === 'call' && e.data.method === 'POST');
    expect(calls.map((c) => c.data.outcome)).toEqual(['unknown']);
    expect(auditEntries(env.stateDir).some((e) => e.type === 'intent')).toBe(true);
    // The worker is free: the next run answers at once.
    const next = Date.now();
    expect(runAnswer((await callTool(mcp, 'run_script', { code: 'return 1', typecheck: false })).result).result).toBe(1);
    expect(Date.now() - next).toBeLessThan(5_000);
  });
});
