/**
 * Everything the Proxmox client throws. Each class says what failed, why, and what to do, and
 * carries the data a caller (the bridge, the CLI) needs to react without parsing messages.
 *
 * Hierarchy (with each class's `code`):
 *   PveError
 *   ├─ PveConfigError            pve-config             invalid client configuration
 *   ├─ PveInputError             pve-input              a call the client cannot even send (bad path, UPID, param value)
 *   ├─ PveAbortedError           pve-aborted            the caller's AbortSignal fired (`sent` says whether the request had left)
 *   ├─ PveTimeoutError           pve-timeout            connect / headers / body / request / task wait timed out
 *   ├─ PveConnectionError        pve-connection         no usable connection (refused, reset, DNS…)
 *   │  ├─ PveOutcomeUnknownError pve-outcome-unknown    a write was sent but its answer was lost: it may have run
 *   │  └─ PveTlsError            pve-tls                the server certificate is not trusted
 *   │     └─ TlsPinMismatchError pve-tls-pin            the certificate is not the pinned one
 *   ├─ PveProtocolError          pve-protocol           the answer is not the PVE API (wrong URL, proxy page…)
 *   ├─ PveResponseTooLargeError  pve-too-large          the answer grew past the response-size cap and was cut
 *   ├─ PveHttpError              pve-http               PVE answered with an error status
 *   │  ├─ PveAuthError           pve-auth               401
 *   │  ├─ PvePermissionError     pve-permission         403
 *   │  ├─ PveNotFoundError       pve-not-found          500 "… does not exist", 501 unknown path/method
 *   │  └─ PveNodeOfflineError    pve-node-offline       595/596 (the node in the path could not be reached)
 *   ├─ PveTaskFailedError        pve-task-failed        a task stopped with an error exit status
 *   ├─ PveTaskUnknownError       pve-task-unknown       a started task's status could not be read: its outcome is unknown
 *   └─ PveSchemaUnavailableError pve-schema-unavailable the cluster's schema could not be fetched and none is cached
 *
 * This module holds the root and the failures of setting a call up and of the exchange. PVE's
 * error answers (`PveHttpError` and its subclasses) are in http-errors.ts, a task's end in
 * task-errors.ts, each with the data it is built from; the codes and classifying an error by them
 * in error-codes.ts; what became of the call in outcome.ts.
 *
 * Messages never contain secrets: no passwords, token secrets, tickets or CSRF tokens.
 */
import type { HttpMethod } from '../schema/model.js';
import { causeCodeOf, type PveConnectionErrorCode, type PveErrorCode } from './error-codes.js';

/**
 * The code is a getter on each class's prototype, not a field: it cannot be set wrong, and it adds
 * nothing to an error's own properties (what JSON and `util.inspect` show).
 */
export abstract class PveError extends Error {
  abstract get code(): PveErrorCode;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface ConfigIssue {
  /** Dotted key, e.g. `clusters.prod.tls.fingerprint`. */
  key: string;
  message: string;
}

export class PveConfigError extends PveError {
  override get code(): 'pve-config' {
    return 'pve-config';
  }

  constructor(
    readonly issues: readonly ConfigIssue[],
    source?: string,
  ) {
    const where = source ? ` in ${source}` : '';
    const lines = issues.map((i) => `  - ${i.key || '(root)'}: ${i.message}`);
    super(`Invalid Proxmox client configuration${where}:\n${lines.join('\n')}`);
  }
}

export class PveInputError extends PveError {
  override get code(): 'pve-input' {
    return 'pve-input';
  }
}

export class PveAbortedError extends PveError {
  override get code(): 'pve-aborted' {
    return 'pve-aborted';
  }

