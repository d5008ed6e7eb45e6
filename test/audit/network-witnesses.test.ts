/**
 * The witness transports that can fail loudly: TCP and TLS syslog (RFC 6587 octet counting) and
 * HTTPS, against local receivers on 127.0.0.1. What is received is parsed back and verified; a
 * receiver that is down, breaks the connection, shows the wrong certificate or answers 500 is
 * reported through onFailure.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/audit/log.js';
import { verifyAudit } from '../../src/audit/verify.js';
import { openWitness, parseWitness, type WitnessRecord } from '../../src/audit/witness.js';
import { loadStateSettings } from '../../src/app/config/app-config.js';
import { tlsIdentity, type TlsIdentity } from '../../src/simulator/server/certificate.js';

const KEY = 'witness-transport-key-0123456789abcdef';
let dir: string;
let identity: TlsIdentity;
beforeAll(async () => {
  identity = await tlsIdentity(undefined, 'localhost');
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-witness-net-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Splits an octet-counted stream (`<length> <message>`…) into messages; throws on bad framing. */
function unframe(stream: Buffer): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < stream.length) {
    const space = stream.indexOf(0x20, at);
    const len = Number(stream.subarray(at, space).toString('ascii'));
    if (space < 0 || !Number.isSafeInteger(len) || len <= 0) throw new Error(`bad frame header at byte ${at}`);
    out.push(stream.subarray(space + 1, space + 1 + len).toString('utf8'));
    at = space + 1 + len;
  }
  return out;
}

async function listen(server: Server | HttpsServer): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as { port: number }).port;
}

function closeServer(server: Server | HttpsServer, sockets: Set<Socket> = new Set()): Promise<void> {
  for (const s of sockets) s.destroy();
  return new Promise((r) => server.close(() => r()));
}

/** A receiver that keeps every byte of every connection. */
function streamReceiver(make: (onSocket: (s: Socket) => void) => Server): { server: Server; bytes: () => Buffer; sockets: Set<Socket> } {
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server = make((s) => {
    sockets.add(s);
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('close', () => sockets.delete(s));
  });
  return { server, bytes: () => Buffer.concat(chunks), sockets };
}

function failures(): { messages: string[]; recovered: number; hooks: { onFailure(m: string): void; onRecovered(): void } } {
  const out = { messages: [] as string[], recovered: 0, hooks: { onFailure: (m: string) => out.messages.push(m), onRecovered: () => void out.recovered++ } };
  return out;
}

function record(seq: number): WitnessRecord {
  return { chain: 'c0ffee00-0000-4000-8000-000000000000', index: 1, seq, hash: String(seq).padStart(64, 'a'), ts: new Date(Date.UTC(2030, 0, 1, 0, 0, seq)).toISOString() };
}

