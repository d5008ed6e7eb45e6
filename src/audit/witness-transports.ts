/**
 * Network transports of the audit witness. `write()` must never block the audit's append (it runs
 * under the log's lock), so records go into a bounded queue that one publisher drains in order.
 * Every failure is reported through the hooks — a refused or broken connection, a TLS failure, a
 * non-2xx answer, a timeout, a record dropped from a full queue — so a witness that stops
 * witnessing is an `alert`, not a silence.
 *
 * What each transport can tell:
 *  - UDP syslog: nothing. A datagram lost on the way, or sent to a port nobody listens on, looks
 *    like one delivered; only local errors (no route, name lookup) are reported.
 *  - TCP and TLS syslog (RFC 5425/6587 octet counting: `<length> <message>` on one connection):
 *    a receiver that cannot be reached, a handshake that fails and a connection that breaks are
 *    reported. Syslog has no acknowledgement, so the records written just before a break may be
 *    lost: that loss is never silent, the break is reported.
 *  - HTTPS: each record is a POST that the endpoint must answer with a 2xx; anything else fails.
 */
import { request as httpRequest } from 'node:http';
import { connect as tcpConnect, type Socket } from 'node:net';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { parseFingerprint } from '../client/tls.js';
import { AuditError } from '../files/errors.js';

export interface WitnessHooks {
  /** A record could not be published: what, where and why, in one sentence. */
  onFailure(message: string): void;
  /** A record was published again after failures. */
  onRecovered?(): void;
}

/** How the receiver's certificate is trusted (default: the system CA store and its host name). */
export interface WitnessTlsOptions {
  /** SHA-256 fingerprint of the receiver's certificate, `AB:CD:…` (colons optional). */
  fingerprint?: string;
  /** PEM file with the CA (or the self-signed certificate) to trust instead of the system store. */
  caFile?: string;
}

export interface SyslogWitnessOptions {
  host: string;
  /** Default 514 for udp and tcp, 6514 for tls. */
  port?: number;
  /** Syslog facility (default 13, log audit). */
  facility?: number;
  /** Default `udp`, which cannot report a lost record. */
  transport?: 'udp' | 'tcp' | 'tls';
  tls?: WitnessTlsOptions;
  /** A connection or write that takes longer fails (default 10 s). */
  timeoutMs?: number;
}

export interface HttpsWitnessOptions {
  /** `https://…`: each record is POSTed here as JSON. */
  url: string;
  /** Bearer token, read once when the witness opens. */
  token?: { env: string } | { file: string };
  tls?: WitnessTlsOptions;
  /** A request not answered within this fails (default 10 s). */
  timeoutMs?: number;
}

export const DEFAULT_WITNESS_TIMEOUT_MS = 10_000;
/** Records waiting at most; past it the oldest is dropped (and reported). */
export const WITNESS_QUEUE_LIMIT = 1000;

interface Queued {
  seq: number;
  ts: string;
  line: string;
}

/**
 * A bounded queue drained by one publish at a time, in order. A failed record is reported and
 * not retried: the next record names a later end of the same chain, which is what verification
 * needs most.
 */
export abstract class QueuedWitness {
  abstract readonly description: string;
  private readonly queue: Queued[] = [];
  private draining = false;
  private failing = false;
  private closed = false;
  private readonly idle: Array<() => void> = [];

  constructor(
    private readonly hooks: WitnessHooks,
    private readonly limit = WITNESS_QUEUE_LIMIT,
  ) {}

  /** Deliver one record; rejects with an error whose message says why it was not delivered. */
  protected abstract publish(item: Queued): Promise<void>;
  /** Release sockets once the queue is empty after close(). */
  protected abstract release(): void;

  enqueue(item: Queued): void {
    if (this.closed) return;
    if (this.queue.length >= this.limit) {
      const dropped = this.queue.shift() as Queued;
      this.fail(`the audit witness ${this.description} is behind (${this.limit} records waiting): the record of seq ${dropped.seq} was dropped`);
    }
    this.queue.push(item);
    void this.drain();
  }

