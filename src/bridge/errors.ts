/**
 * Maps whatever the client (or the bridge itself) threw to the `BridgeError` data the sandbox
 * receives. Messages are what PVE and the client said (they carry no secrets); the caller still
 * passes them through the secret scrubber. Host stacks never cross.
 *
 * A client error is classified by its stable `code` (see `PVE_ERROR_CODES`), one case per code:
 * adding a code to the client does not compile until it has a kind here.
 */
import { type AnyPveError, exhaustive, isPveError, outcomeUnknown } from '../client/errors.js';
import type { HttpMethod, RiskClass } from '../schema/model.js';
import type { BridgeError } from './protocol.js';

type CallBase = Pick<BridgeError, 'method' | 'path' | 'risk'>;

const CANCELLED = 'the call was cancelled because the run ended';

/** An `AbortError` is `cancelled` whether or not the run's signal fired: the signal is not needed here. */
export function toBridgeError(err: unknown, call: { method?: HttpMethod; path?: string; risk?: RiskClass }): BridgeError {
  const base: CallBase = {
    ...(call.method ? { method: call.method } : {}),
    ...(call.path ? { path: call.path } : {}),
    ...(call.risk ? { risk: call.risk } : {}),
  };
  if (isPveError(err)) return fromPveError(err, base);
  if (isAbort(err)) return { kind: 'cancelled', message: CANCELLED, ...base };
  const status = typeof (err as { status?: unknown })?.status === 'number' ? (err as { status: number }).status : undefined;
  if (status !== undefined) return { kind: 'api', message: messageOf(err), status, ...base };
  return internal(err, base);
}

function fromPveError(err: AnyPveError, base: CallBase): BridgeError {
  switch (err.code) {
    case 'pve-task-failed':
    case 'pve-task-unknown':
      return { kind: 'task', message: err.message, ...base };
    case 'pve-aborted':
      return { kind: 'cancelled', message: CANCELLED, ...base };
    case 'pve-timeout': {
      // A write's headers/body/overall timeout may have run: `api` without a status (no answer
      // came), and its message says the outcome is unknown and where to look — never a refusal kind.
      const unknown = outcomeUnknown(err);
      return unknown ? { kind: 'api', message: unknown.message, ...base } : { kind: 'timeout', message: err.message, ...base };
    }
    case 'pve-connection':
    case 'pve-outcome-unknown':
    case 'pve-tls':
    case 'pve-tls-pin':
      // A write whose connection failed after it was sent says so (outcome unknown), as above.
      return { kind: 'api', message: (outcomeUnknown(err) ?? err).message, ...base };
    case 'pve-protocol':
    case 'pve-too-large':
      return { kind: 'api', message: err.message, ...base };
    case 'pve-http':
    case 'pve-auth':
    case 'pve-permission':
    case 'pve-not-found':
    case 'pve-node-offline':
      return { kind: 'api', message: err.message, status: err.status, ...(err.errors ? { errors: { ...err.errors } } : {}), ...base };
    case 'pve-input':
      return { kind: 'invalid', message: err.message, ...base };
    case 'pve-config':
    case 'pve-schema-unavailable':
      // Setup failures, not a call's: reaching a script through a call is the host's fault.
      return internal(err, base);
    default:
      return exhaustive(err, internal(err, base));
  }
}

function internal(err: unknown, base: CallBase): BridgeError {
  return { kind: 'internal', message: `internal bridge error: ${messageOf(err)}`, ...base };
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}