async function waitFor(check: () => boolean, ms = 3_000): Promise<void> {
  for (const end = Date.now() + ms; !check() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
}

describe('TCP syslog witness', () => {
  it('frames RFC 5424 messages by octet counting; an export of them verifies the log', async () => {
    const rx = streamReceiver((on) => createTcpServer(on));
    const port = await listen(rx.server);
    const file = join(dir, 'audit', 'audit.jsonl');
    const f = failures();
    try {
      // The log opens its witness without hooks: this checks the transport end to end.
      const log = AuditLog.open({ file, hmacKey: KEY, witness: { syslog: { host: '127.0.0.1', port, transport: 'tcp' } } });
      for (let i = 0; i < 5; i++) log.append('call', { runId: `r${i}`, method: 'GET', path: '/version', status: 'ok', durationMs: 1 });
      log.close();
      const direct = openWitness({ syslog: { host: '127.0.0.1', port, transport: 'tcp' } }, f.hooks);
      for (let i = 0; i < 3; i++) direct.write(record(i), KEY);
      await direct.flush(2_000);
      direct.close();
      await waitFor(() => unframe(rx.bytes()).length >= 5);
    } finally {
      await closeServer(rx.server, rx.sockets);
    }
    const messages = unframe(rx.bytes());
    expect(f.messages).toEqual([]);
    for (const m of messages) expect(m).toMatch(/^<110>1 \S+ \S+ pve-code-mcp \d+ audit - \{"pve-code-mcp-witness":1,.*\}$/);
    expect(
      parseWitness(messages.join('\n'), KEY)
        .records.filter((r) => r.chain === record(0).chain)
        .map((r) => r.seq),
    ).toEqual([0, 1, 2]);
    const exported = join(dir, 'export.txt');
    writeFileSync(exported, messages.map((m) => `Jan  1 00:00:00 host ${m}`).join('\n') + '\n');
    const v = verifyAudit(file, { hmacKey: KEY, witness: exported });
    expect(v.problems).toEqual([]);
    expect(v.witnessed).toBeGreaterThanOrEqual(2);
  });

  it("flushWitness publishes the chain's end before close, and gives up after its timeout when the receiver is down", async () => {
    const rx = streamReceiver((on) => createTcpServer(on));
    const port = await listen(rx.server);
    const file = join(dir, 'audit', 'audit.jsonl');
    const log = AuditLog.open({ file, hmacKey: KEY, witness: { syslog: { host: '127.0.0.1', port, transport: 'tcp' } } });
    try {
      const last = log.append('call', { runId: 'r', method: 'GET', path: '/version', status: 'ok', durationMs: 1 });
      await log.flushWitness(2_000);
      await waitFor(() => parseWitness(unframe(rx.bytes()).join('\n'), KEY).records.some((r) => r.seq === last.seq));
    } finally {
      log.close();
      await closeServer(rx.server, rx.sockets);
    }
    const down = AuditLog.open({ file: join(dir, 'down', 'audit.jsonl'), hmacKey: KEY, witness: { syslog: { host: '127.0.0.1', port, transport: 'tcp' } }, stderr: () => undefined });
    try {
      down.append('call', { runId: 'r', method: 'GET', path: '/version', status: 'ok', durationMs: 1 });
      const started = Date.now();
      await down.flushWitness(300);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      down.close();
    }
  });

  it('a receiver that is down is reported, and so is one that closes the connection', async () => {
    const down = createTcpServer();
    const port = await listen(down);
    await closeServer(down);
    const f = failures();
    const w = openWitness({ syslog: { host: '127.0.0.1', port, transport: 'tcp' } }, f.hooks);
    w.write(record(1), KEY);
    await w.flush(3_000);
    expect(f.messages).toHaveLength(1);
    expect(f.messages[0]).toMatch(new RegExp(`^the audit witness syslog tcp://127\\.0\\.0\\.1:${port} did not take the record of seq 1: .*ECONNREFUSED`));
    w.close();

    const rx = streamReceiver((on) => createTcpServer(on));
    const port2 = await listen(rx.server);
    const g = failures();
    const w2 = openWitness({ syslog: { host: '127.0.0.1', port: port2, transport: 'tcp' } }, g.hooks);
    try {
      w2.write(record(2), KEY);
      await w2.flush(2_000);
      await waitFor(() => unframe(rx.bytes()).length === 1);
      for (const s of rx.sockets) s.destroy();
      await waitFor(() => g.messages.length > 0);
      expect(g.messages[0]).toMatch(/was closed by the other end: the records sent just before may be lost/);
      // The next record reconnects and is delivered.
      w2.write(record(3), KEY);
      await w2.flush(2_000);
      expect(g.recovered).toBe(1);
      await waitFor(() => unframe(rx.bytes()).length === 2);
      expect(unframe(rx.bytes())).toHaveLength(2);
    } finally {
      w2.close();
      await closeServer(rx.server, rx.sockets);
    }
  });
});

describe('TLS syslog witness', () => {
  it('sends over TLS to a pinned or CA-trusted receiver; refuses a certificate that is neither', async () => {
    const rx = streamReceiver((on) => createTlsServer({ cert: identity.cert, key: identity.key }, on));
    const port = await listen(rx.server);
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, identity.cert);
    const f = failures();
    try {
      const pinned = openWitness({ syslog: { host: '127.0.0.1', port, transport: 'tls', tls: { fingerprint: identity.fingerprint } } }, f.hooks);
      pinned.write(record(1), KEY);
      await pinned.flush(3_000);
      pinned.close();
      const byCa = openWitness({ syslog: { host: '127.0.0.1', port, transport: 'tls', tls: { caFile } } }, f.hooks);
      byCa.write(record(2), KEY);
      await byCa.flush(3_000);
      byCa.close();
      await waitFor(() => unframe(rx.bytes()).length === 2);
      expect(f.messages).toEqual([]);
      expect(
        parseWitness(unframe(rx.bytes()).join('\n'), KEY)
          .records.map((r) => r.seq)
          .sort(),
      ).toEqual([1, 2]);

      const g = failures();
      const wrongPin = openWitness({ syslog: { host: '127.0.0.1', port, transport: 'tls', tls: { fingerprint: 'AB'.repeat(32) } } }, g.hooks);
      wrongPin.write(record(3), KEY);
      await wrongPin.flush(3_000);
      wrongPin.close();
      const untrusted = openWitness({ syslog: { host: '127.0.0.1', port, transport: 'tls' } }, g.hooks);
      untrusted.write(record(4), KEY);
      await untrusted.flush(3_000);
      untrusted.close();
      expect(g.messages).toHaveLength(2);
      expect(g.messages[0]).toMatch(/seq 3: TLS with 127\.0\.0\.1:\d+ failed: its certificate fingerprint .* is not the pinned AB:AB/);
      expect(g.messages[1]).toMatch(/seq 4: TLS with 127\.0\.0\.1:\d+ failed: its certificate is not trusted \(.*\): give tls\.caFile or pin tls\.fingerprint/);
      expect(unframe(rx.bytes())).toHaveLength(2);
    } finally {
      await closeServer(rx.server, rx.sockets);
    }
  });
});

