/**
 * Maps whatever the client (or the bridge itself) threw to the `BridgeError` data the sandbox
 * receives. Messages are what PVE and the client said (they carry no secrets); the caller still
 * passes them through the secret scrubber. Host stacks never cross.
 */
import {
  outcomeUnknown,
  PveAbortedError,
  PveConnectionError,
  PveHttpError,
  PveInputError,
  PveProtocolError,
  PveTaskFailedError,
  PveTimeoutError,
} from '../client/errors.js';
import type { HttpMethod, RiskClass } from '../schema/model.js';
import type { BridgeError } from './protocol.js';

export function toBridgeError(err: unknown, call: { method?: HttpMethod; path?: string; risk?: RiskClass }, signal?: AbortSignal): BridgeError {
  const base = {
    ...(call.method ? { method: call.method } : {}),
    ...(call.path ? { path: call.path } : {}),
    ...(call.risk ? { risk: call.risk } : {}),
  };
  if (err instanceof PveTaskFailedError) return { kind: 'task', message: err.message, ...base };
  if (err instanceof PveAbortedError || (signal?.aborted && isAbort(err))) {
    return { kind: 'cancelled', message: 'the call was cancelled because the run ended', ...base };
  }
  // Before timeouts: a write that may have run is `api` without a status (no answer came), and
  // its message says the outcome is unknown and where to look — never a refusal kind.
  const unknown = outcomeUnknown(err);
  if (unknown) return { kind: 'api', message: unknown.message, ...base };
  if (err instanceof PveTimeoutError) return { kind: 'timeout', message: err.message, ...base };
  if (err instanceof PveHttpError) {
    return { kind: 'api', message: err.message, status: err.status, ...(err.errors ? { errors: { ...err.errors } } : {}), ...base };
  }
  if (err instanceof PveInputError) return { kind: 'invalid', message: err.message, ...base };
  if (err instanceof PveConnectionError || err instanceof PveProtocolError) return { kind: 'api', message: err.message, ...base };
  if (isAbort(err)) return { kind: 'cancelled', message: 'the call was cancelled because the run ended', ...base };
  const status = typeof (err as { status?: unknown })?.status === 'number' ? (err as { status: number }).status : undefined;
  if (status !== undefined) return { kind: 'api', message: messageOf(err), status, ...base };
  return { kind: 'internal', message: `internal bridge error: ${messageOf(err)}`, ...base };
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}
