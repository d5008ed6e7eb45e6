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
 * Every error has a stable `code` (`PVE_ERROR_CODES`, one per class, the most specific one): callers
 * classify with `isPveError(err)` and a `switch (err.code)`, not with `instanceof`, so an error
 * from another copy of this module (a second install, a bundled dependency) is classified the same,
 * and a new code is a compile error in every switch that ends in a `never` check.
 *
 * Messages never contain secrets: no passwords, token secrets, tickets or CSRF tokens.
 */
import type { HttpMethod } from '../schema/model.js';

/**
 * The stable codes, in the order of the hierarchy above. The `pve-` prefix keeps them apart from
 * the codes of other errors (Node's `ECONNREFUSED`, the state lock's `state-locked`…), which is what
 * lets `isPveError` recognize them by shape. docs/client.md says when each happens and what to do.
 */
export const PVE_ERROR_CODES = [
  'pve-config',
  'pve-input',
  'pve-aborted',
  'pve-timeout',
  'pve-connection',
  'pve-outcome-unknown',
  'pve-tls',
  'pve-tls-pin',
  'pve-protocol',
  'pve-too-large',
  'pve-http',
  'pve-auth',
  'pve-permission',
  'pve-not-found',
  'pve-node-offline',
  'pve-task-failed',
  'pve-task-unknown',
  'pve-schema-unavailable',
] as const;

export type PveErrorCode = (typeof PVE_ERROR_CODES)[number];

/** The codes of `PveConnectionError` and its subclasses: no answer came from PVE. */
export type PveConnectionErrorCode = 'pve-connection' | 'pve-outcome-unknown' | 'pve-tls' | 'pve-tls-pin';

/** The codes of `PveHttpError` and its subclasses: PVE answered with an error status. */
export type PveHttpErrorCode = 'pve-http' | 'pve-auth' | 'pve-permission' | 'pve-not-found' | 'pve-node-offline';

/**
 * What became of one call (or of the task it started), in the words the bridge, the script's
 * error, the tool result and the audit share:
 * - `done`: PVE answered with success (for a task-starting write: the task was started);
 * - `failed`: PVE answered with an error, so nothing was changed; or a task ended with an error;
 * - `not-sent`: stopped before the request left this process;
 * - `unknown`: the request left (or may have) and no trustworthy answer came back. Never a read's.
 */
export type CallOutcome = 'done' | 'failed' | 'not-sent' | 'unknown';

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

/**
 * The write behind this error may have run: a connection lost after sending, or a headers, body
 * or overall timeout on a POST/PUT/DELETE that had left. Returns the error as a
 * `PveOutcomeUnknownError` (reads are safe to repeat, so a GET never is one). `callOutcomeOf` is
 * the classifier of every code; this only rewrites the message of the connection family.
 */
export function outcomeUnknown(err: unknown): PveOutcomeUnknownError | undefined {
  if (!isPveError(err)) return undefined;
  switch (err.code) {
    case 'pve-outcome-unknown':
      return err;
    case 'pve-timeout':
      if (err.sent && err.method && err.method !== 'GET' && err.path && ['headers', 'body', 'request'].includes(err.phase)) {
        return new PveOutcomeUnknownError(err.method, err.path, `timed out (${err.phase})`, err);
      }
      return undefined;
    case 'pve-connection':
      if (err.sent && err.method && err.method !== 'GET' && err.path) {
        return new PveOutcomeUnknownError(err.method, err.path, err.causeCode ?? 'connection lost', err);
      }
      return undefined;
    default:
      return undefined;
  }
}

/**
 * What became of a call that threw `err` (see `CallOutcome`): the one classifier of the client's
 * codes. A read (GET) is never `unknown`: repeating it is safe, so one that got no answer simply
 * `failed` (or is `not-sent`). The task codes describe the task, whatever method is given: a
 * task that ended with an error `failed`; one whose status could not be read, or that was still
 * running when the wait timed out, is `unknown`. An error that is not the client's is `unknown`
 * for a write and `failed` for a read: nothing says it did not leave.
 */