  constructor(
    readonly method: HttpMethod | undefined,
    readonly path: string | undefined,
    /**
     * Whether the request may have left this process before the abort (it was handed to a
     * connection). The transport never raises a sent write as this error: that is a
     * `PveOutcomeUnknownError`.
     */
    readonly sent: boolean,
    cause?: unknown,
  ) {
    const what = sent ? 'was cancelled by the caller after it was sent; it is a read, so nothing changed.' : 'was cancelled by the caller before it was sent: nothing reached Proxmox.';
    super(`${describeCall(method, path)}${what}`, { cause });
  }
}

export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'request' | 'task';

const TIMEOUT_HINTS: Record<TimeoutPhase, string> = {
  connect: 'the host did not accept a connection in time: check the URL, port 8006 and firewalls',
  headers: 'the server accepted the request but did not answer in time: it may be overloaded',
  body: 'the server stopped sending the response, or sent it too slowly: retry, or ask for less data',
  request: 'the whole call took longer than allowed: raise timeoutMs or narrow the request',
  task: 'the task is still running on the node (a timeout does not stop it): wait again or check the task log',
};

export class PveTimeoutError extends PveError {
  /**
   * Whether the request may have left this process: never for `connect`, always for `headers`
   * and `body`, as the transport found for `request` (the deadline may pass while queued).
   */
  readonly sent: boolean;

  override get code(): 'pve-timeout' {
    return 'pve-timeout';
  }

  constructor(
    readonly phase: TimeoutPhase,
    readonly timeoutMs: number | undefined,
    readonly method: HttpMethod | undefined,
    readonly path: string | undefined,
    detail?: string,
    cause?: unknown,
    sent?: boolean,
  ) {
    const after = timeoutMs !== undefined ? ` after ${timeoutMs} ms` : '';
    const extra = detail ? ` ${detail}` : '';
    super(`${describeCall(method, path)}timed out (${phase})${after}: ${TIMEOUT_HINTS[phase]}.${extra}`, { cause });
    this.sent = phase === 'connect' ? false : (sent ?? true);
  }
}

/** Node/undici codes after which a request may already have reached pveproxy (and run). */
const MAYBE_SENT_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ETIMEDOUT', 'ECONNABORTED']);

export class PveConnectionError extends PveError {
  /**
   * Whether the request may have left this process (it was handed to a connection). False for a
   * refused connection, DNS, TLS trust failures and a closed client. When not given, it is read
   * from `causeCode` (a reset or a socket error may come after sending).
   */
  readonly sent: boolean;

  override get code(): PveConnectionErrorCode {
    return 'pve-connection';
  }

  constructor(
    message: string,
    /**
     * The code of the failure underneath: Node/undici's (`ECONNREFUSED`, `UND_ERR_SOCKET`…) when
     * known, the verification reason for TLS errors. Named apart from `code`, the product's.
     */
    readonly causeCode: string | undefined,
    /** True when trying again may help (reset, refused, DNS hiccup); false for TLS trust failures. */
    readonly transient: boolean,
    readonly method?: HttpMethod,
    readonly path?: string,
    cause?: unknown,
    sent?: boolean,
  ) {
    super(message, { cause });
    this.sent = sent ?? (causeCode !== undefined && MAYBE_SENT_CODES.has(causeCode));
  }
}

/**
 * A write (POST/PUT/DELETE) went out, and no trustworthy answer came back: the connection failed
 * or timed out, the call was cancelled after it left, or the answer was cut or not PVE's. It may
 * have run — a task may be running — or not. The client never repeats it, and neither should the
 * caller without looking first: the message names where to look.
 */
export class PveOutcomeUnknownError extends PveConnectionError {
  override get code(): 'pve-outcome-unknown' {
    return 'pve-outcome-unknown';
  }

  constructor(
    method: HttpMethod,
    path: string,
    /** What happened to the exchange: `ECONNRESET`, `timed out (headers)`, `cancelled after it was sent`… */
    readonly failure: string,
    cause?: unknown,
    /** How the answer was lost, for the message. */
    lost = 'the connection failed before Proxmox answered',
  ) {
    super(
      `${method} ${path} was sent, but ${lost} (${failure}): the outcome is unknown — it may have run. ` +
        `Do not repeat it blindly: look first at the node's tasks (GET /nodes/{node}/tasks, newest first, or /cluster/tasks) ` +
        `and at the object itself (its status or config), then decide.`,
      causeCodeOf(cause),
      false,
      method,
      path,
      cause,
      true,
    );
  }
}

export class PveTlsError extends PveConnectionError {
  override get code(): 'pve-tls' | 'pve-tls-pin' {
    return 'pve-tls';
  }