describe('HTTPS witness', () => {
  let server: HttpsServer;
  let port: number;
  const received: Array<{ auth: string | undefined; type: string | undefined; body: string }> = [];
  let answer = 204;
  let hang = false;
  beforeAll(async () => {
    server = createHttpsServer({ cert: identity.cert, key: identity.key }, (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        if (hang) return;
        received.push({ auth: req.headers.authorization, type: req.headers['content-type'], body });
        res.writeHead(answer, answer >= 400 ? { 'content-type': 'text/plain' } : {});
        res.end(answer >= 400 ? 'store unavailable' : undefined);
      });
    });
    port = await listen(server);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await closeServer(server);
  });

  it('POSTs each record as JSON with the bearer token; a 500 is a failure, a later 2xx a recovery', async () => {
    process.env.WITNESS_TEST_TOKEN = 's3cret-token';
    const f = failures();
    const w = openWitness({ https: { url: `https://127.0.0.1:${port}/witness`, token: { env: 'WITNESS_TEST_TOKEN' }, tls: { fingerprint: identity.fingerprint } } }, f.hooks);
    try {
      w.write(record(1), KEY);
      await w.flush(3_000);
      expect(f.messages).toEqual([]);
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ auth: 'Bearer s3cret-token', type: 'application/json' });
      expect(parseWitness((received[0] as { body: string }).body, KEY).records.map((r) => r.seq)).toEqual([1]);

      answer = 500;
      w.write(record(2), KEY);
      await w.flush(3_000);
      expect(f.messages).toEqual([
        `the audit witness https https://127.0.0.1:${port}/witness did not take the record of seq 2: the endpoint answered HTTP 500 Internal Server Error (store unavailable)`,
      ]);

      answer = 201;
      w.write(record(3), KEY);
      await w.flush(3_000);
      expect(f.recovered).toBe(1);
      expect(f.messages).toHaveLength(1);
    } finally {
      answer = 204;
      w.close();
      delete process.env.WITNESS_TEST_TOKEN;
    }
  });

  it('a token file, a server that is down, a request that hangs past the timeout, a flush that gives up', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'from-file\n', { mode: 0o600 });
    const f = failures();
    const w = openWitness({ https: { url: `https://127.0.0.1:${port}/w`, token: { file: tokenFile }, tls: { fingerprint: identity.fingerprint }, timeoutMs: 300 } }, f.hooks);
    try {
      const before = received.length;
      w.write(record(1), KEY);
      await w.flush(3_000);
      expect(received[before]?.auth).toBe('Bearer from-file');

      hang = true;
      w.write(record(2), KEY);
      await w.flush(3_000);
      expect(f.messages).toEqual([expect.stringMatching(/seq 2: no answer within 300 ms$/)]);

      w.write(record(3), KEY);
      await w.flush(50);
      expect(f.messages[1]).toMatch(/did not take 1 record\(s\) within 50 ms of the shutdown$/);
      await w.flush(3_000);
    } finally {
      hang = false;
      w.close();
    }

    const down = createTcpServer();
    const downPort = await listen(down);
    await closeServer(down);
    const g = failures();
    const off = openWitness({ https: { url: `https://127.0.0.1:${downPort}/w`, tls: { fingerprint: identity.fingerprint } } }, g.hooks);
    off.write(record(4), KEY);
    await off.flush(3_000);
    off.close();
    expect(g.messages).toEqual([expect.stringMatching(/seq 4: .*ECONNREFUSED/)]);
  });

  it('a full queue drops its oldest record and says so; write() never waits', async () => {
    // A receiver that accepts and never answers the TLS handshake holds the first record.
    const silent = createTcpServer(() => undefined);
    const silentPort = await listen(silent);
    const f = failures();
    const w = openWitness({ https: { url: `https://127.0.0.1:${silentPort}/w`, timeoutMs: 5_000 } }, f.hooks);
    try {
      const started = Date.now();
      for (let i = 0; i < 1002; i++) w.write(record(i), KEY);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(f.messages).toEqual([`the audit witness https https://127.0.0.1:${silentPort}/w is behind (1000 records waiting): the record of seq 1 was dropped`]);
    } finally {
      silent.close();
      silent.unref();
      w.close();
    }
  });

  it('options that cannot work fail when the witness opens', () => {
    expect(() => openWitness({ https: { url: 'http://127.0.0.1/w' } })).toThrow(/is not https/);
    expect(() => openWitness({ https: { url: 'https://127.0.0.1/w', token: { env: 'NO_SUCH_WITNESS_TOKEN_VAR' } } })).toThrow(/NO_SUCH_WITNESS_TOKEN_VAR is not set/);
    expect(() => openWitness({ syslog: { host: '127.0.0.1', transport: 'tls', tls: { fingerprint: 'nope' } } })).toThrow(/not a SHA-256 fingerprint/);
  });
});

