/**
 * Typed errors of the shared state files and the audit log, with stable codes: `LockError` from
 * the lock every writer of a state file takes (lock.ts: the audit, the approvals store),
 * `AuditError` from the audit log itself.
 */

export type LockErrorCode =
  /** Another process has held the state lock for too long (a dead holder's lock not yet stale). */
  | 'state-locked'
  /** The lock cannot be taken (permissions, read-only file system). */
  | 'state-lock-io';

export class LockError extends Error {
  constructor(
    readonly code: LockErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'LockError';
  }
}

export type AuditErrorCode =
  /** Append after close. */
  | 'audit-closed'
  /** The audit HMAC key file cannot be read or created, or is unsafe. */
  | 'audit-key'
  /** A witness is misconfigured or cannot be written. */
  | 'audit-witness'
  /**
   * An entry could not be written whole (no space, file size limit, I/O error…): nothing of it is
   * on disk and nothing may be done that needed it; appends resume by themselves once it can be
   * written again.
   */
  | 'audit-unavailable';

export class AuditError extends Error {
  constructor(
    readonly code: AuditErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AuditError';
  }
}
