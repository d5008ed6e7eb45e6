/**
 * The stable codes of the client's errors, and classifying an error by them, whichever module its
 * class is in (errors.ts, http-errors.ts, task-errors.ts).
 *
 * Every error has a stable `code` (`PVE_ERROR_CODES`, one per class, the most specific one): callers
 * classify with `isPveError(err)` and a `switch (err.code)`, not with `instanceof`, so an error
 * from another copy of the client (a second install, a bundled dependency) is classified the same,
 * and a new code is a compile error in every switch that ends in a `never` check.
 */
import type {
  PveAbortedError,
  PveConfigError,
  PveConnectionError,
  PveInputError,
  PveOutcomeUnknownError,
  PveProtocolError,
  PveResponseTooLargeError,
  PveSchemaUnavailableError,
  PveTimeoutError,
  PveTlsError,
  TlsPinMismatchError,
} from './errors.js';
import type { PveAuthError, PveHttpError, PveNodeOfflineError, PveNotFoundError, PvePermissionError } from './http-errors.js';
import type { PveTaskFailedError, PveTaskUnknownError } from './task-errors.js';

/**
 * The stable codes, in the order of the hierarchy drawn in errors.ts. The `pve-` prefix keeps them apart from
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