describe('witness config', () => {
  it('resolves the transports, their files relative to the config, seconds to ms; rejects an http URL', () => {
    const load = (witness: unknown): unknown => {
      const file = join(dir, 'config.json');
      writeFileSync(file, JSON.stringify({ audit: { hmacKey: KEY, witness } }));
      return loadStateSettings({ file, env: {} }).audit.witness;
    };
    expect(load({ syslog: { host: 'log.example', transport: 'tls', tls: { caFile: 'ca.pem' } } })).toEqual({
      syslog: { host: 'log.example', transport: 'tls', timeoutMs: 10_000, tls: { caFile: join(dir, 'ca.pem') } },
    });
    expect(load({ syslog: { host: 'log.example' } })).toEqual({ syslog: { host: 'log.example', transport: 'udp', timeoutMs: 10_000 } });
    expect(load({ https: { url: 'https://w.example/r', token: { file: 'tok' }, tls: { fingerprint: identity.fingerprint }, timeoutSeconds: 2 } })).toEqual({
      https: { url: 'https://w.example/r', timeoutMs: 2_000, token: { file: join(dir, 'tok') }, tls: { fingerprint: identity.fingerprint } },
    });
    expect(() => load({ https: { url: 'http://w.example/r' } })).toThrow(/https URL/);
  });
});
