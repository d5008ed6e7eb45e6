/**
 * Everything the Proxmox client throws. Each class says what failed, why, and what to do, and
 * carries the data a caller (the bridge, the CLI) needs to react without parsing messages.
 *
 * Hierarchy:
 *   PveError
 *   ├─ PveConfigError            invalid client configuration
 *   ├─ PveInputError             a call the client cannot even send (bad path, UPID, param value)
 *   ├─ PveAbortedError           the caller's AbortSignal fired
 *   ├─ PveTimeoutError           connect / headers / body / request / task wait timed out
 *   ├─ PveConnectionError        no usable connection (refused, reset, DNS…)
 *   │  ├─ PveOutcomeUnknownError a write was sent but its answer was lost: it may have run
 *   │  └─ PveTlsError            the server certificate is not trusted
 *   │     └─ TlsPinMismatchError the certificate is not the pinned one
 *   ├─ PveProtocolError          the answer is not the PVE API (wrong URL, proxy page…)
 *   ├─ PveHttpError              PVE answered with an error status
 *   │  ├─ PveAuthError           401
 *   │  ├─ PvePermissionError     403
 *   │  ├─ PveNotFoundError       500 "… does not exist", 501 unknown path/method
 *   │  └─ PveNodeOfflineError    595/596 (the node in the path could not be reached)
 *   ├─ PveTaskFailedError        a task stopped with an error exit status
 *   └─ PveSchemaUnavailableError the cluster's schema could not be fetched and none is cached
 *
 * Messages never contain secrets: no passwords, token secrets, tickets or CSRF tokens.
 */
import type { HttpMethod } from '../schema/model.js';

export class PveError extends Error {
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
  constructor(
    readonly issues: readonly ConfigIssue[],
    source?: string,
  ) {
    const where = source ? ` in ${source}` : '';
    const lines = issues.map((i) => `  - ${i.key || '(root)'}: ${i.message}`);
    super(`Invalid Proxmox client configuration${where}:\n${lines.join('\n')}`);
  }
}

export class PveInputError extends PveError {}

export class PveAbortedError extends PveError {
  constructor(
    readonly method: HttpMethod | undefined,
    readonly path: string | undefined,
    cause?: unknown,
  ) {
    super(`${describeCall(method, path)}was cancelled by the caller before it completed.`, { cause });
  }
}

export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'request' | 'task';

const TIMEOUT_HINTS: Record<TimeoutPhase, string> = {
  connect: 'the host did not accept a connection in time: check the URL, port 8006 and firewalls',
  headers: 'the server accepted the request but did not answer in time: it may be overloaded',
  body: 'the server stopped sending the response: retry, or ask for less data',
  request: 'the whole call took longer than allowed: raise timeoutMs or narrow the request',
  task: 'the task is still running on the node (a timeout does not stop it): wait again or check the task log',
};

export class PveTimeoutError extends PveError {
  constructor(
    readonly phase: TimeoutPhase,
    readonly timeoutMs: number | undefined,
    readonly method: HttpMethod | undefined,
    readonly path: string | undefined,
    detail?: string,
    cause?: unknown,
  ) {
    const after = timeoutMs !== undefined ? ` after ${timeoutMs} ms` : '';
    const extra = detail ? ` ${detail}` : '';
    super(`${describeCall(method, path)}timed out (${phase})${after}: ${TIMEOUT_HINTS[phase]}.${extra}`, { cause });
  }
}

export class PveConnectionError extends PveError {
  constructor(
    message: string,
    /** Node/undici error code (`ECONNREFUSED`, `UND_ERR_SOCKET`…) when known. */
    readonly code: string | undefined,
    /** True when trying again may help (reset, refused, DNS hiccup); false for TLS trust failures. */
    readonly transient: boolean,
    readonly method?: HttpMethod,
    readonly path?: string,
    cause?: unknown,
  ) {
    super(message, { cause });
  }
}

/** Node/undici codes after which a request may already have reached pveproxy (and run). */
const MAYBE_SENT_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ETIMEDOUT', 'ECONNABORTED']);

/**
 * A write (POST/PUT/DELETE) went out, but the connection failed or timed out before PVE
 * answered: it may have run — a task may be running — or not. The client never repeats it, and
 * neither should the caller without looking first: the message names where to look.
 */
export class PveOutcomeUnknownError extends PveConnectionError {
  constructor(
    method: HttpMethod,
    path: string,
    /** What happened to the exchange: `ECONNRESET`, `timed out (headers)`… */
    readonly failure: string,
    cause?: unknown,
  ) {
    super(
      `${method} ${path} was sent, but the connection failed before Proxmox answered (${failure}): the outcome is unknown — it may have run. ` +
        `Do not repeat it blindly: look first at the node's tasks (GET /nodes/{node}/tasks, newest first, or /cluster/tasks) ` +
        `and at the object itself (its status or config), then decide.`,
      cause instanceof PveConnectionError ? cause.code : undefined,
      false,
      method,
      path,
      cause,
    );
  }
}