  /** Resolves once every queued record was published or failed, or after `timeoutMs` (reporting what is left). */
  flush(timeoutMs: number): Promise<void> {
    if (!this.draining && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const left = this.queue.length + (this.draining ? 1 : 0);
        this.fail(`the audit witness ${this.description} did not take ${left} record(s) within ${timeoutMs} ms of the shutdown`);
        resolve();
      }, timeoutMs);
      timer.unref();
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Stops taking records; what is queued is still sent, then the connection is released. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.draining) this.release();
  }

  protected fail(message: string): void {
    this.failing = true;
    try {
      this.hooks.onFailure(message);
    } catch {
      // A reporting hook that throws must not stop the witness.
    }
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    for (let item = this.queue.shift(); item; item = this.queue.shift()) {
      try {
        await this.publish(item);
        if (this.failing) {
          this.failing = false;
          try {
            this.hooks.onRecovered?.();
          } catch {
            // as in fail()
          }
        }
      } catch (err) {
        this.fail(`the audit witness ${this.description} did not take the record of seq ${item.seq}: ${(err as Error).message}`);
      }
    }
    this.draining = false;
    for (const done of this.idle.splice(0)) done();
    if (this.closed) this.release();
  }
}

function syslogMessage(item: Queued, facility: number): string {
  // <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG, severity 6 (informational).
  return `<${facility * 8 + 6}>1 ${item.ts} ${HOST} pve-code-mcp ${process.pid} audit - ${item.line}`;
}

const HOST = hostname().replace(/[^\x21-\x7e]/g, '') || '-';

/** UDP: only local send errors can be seen; a lost datagram cannot. */
export class UdpSyslogWitness extends QueuedWitness {
  readonly description: string;
  private readonly socket: UdpSocket;

  constructor(
    private readonly options: SyslogWitnessOptions,
    hooks: WitnessHooks,
  ) {
    super(hooks);
    this.description = `syslog udp://${hostPort(options.host, options.port ?? 514)}`;
    this.socket = createSocket(options.host.includes(':') ? 'udp6' : 'udp4');
    this.socket.on('error', () => undefined);
    this.socket.unref();
  }

  protected publish(item: Queued): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.send(syslogMessage(item, this.options.facility ?? 13), this.options.port ?? 514, this.options.host, (err) => (err ? reject(err) : resolve()));
    });
  }

  protected release(): void {
    this.socket.close();
  }
}

/** TCP or TLS with octet-counting framing; one connection, opened on demand and kept. */
export class StreamSyslogWitness extends QueuedWitness {
  readonly description: string;
  private socket: Socket | undefined;
  private publishing = false;
  private readonly port: number;
  private readonly timeoutMs: number;
  private readonly trust: ResolvedTls | undefined;

  constructor(
    private readonly options: SyslogWitnessOptions,
    hooks: WitnessHooks,
  ) {
    super(hooks);
    const secure = options.transport === 'tls';
    this.port = options.port ?? (secure ? 6514 : 514);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WITNESS_TIMEOUT_MS;
    this.trust = secure ? resolveTls(options.tls, 'audit.witness.syslog.tls') : undefined;
    this.description = `syslog ${secure ? 'tls' : 'tcp'}://${hostPort(options.host, this.port)}`;
  }

  protected async publish(item: Queued): Promise<void> {
    this.publishing = true;
    try {
      const socket = this.socket ?? (await this.connect());
      const message = Buffer.from(syslogMessage(item, this.options.facility ?? 13), 'utf8');
      const frame = Buffer.concat([Buffer.from(`${message.length} `, 'ascii'), message]);
      await withTimeout(new Promise<void>((resolve, reject) => socket.write(frame, (err) => (err ? reject(err) : resolve()))), this.timeoutMs, `writing took longer than ${this.timeoutMs} ms`, () =>
        socket.destroy(),
      );
    } catch (err) {
      this.socket?.destroy();
      this.socket = undefined;
      throw err;
    } finally {
      this.publishing = false;
    }
  }

  private async connect(): Promise<Socket> {
    const { host } = this.options;
    const socket = this.trust
      ? await connectTls(host, this.port, this.trust, this.timeoutMs)
      : await withTimeout(
          new Promise<Socket>((resolve, reject) => {
            const s = tcpConnect({ host, port: this.port });
            s.once('connect', () => resolve(s));
            s.once('error', reject);
          }),
          this.timeoutMs,
          `no connection within ${this.timeoutMs} ms`,
        );
    socket.setKeepAlive(true);
    socket.unref();
    socket.on('error', () => undefined);
    // A receiver that goes away between records: the records just written may be lost, say so now.
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (!this.publishing) this.fail(`the connection to the audit witness ${this.description} was closed by the other end: the records sent just before may be lost`);
    });
    // The receiver never writes; reading keeps a half-closed connection noticed.
    socket.resume();
    this.socket = socket;
    return socket;
  }

  protected release(): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.end();
  }
}

/** POST of each record as JSON to an HTTPS endpoint that must answer 2xx. */
export class HttpsWitness extends QueuedWitness {
  readonly description: string;
  private readonly url: URL;
  private readonly token: string | undefined;
  private readonly trust: ResolvedTls;
  private readonly timeoutMs: number;