export function callOutcomeOf(err: unknown, method: HttpMethod): CallOutcome {
  const write = method !== 'GET';
  const leftWithoutAnswer: CallOutcome = write ? 'unknown' : 'failed';
  if (!isPveError(err)) return leftWithoutAnswer;
  switch (err.code) {
    case 'pve-config':
    case 'pve-input':
    case 'pve-schema-unavailable':
      // Found before anything was encoded or sent.
      return 'not-sent';
    case 'pve-tls':
    case 'pve-tls-pin':
      // The certificate is checked on the connected socket before a byte of the request is written.
      return 'not-sent';
    case 'pve-aborted':
    case 'pve-connection':
      return err.sent ? leftWithoutAnswer : 'not-sent';
    case 'pve-timeout':
      if (err.phase === 'task') return 'unknown';
      return err.sent ? leftWithoutAnswer : 'not-sent';
    case 'pve-outcome-unknown':
      return leftWithoutAnswer;
    case 'pve-protocol':
    case 'pve-too-large':
      // Something answered, but not with a PVE answer we can trust: a write may have run.
      return leftWithoutAnswer;
    case 'pve-http':
    case 'pve-auth':
    case 'pve-permission':
    case 'pve-not-found':
      // AnyEvent::HTTP's pseudo statuses (595-599) are pveproxy's proxy failing, not PVE refusing.
      return err.status >= 595 && err.status <= 599 ? leftWithoutAnswer : 'failed';
    case 'pve-node-offline':
      // PVE forwarded the call to the node in the path and the forwarding failed; whether the
      // request reached that node before it did, the answer does not say (595 is documented as a
      // connect failure, but the reason text is not reliable enough to bet a change on it).
      return leftWithoutAnswer;
    case 'pve-task-failed':
      return 'failed';
    case 'pve-task-unknown':
      return 'unknown';
    default:
      return exhaustive(err, leftWithoutAnswer);
  }
}

/** The HTTP status PVE answered with, for the `PveHttpError` codes; undefined for any other error. */
export function httpStatusOf(err: unknown): number | undefined {
  if (!isPveError(err)) return undefined;
  switch (err.code) {
    case 'pve-http':
    case 'pve-auth':
    case 'pve-permission':
    case 'pve-not-found':
    case 'pve-node-offline':
      return err.status;
    default:
      return undefined;
  }
}

/**
 * The Node/undici (or TLS verification) code under a connection failure of this client, TLS ones
 * included: its `causeCode`. Undefined for any other error, also for Node's own (read `code` there).
 */
