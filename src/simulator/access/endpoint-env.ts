/**
 * What the `/access` endpoint families share: the environment they are bound to (the access store,
 * the ticket authority, the cluster name) and PVE's failure answers.
 */
import { PveHttpError } from '../contract.js';
import type { AccessStore, User } from './store.js';
import type { TicketAuthority } from './tickets.js';

export interface AccessEndpointEnv {
  store: AccessStore;
  tickets: TicketAuthority;
  /** Corosync cluster name; `undefined` for a stand-alone node. */
  clusterName(): string | undefined;
}

export const authFailure = () => new PveHttpError(401, 'authentication failure\n');
export const die = (message: string) => new PveHttpError(500, `${message}\n`);

export function flag(value: unknown, fallback: boolean): boolean {
  return value === undefined ? fallback : value === 1 || value === true;
}

/** The account named `userid`, or PVE's error for one that does not exist. */
export function accountOf(store: AccessStore, userid: string): User {
  const u = store.user(userid);
  if (!u) throw die(`no such user ('${userid}')`);
  return u;
}
