/**
 * One HTTP exchange with one cluster: a keep-alive undici Pool behind the TLS connector, a
 * concurrency cap, the response-size cap, and the connect/headers/body timeouts. Every failure leaves here as a
 * typed client error; nothing above this layer sees undici or Node error codes.
 */
import type { Dispatcher, Pool } from 'undici';
import type { HttpMethod } from '../schema/model.js';
import { type AnyPveError, causeCodeOf, isPveError } from './error-codes.js';
import { PveAbortedError, PveConnectionError, type PveError, PveOutcomeUnknownError, PveResponseTooLargeError, PveTimeoutError } from './errors.js';
import { outcomeUnknown } from './outcome.js';
import { ConcurrencyLimiter } from './limiter.js';
import type { PveLogger } from './logger.js';
import type { RawResponse } from './response.js';
import { createTlsConnector, type TlsOptions } from './tls.js';

export interface TimeoutOptions {
  /** TCP + TLS handshake. */
  connectMs: number;
  /** From sending the request to the response headers. */
  headersMs: number;
  /** Maximum idle time between response body chunks. */
  bodyMs: number;
  /** From the response headers to the last byte: cuts a body that trickles in (each chunk within `bodyMs`) forever. */
  bodyTotalMs: number;
  /** The whole call including queueing, retries and re-login; per-call `timeoutMs` overrides it. */
  requestMs: number;
}

/**
 * Every default is below the run's 60 s wall (and the 55 s whole-call deadline the bridge sets),
 * so a node that hangs frees its sandbox worker with a client error that names the phase, before
 * the run is killed without one: 30 s for headers (PVE answers a write with a UPID at once; a slow
 * read handler rarely needs more), 20 s idle and 30 s in all for the body (the largest real
 * answer, /cluster/resources of 10,000 guests, is ~3.5 MB), 45 s for the whole call with its retries.
 */
export const DEFAULT_TIMEOUTS: TimeoutOptions = { connectMs: 10_000, headersMs: 30_000, bodyMs: 20_000, bodyTotalMs: 30_000, requestMs: 45_000 };

export const DEFAULT_MAX_CONCURRENCY = 4;

/**
 * The sandbox hands a script at most 16 MiB per reply: an answer below that must never be cut
 * here, so the cap cannot be set lower.
 */
export const MIN_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * 64 MiB: /cluster/resources of 10,000 guests measures 3.5 MB on the simulator (real PVE sends a
 * few more fields per guest), so this leaves ten times the margin while one runaway body costs at
 * most this much memory per request in flight.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export interface TransportOptions {
  clusterName: string;
  /** `https://host:port`, no path. */
  origin: string;
  tls: TlsOptions;
  timeouts: TimeoutOptions;
  maxConcurrency: number;
  /** The response-size cap, enforced while the body streams. */
  maxResponseBytes: number;
  logger: PveLogger;
}

export interface Exchange {
  method: HttpMethod;
  /** Path and query as sent, e.g. `/api2/json/nodes?type=vm`. */
  target: string;
  /** The API path for error messages (no prefix, no query). */
  apiPath: string;
  headers: Record<string, string>;
  body?: string;
  /** Caller abort and overall deadline (the client maps a deadline abort to a timeout). */
  signal?: AbortSignal;
}

const TIMEOUT_CODES: Record<string, 'connect' | 'headers' | 'body'> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};

/**
 * Keep-alive connections beyond the cap on requests in flight (the limiter keeps that cap). undici
 * writes to a reused connection only in an event loop's check phase (it first reads what the
 * server may have sent or closed meanwhile), and reuses the connection whose answer just ended
 * only from the check phase after that: with exactly `maxConcurrency` connections, the request
 * waiting for the slot an answer freed waited two turns of a busy loop — ~0.3 ms per call, 10 %
 * of a 300-call sweep against a plain client (docs/benchmarks.md, session 14). On the spare it
 * goes out in this turn's check phase; undici's checks hold on every connection.
 */
const SPARE_CONNECTIONS = 1;

const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EAI_AGAIN', 'UND_ERR_SOCKET']);

