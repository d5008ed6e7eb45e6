/**
 * `PveClient`: one configured Proxmox VE cluster. Encodes calls, authenticates them (token or
 * ticket), sends them through the cluster's pool, reads the envelope into data or a typed error,
 * retries safe GETs, and waits for tasks.
 */
import { inspect } from 'node:util';
import { z } from 'zod';
import type { ApiModel, HttpMethod } from '../schema/model.js';
import type { ResolvedCall } from './client-like.js';
import { type AuthOptions, type Authenticator, type Credentials, TicketAuthenticator, TokenAuthenticator } from './auth.js';
import { normalizeApiPath, encodeParams, encodeRequest, type EncodedRequest } from './encoding.js';
import { isPveError } from './error-codes.js';
import { PveAbortedError, PveConfigError, PveTimeoutError } from './errors.js';
import { PveHttpError } from './http-errors.js';
import { type PveLogger, stderrLogger } from './logger.js';
import { type CallerInfo, type Envelope, readEnvelope } from './response.js';
import { beforeRetry, DEFAULT_RETRY, type RetryOptions } from './retry.js';
import { type TaskResult, type WaitTaskOptions, waitForTask } from './tasks.js';
import type { TlsOptions } from './tls.js';
import { DEFAULT_MAX_CONCURRENCY, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUTS, HttpTransport, MIN_MAX_RESPONSE_BYTES, type TimeoutOptions } from './transport.js';

export interface PveClientOptions {
  /** The cluster's name in the configuration (`default` for the env-var setup). */
  name: string;
  /** `https://host:8006` (a trailing `/api2/json` is accepted and dropped). */
  url: string;
  auth: AuthOptions;
  tls?: TlsOptions;
  timeouts?: Partial<TimeoutOptions>;
  retry?: Partial<RetryOptions>;
  /** Requests in flight at once for this cluster; more wait in a queue (default 4). */
  maxConcurrency?: number;
  /**
   * An answer larger than this is cut while it streams (default 64 MiB; at least 16 MiB, the
   * sandbox's reply cap): `PveResponseTooLargeError`, or outcome unknown for a write.
   */
  maxResponseBytes?: number;
  logger?: PveLogger;
  /**
   * The cluster's API model, when loaded: lets the encoder send `type: array` params as repeated
   * keys. Without it every array is comma-joined (right for PVE's `-list` formats).
   */
  apiModel?: ApiModel;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Whole-call limit including retries and re-login (default `timeouts.requestMs`, 45 s). */
  timeoutMs?: number;
}

export interface PveVersion {
  version: string;
  release?: string;
  repoid?: string;
  [key: string]: unknown;
}

const versionSchema = z.looseObject({ version: z.string(), release: z.string().optional(), repoid: z.string().optional() });

const FORM = 'application/x-www-form-urlencoded';
const NO_ARRAY_PARAMS: ReadonlySet<string> = new Set();

export class PveClient {
  readonly name: string;
  /** Normalized base URL, e.g. `https://pve1.example.com:8006`. */
  readonly baseUrl: string;
  readonly #prefix: string;
  readonly #auth: Authenticator;
  /** What goes on the wire until its `freshUntil` (auth.ts): read by each call, asked for again after. */
  #credentials: Credentials | undefined;
  readonly #transport: HttpTransport;
  readonly #retry: RetryOptions;
  readonly #requestTimeoutMs: number;
  readonly #logger: PveLogger;
  #apiModel: ApiModel | undefined;