export function causeCodeOf(err: unknown): string | undefined {
  if (!isPveError(err)) return undefined;
  switch (err.code) {
    case 'pve-connection':
    case 'pve-outcome-unknown':
    case 'pve-tls':
    case 'pve-tls-pin':
      return err.causeCode;
    default:
      return undefined;
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

  override get code(): PveHttpErrorCode {
    return 'pve-http';
  }

  constructor(details: HttpErrorDetails, hint?: string) {
    const params = details.errors
      ? ' ' +
        Object.entries(details.errors)
          .map(([k, v]) => `[${k}: ${v}]`)
          .join(' ')
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

export class PveAuthError extends PveHttpError {
  override get code(): 'pve-auth' {
    return 'pve-auth';
  }
}

export class PvePermissionError extends PveHttpError {
  override get code(): 'pve-permission' {
    return 'pve-permission';
  }

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

export class PveNotFoundError extends PveHttpError {
  override get code(): 'pve-not-found' {
    return 'pve-not-found';
  }
}

export class PveNodeOfflineError extends PveHttpError {
  override get code(): 'pve-node-offline' {
    return 'pve-node-offline';
  }

  constructor(
    details: HttpErrorDetails,
    /** The node taken from the `/nodes/{node}/…` path, when there is one. */
    readonly node: string | undefined,
  ) {
    const which = node ? `node '${node}'` : 'the target node';
    // PVE forwards the call to that node; a write may have reached it before the forwarding failed.
    const write =
      details.method === 'GET'
        ? ''
        : ` Whether this ${details.method} reached ${which} before the forwarding failed is unknown: ` +
          `once the node is back, look at its tasks (GET /nodes/{node}/tasks) and at the object before repeating it.`;
    super(details, `The API node could not reach ${which}: it is offline or its pveproxy is down. ` + `Check /cluster/status, or run the call on another node.${write}`);
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
  /** Why `log` may be incomplete (a log read failed after the final status); absent when it is whole. */
  note?: string;
}

export class PveTaskFailedError extends PveError {
  readonly upid: string;
  readonly node: string;
  readonly exitstatus: string;
  readonly log: string[];

  override get code(): 'pve-task-failed' {
    return 'pve-task-failed';
  }

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

/**
 * A task was started, but its status could not be read (the node stopped answering, the reads
 * kept failing): it may still be running, have ended well, or have failed. Its outcome is unknown,
 * which is not a failure: the UPID says where to look.
 */
export class PveTaskUnknownError extends PveError {
  override get code(): 'pve-task-unknown' {
    return 'pve-task-unknown';
  }

  constructor(
    readonly upid: string,
    readonly node: string,
    /** The last status read before the reads failed (`running`…), undefined when none was read. */
    readonly lastStatus: string | undefined,
    /** Why the status could not be read: the last read's error message. */
    readonly reason: string,
    cause?: unknown,
  ) {
    const seen = lastStatus ? `its last status read was '${lastStatus}'` : 'no status was read';
    super(
      `Task ${upid} on node '${node}' was started, but its status could not be read (${reason}); ${seen}. ` +
        `Its outcome is unknown: it may still be running, or have ended either way. Read GET /nodes/${node}/tasks/{upid}/status ` +
        `again later (or the node's task list) before repeating the change.`,
      { cause },
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

/** The class behind each code. A code missing here is a compile error in `AnyPveError`. */
interface PveErrorClassOf {
  'pve-config': PveConfigError;
  'pve-input': PveInputError;
  'pve-aborted': PveAbortedError;
  'pve-timeout': PveTimeoutError;
  'pve-connection': PveConnectionError;
  'pve-outcome-unknown': PveOutcomeUnknownError;
  'pve-tls': PveTlsError;
  'pve-tls-pin': TlsPinMismatchError;
  'pve-protocol': PveProtocolError;
  'pve-too-large': PveResponseTooLargeError;
  'pve-http': PveHttpError;
  'pve-auth': PveAuthError;
  'pve-permission': PvePermissionError;
  'pve-not-found': PveNotFoundError;
  'pve-node-offline': PveNodeOfflineError;
  'pve-task-failed': PveTaskFailedError;
  'pve-task-unknown': PveTaskUnknownError;
  'pve-schema-unavailable': PveSchemaUnavailableError;
}

/**
 * Any client error, discriminated by `code`: in `case 'pve-tls':` the error is a `PveTlsError`
 * whose code is exactly that one (the classes' own `code` types also admit their subclasses').
 */
export type AnyPveError = { [C in PveErrorCode]: PveErrorClassOf[C] & { readonly code: C } }[PveErrorCode];

const CODES: ReadonlySet<string> = new Set(PVE_ERROR_CODES);

export function isPveErrorCode(value: unknown): value is PveErrorCode {
  return typeof value === 'string' && CODES.has(value);
}

/**
 * True for an error of this client, recognized by its shape — a message and one of
 * `PVE_ERROR_CODES` — not by `instanceof`, so also one thrown by another copy of this module.
 */
export function isPveError(err: unknown): err is AnyPveError {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  return typeof message === 'string' && isPveErrorCode(code);
}

/**
 * For the `default` of a `switch (err.code)` over `AnyPveError`: it compiles only when every code
 * has a case (the error is `never` there). Should a code come that this copy does not know — it
 * cannot, `isPveError` checks the list — the switch answers `fallback`.
 */
export function exhaustive<T>(_err: never, fallback: T): T {
  return fallback;
}
