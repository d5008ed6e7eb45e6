/**
 * The HTTPS witness: each record is a POST that the endpoint must answer with a 2xx; anything
 * else fails and is reported. The certificate is checked before the request and its token are
 * written.
 */
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { AuditError } from '../files/errors.js';
import { connectTls, DEFAULT_WITNESS_TIMEOUT_MS, resolveTls, withTimeout, type ResolvedTls, type WitnessTlsOptions } from './witness-net.js';
import { QueuedWitness, type Queued, type WitnessHooks } from './witness-queue.js';

export interface HttpsWitnessOptions {
  /** `https://…`: each record is POSTed here as JSON. */
  url: string;
  /** Bearer token, read once when the witness opens. */
  token?: { env: string } | { file: string };
  tls?: WitnessTlsOptions;
  /** A request not answered within this fails (default 10 s). */
  timeoutMs?: number;
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