export class HttpTransport {
  /** Set once the first request has loaded undici (see #openPool). */
  #pool: Pool | undefined;
  #opening: Promise<Pool> | undefined;
  readonly #connector: ReturnType<typeof createTlsConnector>;
  readonly #limiter: ConcurrencyLimiter;
  readonly #options: TransportOptions;
  #closed = false;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#limiter = new ConcurrencyLimiter(options.maxConcurrency);
    // The TLS settings are checked here, at start; the connector is built with the pool.
    this.#connector = createTlsConnector({
      clusterName: options.clusterName,
      tls: options.tls,
      connectTimeoutMs: options.timeouts.connectMs,
      logger: options.logger,
    });
  }

  /**
   * undici (~100 ms to load cold) and the pool's TLS connector come with the first request, not
   * with the client: a server starting from a cached schema answers its first tools/list before
   * it talks to any cluster. A pool opened after close() is closed at once, so the request fails
   * as on a closed client.
   */
  #openPool(): Promise<Pool> {
    this.#opening ??= import('undici').then(async ({ Pool, buildConnector }) => {
      const pool = new Pool(this.#options.origin, {
        connections: this.#options.maxConcurrency + SPARE_CONNECTIONS,
        connect: this.#connector(buildConnector),
        headersTimeout: this.#options.timeouts.headersMs,
        bodyTimeout: this.#options.timeouts.bodyMs,
      });
      this.#pool = pool;
      if (this.#closed) await pool.close();
      return pool;
    });
    return this.#opening;
  }

  /** Requests in flight and waiting for a slot (for diagnostics and tests). */
  get load(): { active: number; queued: number } {
    return { active: this.#limiter.active, queued: this.#limiter.queued };
  }

  async exchange(x: Exchange): Promise<RawResponse> {
    const signal = x.signal;
    // Set once the request was handed to a connection: from then on a byte of it may have left.
    const progress = { sent: false };
    try {
      await this.#limiter.acquire(signal);
      try {
        return await this.#dispatch(this.#pool ?? (await this.#openPool()), x, progress);
      } finally {
        this.#limiter.release();
      }
    } catch (err) {
      if (signal?.aborted) throw abortError(x, progress.sent, signal.reason);
      const mapped = this.#mapError(err, x, progress.sent);
      // A write whose answer was lost may have run: say so, instead of "cannot talk to…".
      if (mapped.code === 'pve-too-large' && x.method !== 'GET') {
        throw new PveOutcomeUnknownError(x.method, x.apiPath, `more than ${mapped.limitBytes} bytes`, mapped, 'its answer was cut for its size');
      }
      throw outcomeUnknown(mapped) ?? mapped;
    }
  }

  /**
   * One request on the pool through undici's handler interface: the response body is gathered as
   * raw chunks and decoded once. `request()` would wrap every answer in a Readable stream and an
   * async body mixin — a large share of the client's own time per call on a fast cluster.
   *
   * `onRequestStart` is the last point before undici writes the request to the socket (it skips
   * the write when the request is aborted there): it marks the request sent, conservatively, as
   * no later callback says when the bytes actually left.
   */
  #dispatch(pool: Pool, x: Exchange, progress: { sent: boolean }): Promise<RawResponse> {
    const signal = x.signal;
    const maxBytes = this.#options.maxResponseBytes;
    const bodyTotalMs = this.#options.timeouts.bodyTotalMs;
    return new Promise<RawResponse>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let chunks: Buffer[] = [];
      let received = 0;
      let status = 0;
      let statusText = '';
      let onAbort: (() => void) | undefined;
      let bodyTimer: NodeJS.Timeout | undefined;
      const settle = (): void => {
        if (onAbort) signal?.removeEventListener('abort', onAbort);
        if (bodyTimer) clearTimeout(bodyTimer);
      };
      const tooLarge = (controller: Dispatcher.DispatchController, bytes: number): void => {
        // Drop what was gathered at once: the exchange is over, and the memory is the point.
        chunks = [];
        controller.abort(new PveResponseTooLargeError(x.method, x.apiPath, maxBytes, bytes));
      };
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(controller) {
          if (signal?.aborted) return controller.abort(signal.reason as Error);
          progress.sent = true;
          if (!signal) return;
          // Started again when undici retries on a fresh connection: one listener, for the live controller.
          if (onAbort) signal.removeEventListener('abort', onAbort);
          onAbort = () => controller.abort(signal.reason as Error);
          signal.addEventListener('abort', onAbort, { once: true });
        },
        onResponseStart(controller, statusCode, headers, statusMessage) {
          status = statusCode;
          statusText = statusMessage ?? '';
          const announced = Number(headers['content-length']);
          if (Number.isFinite(announced) && announced > maxBytes) return tooLarge(controller, announced);
          bodyTimer = setTimeout(() => {
            controller.abort(new PveTimeoutError('body', bodyTotalMs, x.method, x.apiPath, `The whole body must arrive within ${bodyTotalMs} ms (timeouts.bodyTotalMs); ${received} bytes had.`));
          }, bodyTotalMs);
        },
        onResponseData(controller, chunk) {
          received += chunk.length;
          if (received > maxBytes) return tooLarge(controller, received);
          chunks.push(chunk);
        },
        onResponseEnd() {
          settle();
          resolve({ status, statusText, body: Buffer.concat(chunks).toString('utf8') });
        },
        onResponseError(_controller, error) {
          settle();
          chunks = [];
          reject(error);
        },
      };
      pool.dispatch({ path: x.target, method: x.method, headers: x.headers, body: x.body ?? null }, handler);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A pool still loading is closed as it opens (#openPool).
    await this.#pool?.close();
  }

  #mapError(err: unknown, x: Exchange, sent: boolean): AnyPveError {
    if (isPveError(err)) return err;
    const code = errorCode(err);
    const phase = code ? TIMEOUT_CODES[code] : undefined;
    if (phase) {
      const ms = this.#options.timeouts[`${phase}Ms`];
      return new PveTimeoutError(phase, ms, x.method, x.apiPath, undefined, err, sent) as AnyPveError;
    }
    const origin = this.#options.origin;
    const reason = err instanceof Error ? err.message : String(err);
    if (code === 'UND_ERR_CLOSED' || code === 'UND_ERR_DESTROYED') {
      return new PveConnectionError(
        `${x.method} ${x.apiPath}: the client for cluster '${this.#options.clusterName}' is closed; create a new one.`,
        code,
        false,
        x.method,
        x.apiPath,
        err,
        sent,
      ) as AnyPveError;
    }
    const transient = code !== undefined && TRANSIENT_CODES.has(code);
    const hint = transient
      ? 'check that the node is up and pveproxy is running (systemctl status pveproxy), and the URL and port (usually 8006)'
      : 'check the URL (host name, port 8006) and the network path to the node';
    // Said outright, so a refusal is never read as a change that may have happened.
    const what = sent ? (x.method === 'GET' ? ' The request was sent; it is a read, so nothing changed.' : '') : ' Nothing was sent.';
    return new PveConnectionError(`${x.method} ${x.apiPath}: cannot talk to ${origin} (${code ?? reason}): ${hint}.${what}`, code, transient, x.method, x.apiPath, err, sent) as AnyPveError;
  }
}

/**
 * The caller's signal fired (the client's deadline or the caller's own abort). Before the request
 * left, nothing happened; after, a read is harmless and a write's outcome is unknown.
 */
function abortError(x: Exchange, sent: boolean, reason: unknown): PveError {
  if (!sent || x.method === 'GET') return new PveAbortedError(x.method, x.apiPath, sent, reason);
  const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
  const failure = timedOut ? `timed out after it was sent: ${reason.message}` : 'cancelled after it was sent';
  const lost = timedOut ? "the call's deadline passed before Proxmox answered" : 'the call was cancelled before Proxmox answered';
  return new PveOutcomeUnknownError(x.method, x.apiPath, failure, reason, lost);
}

function errorCode(err: unknown): string | undefined {
  if (err instanceof AggregateError) return errorCode(err.errors[0]);
  // Our own errors (the TLS connector's) keep the Node/OpenSSL code in `causeCode`.
  if (isPveError(err)) return causeCodeOf(err);
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