  constructor(options: PveClientOptions) {
    this.name = options.name;
    const url = parseBaseUrl(options.url, options.name);
    this.baseUrl = url.origin + url.prefix;
    this.#prefix = url.prefix;
    this.#logger = options.logger ?? stderrLogger;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!(maxResponseBytes >= MIN_MAX_RESPONSE_BYTES)) {
      throw new PveConfigError([{ key: `clusters.${options.name}.maxResponseBytes`, message: `at least ${MIN_MAX_RESPONSE_BYTES} bytes (16 MiB, what the sandbox can hand a script)` }]);
    }
    this.#requestTimeoutMs = timeouts.requestMs;
    this.#apiModel = options.apiModel;
    this.#auth = options.auth.kind === 'token' ? new TokenAuthenticator(options.auth, options.name) : new TicketAuthenticator(options.auth, (params, signal) => this.#postTicket(params, signal));
    this.#transport = new HttpTransport({
      clusterName: options.name,
      origin: url.origin,
      tls: options.tls ?? {},
      timeouts,
      maxConcurrency: options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
      maxResponseBytes,
      logger: this.#logger,
    });
  }

  /** `root@pam!mcp` (token) or `root@pam` (user). Never contains a secret. */
  get authId(): string {
    return this.#auth.authId;
  }

  get authKind(): 'token' | 'ticket' {
    return this.#auth.kind;
  }

  get apiModel(): ApiModel | undefined {
    return this.#apiModel;
  }

  /** Requests in flight and waiting for a slot under `maxConcurrency`. */
  get load(): { active: number; queued: number } {
    return this.#transport.load;
  }

  /** Attach the cluster's API model once loaded (see `PveClientOptions.apiModel`). */
  setApiModel(model: ApiModel | undefined): void {
    this.#apiModel = model;
  }

  /** Call the API and return the envelope's `data`. */
  async request<T = any>(method: HttpMethod, path: string, params?: Record<string, unknown>, opts?: RequestOptions): Promise<T> {
    return (await this.requestRaw<T>(method, path, params, opts)).data;
  }

  /** Like `request`, with the envelope's `total` and the HTTP status. */
  async requestRaw<T = any>(method: HttpMethod, path: string, params?: Record<string, unknown>, opts: RequestOptions = {}): Promise<Envelope<T>> {
    return this.#send<T>(method, encodeRequest(method, path, params, this.#arrayParams(method, path)), opts);
  }

  /**
   * A script's call as request resolution resolved it (src/policy/request.ts): its encoded
   * concrete path and its operation's array params are used as they are, nothing matched again.
   */
  async send<T = any>(call: ResolvedCall, opts: RequestOptions = {}): Promise<T> {
    return (await this.#send<T>(call.method, encodeParams(call.method, call.urlPath, call.params, call.arrayParams), opts)).data;
  }

  async #send<T>(method: HttpMethod, encoded: EncodedRequest, opts: RequestOptions): Promise<Envelope<T>> {
    const query = encoded.query ? `?${encoded.query}` : '';
    const target = `${this.#prefix}/api2/json${encoded.path}${query}`;
    const headers: Record<string, string> = encoded.body !== undefined ? { 'content-type': FORM } : {};
    return this.#withDeadline(method, encoded.path, opts, (signal) =>
      this.#tries(method, encoded.path, signal, async () => {
        // One repeat after a 401, with fresh credentials (ticket expired, CSRF token stale…).
        for (let attempt = 0; ; attempt++) {
          let cred = this.#credentials;
          let sentAt = this.#auth.now();
          if (cred === undefined || sentAt >= cred.freshUntil) {
            cred = this.#credentials = await this.#auth.credentials(signal);
            sentAt = this.#auth.now();
          }
          const raw = await this.#transport.exchange({
            method,
            target,
            apiPath: encoded.path,
            headers: { ...headers, ...(method === 'GET' ? cred.read : cred.change) },
            body: encoded.body,
            signal,
          });
          if (raw.status === 401 && attempt === 0 && (await this.#auth.recover(cred, sentAt, signal))) {
            // Logged in again (or another call did): the next try asks for the new credentials.
            this.#credentials = undefined;
            continue;
          }
          return readEnvelope<T>(raw, method, encoded.path, this.#caller());
        }
      }),
    );
  }

  /** Tries `once` until it succeeds or retry.ts says not to try again (safe GETs only, on transient failures). */
  async #tries<T>(method: HttpMethod, path: string, signal: AbortSignal, once: () => Promise<T>): Promise<T> {
    for (let tried = 1; ; tried++) {
      try {
        return await once();
      } catch (err) {
        await beforeRetry(method, path, this.#retry, err, tried, { signal, onRetry: (e, n, ms) => this.#logRetry(method, path, e, n, ms) });
      }
    }
  }

  /** Wait for a task (UPID) to stop. Rejects with `PveTaskFailedError` when it failed. */
  waitTask(upid: string, options?: WaitTaskOptions): Promise<TaskResult> {
    return waitForTask(this, upid, options);
  }

  async version(opts?: RequestOptions): Promise<PveVersion> {
    const data = await this.request<unknown>('GET', '/version', undefined, opts);
    return versionSchema.parse(data) as PveVersion;
  }

  /** Log in now (ticket auth; renews the session). A no-op for API tokens, which need no login. */
  async login(opts: RequestOptions = {}): Promise<void> {
    await this.#auth.login(opts.signal);
    this.#credentials = undefined;
  }

  /**
   * GET a file served outside the API without authentication (e.g. `/pve-docs/api-viewer/apidoc.js`).
   * Retried like any GET; non-2xx answers raise `PveHttpError`.
   */
  async getStaticFile(path: string, opts: RequestOptions = {}): Promise<string> {
    const filePath = normalizeApiPath(path);
    return this.#withDeadline('GET', filePath, { timeoutMs: opts.timeoutMs, signal: opts.signal }, (signal) =>
      this.#tries('GET', filePath, signal, async () => {
        const raw = await this.#transport.exchange({ method: 'GET', target: this.#prefix + filePath, apiPath: filePath, headers: {}, signal });
        if (raw.status < 200 || raw.status >= 300) {
          throw new PveHttpError({ status: raw.status, pveMessage: raw.statusText || `HTTP ${raw.status}`, method: 'GET', path: filePath });
        }
        return raw.body;
      }),
    );
  }

  /** Close the connection pool; pending requests finish first. */
  async close(): Promise<void> {
    await this.#transport.close();
  }

  [inspect.custom](): string {
    return `PveClient { name: ${JSON.stringify(this.name)}, baseUrl: ${JSON.stringify(this.baseUrl)}, authId: ${JSON.stringify(this.authId)} }`;
  }

  toJSON(): { name: string; baseUrl: string; authId: string } {
    return { name: this.name, baseUrl: this.baseUrl, authId: this.authId };
  }

  #caller(): CallerInfo {
    return { authId: this.#auth.authId, kind: this.#auth.kind };
  }

  #arrayParams(method: HttpMethod, path: string): ReadonlySet<string> {
    const match = this.#apiModel?.matchPath(method, normalizeApiPath(path));
    return match?.operation ? match.arrayParams : NO_ARRAY_PARAMS;
  }

  /** Login without credentials: its own envelope, its own errors (no retry, no re-login loop). */
  async #postTicket(params: Record<string, string>, signal?: AbortSignal): Promise<unknown> {
    const encoded = encodeRequest('POST', '/access/ticket', params);
    return this.#withDeadline('POST', encoded.path, { signal }, async (combined) => {
      const raw = await this.#transport.exchange({
        method: 'POST',
        target: `${this.#prefix}/api2/json${encoded.path}`,
        apiPath: encoded.path,
        headers: { 'content-type': FORM },
        body: encoded.body,
        signal: combined,
      });
      return readEnvelope<unknown>(raw, 'POST', encoded.path, this.#caller()).data;
    });
  }

  /**
   * Run `fn` under one deadline covering queueing, retries and re-login. Aborts caused by the
   * deadline become `PveTimeoutError('request')`; the caller's own abort stays `PveAbortedError`.
   *
   * One timer per call, cleared as soon as the call settles: `AbortSignal.timeout` would leave
   * each call's timer (and its registry entry) alive for the whole deadline, two minutes, long
   * after the answer arrived — thousands of them under a steady load.
   */
  async #withDeadline<T>(method: HttpMethod, path: string, opts: RequestOptions, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? this.#requestTimeoutMs;
    const caller = opts.signal;
    const combined = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      combined.abort(new DOMException(`the request took longer than ${timeoutMs} ms`, 'TimeoutError'));
    }, timeoutMs);
    // Like AbortSignal.timeout: a pending deadline alone does not keep the process alive.
    timer.unref();
    const onCallerAbort = (): void => combined.abort(caller?.reason);
    if (caller?.aborted) onCallerAbort();
    else caller?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      return await fn(combined.signal);
    } catch (err) {
      // The transport's errors already say whether the request left (and a sent write is outcome
      // unknown): they pass as they are. Anything else failed before a request was handed over.
      if (caller?.aborted) throw isPveError(err) ? err : new PveAbortedError(method, path, false, caller.reason);
      if (timedOut && isPveError(err) && (err.code === 'pve-aborted' || err.code === 'pve-timeout')) {
        throw new PveTimeoutError('request', timeoutMs, method, path, undefined, err, err.sent);
      }
      throw err;
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCallerAbort);
    }
  }

  #logRetry(method: HttpMethod, path: string, err: unknown, retry: number, delayMs: number): void {
    const reason = err instanceof Error ? err.message : String(err);
    this.#logger.debug?.(`cluster '${this.name}': retry ${retry} of ${method} ${path} in ${delayMs} ms after: ${reason}`);
  }
}

interface BaseUrl {
  origin: string;
  /** Path prefix for nodes behind a reverse proxy sub-path; usually empty. */
  prefix: string;
}

function parseBaseUrl(input: string, name: string): BaseUrl {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new PveConfigError([{ key: `clusters.${name}.url`, message: 'not a URL: write it as https://<host>:8006' }]);
  }
  if (url.protocol !== 'https:') {
    throw new PveConfigError([{ key: `clusters.${name}.url`, message: `Proxmox VE serves its API over HTTPS only: use https://${url.host || '<host>'}:8006` }]);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new PveConfigError([{ key: `clusters.${name}.url`, message: 'give only scheme, host, port (and a path prefix behind a proxy); credentials go under "auth"' }]);
  }
  const prefix = url.pathname.replace(/\/+$/, '').replace(/\/api2\/json$/, '');
  return { origin: url.origin, prefix };
}
