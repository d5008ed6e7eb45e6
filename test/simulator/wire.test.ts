/**
 * Wire-level fidelity (pve-api-facts checklist §6, points 1–4, 18–22, 36) over real HTTPS.
 */
import { connect as tlsConnect } from 'node:tls';
import { connect as netConnect } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFromString } from '../../src/schema/loader.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call, startTestSimulator } from './helpers.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startTestSimulator();
});
afterAll(async () => {
  await sim.close();
});

/** Raw HTTP/1.1 exchange on a TLS or plain socket, to see exactly what goes over the wire. */
function rawExchange(text: string, tls = true): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls ? tlsConnect({ host: '127.0.0.1', port: sim.port, rejectUnauthorized: false }) : netConnect({ host: '127.0.0.1', port: sim.port });
    const chunks: Buffer[] = [];
    socket.on(tls ? 'secureConnect' : 'connect', () => socket.write(text));
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}

/** Status line and raw header lines of a response, via node:https so the reason phrase is visible. */
function rawHead(path: string, headers: Record<string, string>): Promise<{ status: number; reason: string; raw: string[]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${sim.url}${path}`, { headers, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', raw: res.rawHeaders, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('simulator wire protocol', () => {
  it('point 1: serves HTTPS with the announced certificate fingerprint, redirects plain HTTP (301 GET, 308 POST)', async () => {
    const fingerprint = await new Promise<string>((resolve, reject) => {
      const s = tlsConnect({ host: '127.0.0.1', port: sim.port, rejectUnauthorized: false }, () => {
        resolve(s.getPeerX509Certificate()?.fingerprint256 ?? '');
        s.end();
      });
      s.on('error', reject);
    });
    expect(fingerprint).toBe(sim.fingerprint);
    expect(sim.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const get = await rawExchange('GET /api2/json/version HTTP/1.1\r\nHost: pve.example:8006\r\nConnection: close\r\n\r\n', false);
    expect(get).toMatch(/^HTTP\/1\.1 301 /);
    expect(get).toMatch(/\r\nLocation: https:\/\/pve\.example:8006\/api2\/json\/version\r\n/i);
    const post = await rawExchange('POST /api2/json/access/ticket HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nConnection: close\r\n\r\n', false);
    expect(post).toMatch(/^HTTP\/1\.1 308 /);
  });

  it('point 2: routes /api2/json and /api2/extjs (always 200 with success/status/message); other formats 501', async () => {
    const json = await call(sim, '/api2/json/version');
    expect(json.status).toBe(200);
    expect(json.json.data.version).toEqual(expect.any(String));
    const ext = await call(sim, '/api2/extjs/nodes/pve1/qemu/abc/status/current');
    expect(ext.status).toBe(200);
    expect(ext.json).toMatchObject({ success: 0, status: 400, message: 'Parameter verification failed.\n', errors: { vmid: expect.any(String) } });
    const extOk = await call(sim, '/api2/extjs/version');
    expect(extOk.json).toMatchObject({ success: 1, data: { version: expect.any(String) } });
    const png = await call(sim, '/api2/png/version');
    expect(png.status).toBe(501);
    expect(png.statusText).toBe('no formatter for uri /version, png');
    const noFormat = await call(sim, '/api2/');
    expect(noFormat.status).toBe(501);
    expect(noFormat.statusText).toBe('no such uri');
  });

  it('point 3: only GET/POST/PUT/DELETE; others get 501 "method \'X\' not available" with an empty body', async () => {
    for (const method of ['PATCH', 'OPTIONS', 'HEAD']) {
      const r = await call(sim, '/api2/json/version', { method });
      expect(r.status).toBe(501);
      if (method !== 'HEAD') expect(r.statusText).toBe(`method '${method}' not available`);
      expect(r.text).toBe('');
    }
  });

  it('point 4: authentication comes before routing (401 No ticket beats 501)', async () => {
    const anon = await call(sim, '/api2/json/nodes/pve1/no-such-thing', { auth: 'none' });
    expect(anon.status).toBe(401);
    expect(anon.statusText).toBe('No ticket');
    expect(anon.text).toBe('');
    const authed = await call(sim, '/api2/json/nodes/pve1/no-such-thing');
    expect(authed.status).toBe(501);
  });

  it('point 18: form and JSON bodies, 506 for other content types, 501 for GET bodies, query overrides body, _dc dropped, repeated keys joined', async () => {
    const form = await call(sim, '/api2/json/access/users', { method: 'POST', body: { userid: 'form@pve', comment: 'from form' } });
    expect(form.status).toBe(200);
    const json = await call(sim, '/api2/json/access/users', { method: 'POST', json: true, body: { userid: 'json@pve', comment: 'from json' } });
    expect(json.status).toBe(200);
    expect((await call(sim, '/api2/json/access/users/json@pve')).json.data.comment).toBe('from json');
    const plain = await call(sim, '/api2/json/access/users', { method: 'POST', body: 'userid=x@pve', headers: { 'Content-Type': 'text/plain;charset=UTF-8' } });
    expect(plain.status).toBe(506);
    expect(plain.statusText).toBe("upload 'Content-Type 'text/plain;charset=UTF-8' not implemented");
    const upper = await call(sim, '/api2/json/access/users', { method: 'POST', body: '{}', headers: { 'Content-Type': 'Application/JSON' } });
    expect(upper.status).toBe(506);
    const getBody = await rawExchange(`GET /api2/json/version HTTP/1.1\r\nHost: h\r\nAuthorization: ${sim.token.header}\r\nContent-Length: 3\r\nConnection: close\r\n\r\na=1`);
    expect(getBody).toMatch(/^HTTP\/1\.1 501 Unexpected content for method 'GET'\r\n/);
    const del = await rawExchange(
      `DELETE /api2/json/access/users/form@pve HTTP/1.1\r\nHost: h\r\nAuthorization: ${sim.token.header}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\nConnection: close\r\n\r\na=1`,
    );
    expect(del).toMatch(/^HTTP\/1\.1 501 Unexpected content for method 'DELETE'\r\n/);
    const override = await call(sim, '/api2/json/access/users/json@pve?comment=from%20query', { method: 'PUT', body: { comment: 'from body' } });
    expect(override.status).toBe(200);
    expect((await call(sim, '/api2/json/access/users/json@pve')).json.data.comment).toBe('from query');
    expect((await call(sim, '/api2/json/version?_dc=1700000000000')).status).toBe(200);
    const repeated = await call(sim, '/api2/json/access/acl', {
      method: 'PUT',
      body: { path: '/vms', roles: 'PVEAuditor', users: ['form@pve', 'json@pve'] },
    });
    expect(repeated.status).toBe(200);
    const acl = (await call(sim, '/api2/json/access/acl')).json.data as Array<{ ugid: string; path: string }>;
    expect(
      acl
        .filter((e) => e.path === '/vms')
        .map((e) => e.ugid)
        .sort(),
    ).toEqual(['form@pve', 'json@pve']);
  });

  it('point 18: bodies above 512 KiB and chunked requests are refused with 501', async () => {
    const big = await rawExchange(
      `POST /api2/json/access/users HTTP/1.1\r\nHost: h\r\nAuthorization: ${sim.token.header}\r\nContent-Type: application/json\r\nContent-Length: ${600 * 1024}\r\nConnection: close\r\n\r\n`,
    );
    expect(big).toMatch(/^HTTP\/1\.1 501 for data too large\r\n/);
    const chunked = await rawExchange(`POST /api2/json/access/users HTTP/1.1\r\nHost: h\r\nAuthorization: ${sim.token.header}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`);
    expect(chunked).toMatch(/^HTTP\/1\.1 501 chunked transfer encoding not supported\r\n/);
  });

  it('point 19: the whole path is URL-decoded before routing', async () => {
    const encoded = await call(sim, '/api2/json/access/users/root%40pam');
    expect(encoded.status).toBe(200);
    const fully = await call(sim, '/api2/json%2Faccess%2Fusers%2Froot%40pam');
    expect(fully.status).toBe(200);
    const list = await call(sim, '/api2/json/nodes/pve1/tasks?limit=1');
    const upid = list.json.data[0]?.upid as string | undefined;
    if (upid) {
      const st = await call(sim, `/api2/json/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`);
      expect(st.status).toBe(200);
      expect(st.json.data.upid).toBe(upid);
    }
  });

  it('point 19: a storage volume ID with "/" fits in the rest-of-path {volume} parameter', async () => {
    const storages = (await call(sim, '/api2/json/nodes/pve1/storage')).json.data as Array<{ storage: string }>;
    let found: { storage: string; volid: string } | undefined;
    for (const { storage } of storages) {
      const content = (await call(sim, `/api2/json/nodes/pve1/storage/${storage}/content`)).json.data as Array<{ volid: string }>;
      const volid = content.find((v) => v.volid.includes('/'))?.volid;
      if (volid) {
        found = { storage, volid };
        break;
      }
    }
    expect(found, 'the demo preset has a volume with "/" in its ID').toBeDefined();
    const { storage, volid } = found as { storage: string; volid: string };
    const raw = await call(sim, `/api2/json/nodes/pve1/storage/${storage}/content/${volid}`);
    expect(raw.status).toBe(200);
    const encoded = await call(sim, `/api2/json/nodes/pve1/storage/${storage}/content/${encodeURIComponent(volid)}`);
    expect(encoded.status).toBe(200);
    expect(encoded.json).toEqual(raw.json);
  });

  it('point 20: {data} envelope with total, error envelope with message and errors, reason = first message line', async () => {
    const tasks = await call(sim, '/api2/json/nodes/pve1/tasks?limit=2');
    expect(tasks.json).toEqual({ data: expect.any(Array), total: expect.any(Number) });
    const bad = await call(sim, '/api2/json/nodes/pve1/qemu/abc/status/current');
    expect(bad.status).toBe(400);
    expect(bad.statusText).toBe('Parameter verification failed.');
    expect(bad.json).toEqual({ data: null, message: 'Parameter verification failed.\n', errors: { vmid: "type check ('integer') failed - got 'abc'" } });
    const missing = await call(sim, '/api2/json/nodes/pve1/qemu/4242/status/current');
    expect(missing.status).toBe(500);
    expect(missing.statusText).toBe("Configuration file 'nodes/pve1/qemu-server/4242.conf' does not exist");
    expect(missing.json).toEqual({ data: null, message: "Configuration file 'nodes/pve1/qemu-server/4242.conf' does not exist\n" });
  });

  it('point 21: exact headers, Connection: close on errors, gzip above 1024 bytes when accepted', async () => {
    const ok = await rawHead('/api2/json/version', { Authorization: sim.token.header });
    const names = ok.raw.filter((_, i) => i % 2 === 0);
    const h = (name: string) => ok.raw[ok.raw.findIndex((v, i) => i % 2 === 0 && v.toLowerCase() === name.toLowerCase()) + 1];
    expect(h('Content-Type')).toBe('application/json;charset=UTF-8');
    expect(h('Server')).toBe('pve-api-daemon/3.0');
    expect(h('Cache-Control')).toBe('max-age=0');
    expect(h('Pragma')).toBe('no-cache');
    expect(h('Expires')).toBe(h('Date'));
    expect(h('Connection')).toBe('Keep-Alive');
    expect(names).toContain('Content-Length');
    const err = await rawHead('/api2/json/nodes/pve1/qemu/abc/status/current', { Authorization: sim.token.header });
    expect(err.raw[err.raw.findIndex((v) => v.toLowerCase() === 'connection') + 1]).toBe('close');
    const unauth = await rawHead('/api2/json/version', {});
    expect(unauth.raw.map((v) => v.toLowerCase())).not.toContain('content-type');
    expect(unauth.raw.map((v) => v.toLowerCase())).not.toContain('content-length');
    const big = await rawHead('/api2/json/cluster/resources', { Authorization: sim.token.header, 'Accept-Encoding': 'gzip' });
    expect(big.raw[big.raw.findIndex((v) => v.toLowerCase() === 'content-encoding') + 1]).toBe('gzip');
    expect(JSON.parse(gunzipSync(big.body).toString('utf8')).data.length).toBeGreaterThan(10);
    const small = await rawHead('/api2/json/version', { Authorization: sim.token.header, 'Accept-Encoding': 'gzip' });
    expect(small.raw.map((v) => v.toLowerCase())).not.toContain('content-encoding');
  });

  it('point 22: unknown routes and methods get 501 "Method \'VERB /path\' not implemented" with a JSON message', async () => {
    const r = await call(sim, '/api2/json/nodes/pve1/bogus');
    expect(r.status).toBe(501);
    expect(r.statusText).toBe("Method 'GET /nodes/pve1/bogus' not implemented");
    expect(r.json).toEqual({ data: null, message: "Method 'GET /nodes/pve1/bogus' not implemented" });
    const wrongMethod = await call(sim, '/api2/json/version', { method: 'DELETE' });
    expect(wrongMethod.json.message).toBe("Method 'DELETE /version' not implemented");
  });

  it('point 36: apidoc.js and the viewer page are served without authentication; non-API unknown files 501', async () => {
    const r = await call(sim, '/pve-docs/api-viewer/apidoc.js', { auth: 'none' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/javascript');
    expect(r.text.startsWith('const apiSchema = [')).toBe(true);
    const model = loadSchemaFromString(r.text, { kind: 'url' });
    expect(model.operations.length).toBe(sim.model.operations.length);
    const lastModified = r.headers.get('last-modified') ?? '';
    const again = await call(sim, '/pve-docs/api-viewer/apidoc.js', { auth: 'none', headers: { 'If-Modified-Since': lastModified } });
    expect(again.status).toBe(304);
    const index = await call(sim, '/pve-docs/api-viewer/index.html', { auth: 'none' });
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html');
    const missing = await call(sim, '/pve-docs/nothing.js', { auth: 'none' });
    expect(missing.status).toBe(501);
    expect(missing.statusText).toBe("no such file '/pve-docs/nothing.js'");
  });
});
