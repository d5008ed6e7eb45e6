/**
 * What became of a call that threw (`callOutcomeOf`), and the error of a write that may have run
 * told as such (`outcomeUnknown`). Apart from the classes because it is a judgement about the call
 * (did it leave? may it have run?), made from the error's code whichever module its class is in.
 */
import type { HttpMethod } from '../schema/model.js';
import { exhaustive, isPveError } from './error-codes.js';
import { PveOutcomeUnknownError } from './errors.js';

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