  constructor(
    readonly host: string,
    /** OpenSSL/Node verification code, e.g. `DEPTH_ZERO_SELF_SIGNED_CERT`. */
    readonly reason: string,
    /** SHA-256 fingerprint of the certificate the server presented (colon-hex), when seen. */
    readonly serverFingerprint: string | undefined,
    message?: string,
  ) {
    const seen = serverFingerprint ? ` The server presented a certificate with SHA-256 fingerprint ${serverFingerprint}.` : '';
    super(
      message ??
        `TLS certificate of ${host} is not trusted (${reason}).${seen} If that is your Proxmox node ` +
          `(compare with Datacenter → node → System → Certificates in the GUI), pin it with the ` +
          `"fingerprint" option, or give the cluster's CA with "caFile".`,
      reason,
      false,
    );
  }
}

export class TlsPinMismatchError extends PveTlsError {
  override get code(): 'pve-tls-pin' {
    return 'pve-tls-pin';
  }

  constructor(
    host: string,
    readonly expectedFingerprint: string,
    readonly actualFingerprint: string,
  ) {
    super(
      host,
      'FINGERPRINT_MISMATCH',
      actualFingerprint,
      `TLS certificate of ${host} does not match the pinned fingerprint: expected ${expectedFingerprint}, ` +
        `got ${actualFingerprint}. Nothing was sent. If the node's certificate was renewed on purpose, ` +
        `update "fingerprint"; otherwise something is intercepting the connection.`,
    );
  }
}

export class PveProtocolError extends PveError {
  override get code(): 'pve-protocol' {
    return 'pve-protocol';
  }

  constructor(
    readonly method: HttpMethod | undefined,
    readonly path: string | undefined,
    readonly status: number,
    /** What was wrong with it: `body is not JSON`, `JSON without a "data" member`… */
    readonly detail: string,
  ) {
    super(
      `${describeCall(method, path)}got a response that is not from the Proxmox API (HTTP ${status}: ${detail}). ` +
        `Check that the URL points at a Proxmox VE node (usually https://<host>:8006) and not at a proxy or another service.`,
    );
  }
}

/**
 * The answer grew past the client's response-size cap while it streamed, and the exchange was cut
 * there (a GET; a write cut this way is a `PveOutcomeUnknownError` with this error as its cause).
 */
export class PveResponseTooLargeError extends PveError {
  override get code(): 'pve-too-large' {
    return 'pve-too-large';
  }

  constructor(
    readonly method: HttpMethod,
    readonly path: string,
    /** The cap (`maxResponseBytes`). */
    readonly limitBytes: number,
    /** How many bytes had arrived (or the announced `content-length`) when it was cut. */
    readonly receivedBytes: number,
  ) {
    super(
      `${method} ${path}: the answer was larger than ${limitBytes} bytes (${receivedBytes} bytes when it was cut), so it was not read. ` +
        `Ask for less (filter with parameters such as type, or a narrower path), or raise the cluster's maxResponseBytes.`,
    );
  }
}

function describeCall(method: HttpMethod | undefined, path: string | undefined): string {
  if (method && path) return `${method} ${path} `;
  if (path) return `${path} `;
  return 'The request ';
}

export class PveSchemaUnavailableError extends PveError {
  override get code(): 'pve-schema-unavailable' {
    return 'pve-schema-unavailable';
  }

  constructor(
    readonly cluster: string,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `No API schema for cluster '${cluster}': the cluster could not be reached and nothing is cached yet (${reason}). ` +
        `Connect once while the cluster is up, or set "schema" to an apidoc.js file or URL.`,
      { cause },
    );
  }
}
