/**
 * Typed errors of the shared state store (PostgreSQL) with stable codes. Every one fails closed:
 * a change that needed the store is not sent, and the message names what to check.
 */

export type StateErrorCode =
  /** The database cannot be reached or refused the connection (down, wrong URL, wrong password). */
  | 'state-unavailable'
  /** The database did not answer within the configured time. */
  | 'state-timeout'
  /** The database's schema cannot be brought to this version (newer than this build, or a migration failed). */
  | 'state-migration'
  /** The `state` section of the configuration cannot be used (no URL, unreadable URL file). */
  | 'state-config'
  /** A statement failed on the database's own rule (a constraint): the caller maps it to its meaning. */
  | 'state-conflict';

export class StateError extends Error {
  constructor(
    readonly code: StateErrorCode,
    message: string,
    /** PostgreSQL's SQLSTATE, when the database answered with an error. */
    readonly sqlState?: string,
    /** The constraint a `state-conflict` broke. */
    readonly constraint?: string,
  ) {
    super(message);
    this.name = 'StateError';
  }
}