  constructor(options: HttpsWitnessOptions, hooks: WitnessHooks) {
    super(hooks);
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new AuditError('audit-witness', `the audit witness url ${JSON.stringify(options.url)} is not a URL: give https://host[:port]/path`);
    }
    if (url.protocol !== 'https:') throw new AuditError('audit-witness', `the audit witness url ${options.url} is not https: records and the token must not travel in clear`);
    this.url = url;
    this.description = `https ${url.origin}${url.pathname}`;
    this.token = options.token ? readToken(options.token) : undefined;
    this.trust = resolveTls(options.tls, 'audit.witness.https.tls');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WITNESS_TIMEOUT_MS;
  }

  protected async publish(item: Queued): Promise<void> {
    const host = this.url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(this.url.port || 443);
    // The certificate is checked before the request (and its token) is written.
    const socket = await connectTls(host, port, this.trust, this.timeoutMs);
    const body = Buffer.from(item.line, 'utf8');
    const headers: Record<string, string> = { host: this.url.host, 'content-type': 'application/json', 'content-length': String(body.length) };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const answer = new Promise<void>((resolve, reject) => {
      const req = httpRequest({ method: 'POST', path: `${this.url.pathname}${this.url.search}`, headers, createConnection: () => socket }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < 512) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`the endpoint answered HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}${bodyHint(chunks)}`));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
    try {
      await withTimeout(answer, this.timeoutMs, `no answer within ${this.timeoutMs} ms`);
    } finally {
      socket.destroy();
    }
  }

  protected release(): void {}
}

function bodyHint(chunks: Buffer[]): string {
  const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200);
  return text ? ` (${text})` : '';
}

function readToken(source: { env: string } | { file: string }): string {
  if ('env' in source) {
    const token = process.env[source.env]?.trim();
    if (!token) throw new AuditError('audit-witness', `the audit witness token variable ${source.env} is not set: export it or remove the token`);
    return token;
  }
  try {
    const token = readFileSync(source.file, 'utf8').trim();
    if (token) return token;
  } catch (err) {
    throw new AuditError('audit-witness', `cannot read the audit witness token file ${source.file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  throw new AuditError('audit-witness', `the audit witness token file ${source.file} is empty`);
}

interface ResolvedTls {
  pin?: string;
  ca?: Buffer;
}

function resolveTls(tls: WitnessTlsOptions | undefined, key: string): ResolvedTls {
  const out: ResolvedTls = {};
  if (tls?.fingerprint !== undefined) {
    const pin = parseFingerprint(tls.fingerprint);
    if (!pin) throw new AuditError('audit-witness', `${key}.fingerprint is not a SHA-256 fingerprint: expected 32 hex bytes such as AB:CD:…:EF`);
    out.pin = pin;
  }
  if (tls?.caFile !== undefined) {
    try {
      out.ca = readFileSync(tls.caFile);
    } catch (err) {
      throw new AuditError('audit-witness', `cannot read ${key}.caFile ${tls.caFile} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): give the path of a PEM file`);
    }
  }
  return out;
}

/**
 * A TLS connection whose certificate was checked before anything is written: by its pinned
 * fingerprint, else by the CA (system store or `caFile`) and the host name.
 */
function connectTls(host: string, port: number, trust: ResolvedTls, timeoutMs: number): Promise<TLSSocket> {
  let socket: TLSSocket | undefined;
  const connected = new Promise<TLSSocket>((resolve, reject) => {
    const isName = !/^[\d.]+$/.test(host) && !host.includes(':');
    const s = tlsConnect({ host, port, ...(isName ? { servername: host } : {}), rejectUnauthorized: false, ...(trust.ca ? { ca: trust.ca } : {}) });
    socket = s;
    s.once('error', reject);
    s.once('secureConnect', () => {
      const fp = s.getPeerCertificate()?.fingerprint256?.toUpperCase();
      const problem = trust.pin
        ? fp === trust.pin
          ? undefined
          : `its certificate fingerprint ${fp ?? '(none)'} is not the pinned ${trust.pin}`
        : s.authorized
          ? undefined
          : `its certificate is not trusted (${String(s.authorizationError)}${fp ? `; fingerprint ${fp}` : ''}): give tls.caFile or pin tls.fingerprint`;
      if (problem) {
        s.destroy();
        reject(new Error(`TLS with ${hostPort(host, port)} failed: ${problem}`));
        return;
      }
      s.removeListener('error', reject);
      resolve(s);
    });
  });
  return withTimeout(connected, timeoutMs, `no TLS connection within ${timeoutMs} ms`, () => socket?.destroy());
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new Error(message));
    }, ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
