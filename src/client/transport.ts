/**
 * One HTTP exchange with one cluster: a keep-alive undici Pool behind the TLS connector, a
 * concurrency cap, and the connect/headers/body/overall timeouts. Every failure leaves here as a
 * typed client error; nothing above this layer sees undici or Node error codes.
 */
import { Pool, type Dispatcher } from 'undici';
import type { HttpMethod } from '../schema/model.js';
import { causeCodeOf, isPveError, outcomeUnknown, PveAbortedError, PveConnectionError, type PveError, PveTimeoutError } from './errors.js';
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
  /** The whole call including queueing, retries and re-login; per-call `timeoutMs` overrides it. */
  requestMs: number;
}

export const DEFAULT_TIMEOUTS: TimeoutOptions = { connectMs: 10_000, headersMs: 60_000, bodyMs: 60_000, requestMs: 120_000 };

export const DEFAULT_MAX_CONCURRENCY = 4;

export interface TransportOptions {
  clusterName: string;
  /** `https://host:port`, no path. */
  origin: string;
  tls: TlsOptions;
  timeouts: TimeoutOptions;
  maxConcurrency: number;
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

const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

export class HttpTransport {
  readonly #pool: Pool;
  readonly #limiter: ConcurrencyLimiter;
  readonly #options: TransportOptions;
  #closed = false;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#limiter = new ConcurrencyLimiter(options.maxConcurrency);
    this.#pool = new Pool(options.origin, {
      connections: options.maxConcurrency,
      connect: createTlsConnector({
        clusterName: options.clusterName,
        tls: options.tls,
        connectTimeoutMs: options.timeouts.connectMs,
        logger: options.logger,
      }),
      headersTimeout: options.timeouts.headersMs,
      bodyTimeout: options.timeouts.bodyMs,
    });
  }

  /** Requests in flight and waiting for a slot (for diagnostics and tests). */
  get load(): { active: number; queued: number } {
    return { active: this.#limiter.active, queued: this.#limiter.queued };
  }

  async exchange(x: Exchange): Promise<RawResponse> {
    const signal = x.signal;
    try {
      return await this.#limiter.run(() => this.#dispatch(x), signal);
    } catch (err) {
      if (signal?.aborted) throw new PveAbortedError(x.method, x.apiPath, signal.reason);
      const mapped = this.#mapError(err, x);
      // A write whose answer was lost may have run: say so, instead of "cannot talk to…".
      throw outcomeUnknown(mapped) ?? mapped;
    }
  }

  /**
   * One request on the pool through undici's handler interface: the response body is gathered as
   * raw chunks and decoded once. `request()` would wrap every answer in a Readable stream and an
   * async body mixin — a large share of the client's own time per call on a fast cluster.
   */
  #dispatch(x: Exchange): Promise<RawResponse> {
    const signal = x.signal;
    return new Promise<RawResponse>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const chunks: Buffer[] = [];
      let status = 0;
      let statusText = '';
      let onAbort: (() => void) | undefined;
      const unlisten = (): void => {
        if (onAbort) signal?.removeEventListener('abort', onAbort);
      };
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(controller) {
          if (!signal) return;
          if (signal.aborted) return controller.abort(signal.reason as Error);
          // Started again when undici retries on a fresh connection: one listener, for the live controller.
          unlisten();
          onAbort = () => controller.abort(signal.reason as Error);
          signal.addEventListener('abort', onAbort, { once: true });
        },
        onResponseStart(_controller, statusCode, _headers, statusMessage) {
          status = statusCode;
          statusText = statusMessage ?? '';
        },
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          unlisten();
          resolve({ status, statusText, body: Buffer.concat(chunks).toString('utf8') });
        },
        onResponseError(_controller, error) {
          unlisten();
          reject(error);
        },
      };
      this.#pool.dispatch({ path: x.target, method: x.method, headers: x.headers, body: x.body ?? null }, handler);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.close();
  }

  #mapError(err: unknown, x: Exchange): PveError {
    if (isPveError(err)) return err;
    const code = errorCode(err);
    const phase = code ? TIMEOUT_CODES[code] : undefined;
    if (phase) {
      const ms = this.#options.timeouts[`${phase}Ms`];
      return new PveTimeoutError(phase, ms, x.method, x.apiPath, undefined, err);
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
      );
    }
    const transient = code !== undefined && TRANSIENT_CODES.has(code);
    const hint = transient
      ? 'check that the node is up and pveproxy is running (systemctl status pveproxy), and the URL and port (usually 8006)'
      : 'check the URL (host name, port 8006) and the network path to the node';
    return new PveConnectionError(
      `${x.method} ${x.apiPath}: cannot talk to ${origin} (${code ?? reason}): ${hint}.`,
      code,
      transient,
      x.method,
      x.apiPath,
      err,
    );
  }
}

function errorCode(err: unknown): string | undefined {
  if (err instanceof AggregateError) return errorCode(err.errors[0]);
  // Our own errors (the TLS connector's) keep the Node/OpenSSL code in `causeCode`.
  if (isPveError(err)) return causeCodeOf(err);
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
