/**
 * Maps whatever the client (or the bridge itself) threw to the `BridgeError` data the sandbox
 * receives. Messages are what PVE and the client said (they carry no secrets); the caller still
 * passes them through the secret scrubber. Host stacks never cross.
 *
 * A client error is classified by its stable `code` (see `PVE_ERROR_CODES`), one case per code:
 * adding a code to the client does not compile until it has a kind here. Every error carries its
 * `outcome` (what became of the call): a change that was sent and got no trustworthy answer is
 * `unknown` — kind `unknown` too, so nothing that may have run is ever reported as cancelled.
 */
import { type AnyPveError, exhaustive, isPveError } from '../client/error-codes.js';
import { callOutcomeOf, outcomeUnknown } from '../client/outcome.js';
import type { HttpMethod, RiskClass } from '../schema/model.js';
import type { CallOutcome } from '../client/outcome.js';
import type { BridgeError } from './protocol.js';

type CallBase = Pick<BridgeError, 'method' | 'path' | 'risk'>;

const CANCELLED = 'the run ended before the call was sent; nothing was sent';

/**
 * `sent`: false when the call failed before its own request could leave (a lookup before a change
 * failed): its outcome is then `not-sent` whatever the failure was, and its message says so.
 */
export function toBridgeError(err: unknown, call: { method?: HttpMethod; path?: string; risk?: RiskClass }, sent = true): BridgeError {
  const base: CallBase = {
    ...(call.method ? { method: call.method } : {}),
    ...(call.path ? { path: call.path } : {}),
    ...(call.risk ? { risk: call.risk } : {}),
  };
  if (!sent) {
    const error = toBridgeError(err, {}, true);
    const kind = error.kind === 'unknown' ? 'api' : error.kind;
    const where = call.method && call.path ? `${call.method} ${call.path}` : 'the call';
    return { ...error, ...base, kind, outcome: 'not-sent', message: `${where} was not sent: ${error.message}` };
  }
  if (isPveError(err)) {
    const outcome = callOutcomeOf(err, call.method ?? 'GET');
    const error = fromPveError(err, base);
    return outcome === 'unknown' ? { ...error, kind: 'unknown', outcome } : { ...error, outcome };
  }
  // An AbortError from outside the client (a wait, a lock) came before anything was sent.
  if (isAbort(err)) return { kind: 'cancelled', message: CANCELLED, outcome: 'not-sent', ...base };
  const status = typeof (err as { status?: unknown })?.status === 'number' ? (err as { status: number }).status : undefined;
  if (status !== undefined) return { kind: 'api', message: messageOf(err), status, outcome: 'failed', ...base };
  return internal(err, base, 'unknownIfWrite', call.method);
}

function fromPveError(err: AnyPveError, base: CallBase): BridgeError {
  switch (err.code) {
    case 'pve-task-failed':
      return { kind: 'task', message: err.message, ...taskFields(err.result), ...base };
    case 'pve-task-unknown':
      return { kind: 'unknown', message: err.message, upid: err.upid, node: err.node, ...base };
    case 'pve-aborted':
      return err.sent ? { kind: 'cancelled', message: `${err.message} It was sent; a read changes nothing, so it is safe to repeat.`, ...base } : { kind: 'cancelled', message: CANCELLED, ...base };
    case 'pve-timeout': {
      // A write's headers/body/overall timeout may have run: its message says the outcome is
      // unknown and where to look — never a refusal kind.
      const unknown = outcomeUnknown(err);
      return unknown ? { kind: 'unknown', message: unknown.message, ...base } : { kind: 'timeout', message: err.message, ...base };
    }
    case 'pve-connection':
    case 'pve-outcome-unknown':
    case 'pve-tls':
    case 'pve-tls-pin':
      return { kind: 'api', message: (outcomeUnknown(err) ?? err).message, ...base };
    case 'pve-protocol':
    case 'pve-too-large':
      return { kind: 'api', message: (outcomeUnknown(err) ?? err).message, ...base };
    case 'pve-http':
    case 'pve-auth':
    case 'pve-permission':
    case 'pve-not-found':
    case 'pve-node-offline':
      return { kind: 'api', message: (outcomeUnknown(err) ?? err).message, status: err.status, ...(err.errors ? { errors: { ...err.errors } } : {}), ...base };
    case 'pve-input':
      return { kind: 'invalid', message: err.message, ...base };
    case 'pve-config':
    case 'pve-schema-unavailable':
      // Setup failures, not a call's: reaching a script through a call is the host's fault.
      return internal(err, base, 'not-sent');
    default:
      return exhaustive(err, internal(err, base, 'unknownIfWrite', base.method));
  }
}

function taskFields(result: { upid: string; node: string; exitstatus?: string | undefined; log: string[] }): Pick<BridgeError, 'upid' | 'node' | 'exitstatus' | 'log'> {
  return { upid: result.upid, node: result.node, ...(result.exitstatus !== undefined ? { exitstatus: result.exitstatus } : {}), log: result.log.slice(-20) };
}

/**
 * A failure of the bridge's own code: where it happened is not known, so a change may have been
 * sent (`unknown`); a read is `failed`.
 */
function internal(err: unknown, base: CallBase, outcome: CallOutcome | 'unknownIfWrite', method?: HttpMethod): BridgeError {
  const resolved: CallOutcome = outcome !== 'unknownIfWrite' ? outcome : method === undefined || method === 'GET' ? 'failed' : 'unknown';
  return { kind: 'internal', message: `internal bridge error: ${messageOf(err)}`, outcome: resolved, ...base };
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}
