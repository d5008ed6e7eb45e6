/**
 * Typed errors of the audit log and the shared state files, with stable codes. Beside the lock
 * (lock.ts), which throws them to every writer of a state file (the audit, the approvals store).
 */

export type AuditErrorCode =
  /** Another process has held the state lock for too long (a dead holder's lock not yet stale). */
  | 'audit-locked'
  /** The lock directory cannot be created (permissions, read-only file system). */
  | 'audit-lock-io'
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
