/**
 * A local HTTPS server on 127.0.0.1 that misbehaves on purpose (never-ending, trickling or hung
 * answers, resets, odd statuses), for the client's fault tests. Each test sets `behave`; the
 * server records every request it received in full.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PveClient, type PveClientOptions } from '../../src/client/index.js';
import { tlsIdentity } from '../../src/simulator/server/certificate.js';

export type Behaviour = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface FaultServer {
  url: string;
  fingerprint: string;
  /** `METHOD /path` of each request whose body arrived whole, in order. */
  received: string[];
  behave: Behaviour;
  close(): Promise<void>;
}

export async function startFaultServer(): Promise<FaultServer> {
  const identity = await tlsIdentity(undefined, '127.0.0.1');
  const state: FaultServer = {
    url: '',
    fingerprint: identity.fingerprint,
    received: [],
    behave: (_req, res) => json(res, 200, { data: null }),
    close: async () => undefined,
  };
  const server: Server = createServer({ cert: identity.cert, key: identity.key }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      state.received.push(`${req.method} ${req.url}`);
      state.behave(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

export function json(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A client pinned to the fault server; no retries unless asked for. */
export function faultClient(server: FaultServer, overrides: Partial<PveClientOptions> = {}): PveClient {
  return new PveClient({
    name: 'faulty',
    url: server.url,
    auth: { kind: 'token', tokenId: 'root@pam!test', secret: '00000000-0000-0000-0000-000000000000' },
    tls: { fingerprint: server.fingerprint },
    retry: { attempts: 1 },
    ...overrides,
  });
}

/** Writes `chunk` for as long as the connection lives, as fast as the socket drains. */
export function streamForever(res: ServerResponse, chunk: Buffer): void {
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  res.on('error', () => undefined);
  pump();
}

/**
 * A server in a child process that answers every request with a JSON body that never ends: the
 * test process's RSS is then the client's alone, not the server's send buffers too.
 */
export async function startEndlessServer(): Promise<{ url: string; fingerprint: string; close(): void }> {
  const identity = await tlsIdentity(undefined, '127.0.0.1');
  const script = `
    const { createServer } = await import('node:https');
    const chunk = Buffer.from('{"type":"qemu","vmid":100,"name":"x"},'.repeat(1700));
    const server = createServer({ cert: process.env.CERT, key: process.env.KEY }, (req, res) => {
      req.resume();
      res.on('error', () => {});
      res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8' });
      res.write('{"data":[');
      const pump = () => { while (!res.destroyed && res.write(chunk)); if (!res.destroyed) res.once('drain', pump); };
      pump();
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { CERT: identity.cert, KEY: identity.key },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  return { url: `https://127.0.0.1:${line.toString().trim()}`, fingerprint: identity.fingerprint, close: () => child.kill('SIGKILL') };
}