/**
 * The write behind this error may have run: a connection lost after sending, or a headers, body
 * or overall timeout on a POST/PUT/DELETE. Returns the error as a `PveOutcomeUnknownError`
 * (reads are safe to repeat, so a GET never is one).
 */
export function outcomeUnknown(err: unknown): PveOutcomeUnknownError | undefined {
  if (err instanceof PveOutcomeUnknownError) return err;
  if (err instanceof PveTimeoutError && err.method && err.method !== 'GET' && err.path && ['headers', 'body', 'request'].includes(err.phase)) {
    return new PveOutcomeUnknownError(err.method, err.path, `timed out (${err.phase})`, err);
  }
  if (err instanceof PveConnectionError && !(err instanceof PveTlsError) && err.method && err.method !== 'GET' && err.path && err.code && MAYBE_SENT_CODES.has(err.code)) {
    return new PveOutcomeUnknownError(err.method, err.path, err.code, err);
  }
  return undefined;
}

export class PveTlsError extends PveConnectionError {
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
  constructor(
    readonly method: HttpMethod | undefined,
    readonly path: string | undefined,
    readonly status: number,
    detail: string,
  ) {
    super(
      `${describeCall(method, path)}got a response that is not from the Proxmox API (HTTP ${status}: ${detail}). ` +
        `Check that the URL points at a Proxmox VE node (usually https://<host>:8006) and not at a proxy or another service.`,
    );
  }
}

export interface HttpErrorDetails {
  status: number;
  /** PVE's message: the JSON `message`, else the HTTP reason phrase (trailing newline removed). */
  pveMessage: string;
  /** Per-parameter errors of a 400 `Parameter verification failed.` */
  errors?: Record<string, string>;
  method: HttpMethod;
  /** The API path as sent, without `/api2/json` and without the query string. */
  path: string;
}

export class PveHttpError extends PveError {
  readonly status: number;
  readonly pveMessage: string;
  readonly errors: Record<string, string> | undefined;
  readonly method: HttpMethod;
  readonly path: string;

  constructor(details: HttpErrorDetails, hint?: string) {
    const params = details.errors
      ? ' ' + Object.entries(details.errors).map(([k, v]) => `[${k}: ${v}]`).join(' ')
      : '';
    const tail = hint ? ` ${hint}` : '';
    super(`${details.method} ${details.path} failed with HTTP ${details.status}: ${details.pveMessage}${params}.${tail}`);
    this.status = details.status;
    this.pveMessage = details.pveMessage;
    this.errors = details.errors;
    this.method = details.method;
    this.path = details.path;
  }
}

export class PveAuthError extends PveHttpError {}

export class PvePermissionError extends PveHttpError {
  constructor(
    details: HttpErrorDetails,
    /** ACL path and privilege from `Permission check failed (/vms/100, VM.PowerMgmt)`, when PVE names them. */
    readonly aclPath: string | undefined,
    readonly privilege: string | undefined,
    hint: string,
  ) {
    super(details, hint);
  }
}

export class PveNotFoundError extends PveHttpError {}

export class PveNodeOfflineError extends PveHttpError {
  constructor(
    details: HttpErrorDetails,
    /** The node taken from the `/nodes/{node}/…` path, when there is one. */
    readonly node: string | undefined,
  ) {
    const which = node ? `node '${node}'` : 'the target node';
    super(
      details,
      `The API node could not reach ${which}: it is probably offline or its pveproxy is down. ` +
        `Check /cluster/status, or run the call on another node.`,
    );
  }
}

export interface TaskOutcome {
  upid: string;
  node: string;
  status: string;
  exitstatus: string | undefined;
  ok: boolean;
  /** The last log lines (tail), oldest first. */
  log: string[];
}

export class PveTaskFailedError extends PveError {
  readonly upid: string;
  readonly node: string;
  readonly exitstatus: string;
  readonly log: string[];
  constructor(readonly result: TaskOutcome) {
    const exit = result.exitstatus ?? 'unknown exit status';
    const tail = result.log.slice(-5);
    const logPart = tail.length > 0 ? ` Last log lines:\n  ${tail.join('\n  ')}` : '';
    super(`Task ${result.upid} on node '${result.node}' failed: ${exit}.${logPart}`);
    this.upid = result.upid;
    this.node = result.node;
    this.exitstatus = exit;
    this.log = result.log;
  }
}

function describeCall(method: HttpMethod | undefined, path: string | undefined): string {
  if (method && path) return `${method} ${path} `;
  if (path) return `${path} `;
  return 'The request ';
}

export class PveSchemaUnavailableError extends PveError {
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
