/**
 * A guest named by ID is not always what the request acts on: in "back up vm 101", "what backups
 * exist for vm 101" or "add vm 130 to the dev pool" it is an argument of an operation elsewhere in
 * the API, one that takes the guest as a parameter (`vmid`, `vms`, `guest`, `sid`) instead of in its
 * path. Such an operation covers the guest the request names as fully as one under `/{vmid}`.
 */
import type { Operation } from '../schema/model.js';
import type { Concept, ParsedQuery } from './query.js';
import { GUEST_WORDS } from './roles.js';

/** Parameters through which an operation takes one or more guests. */
const GUEST_PARAMETERS = new Set(['vmid', 'vms', 'guest', 'sid']);

/** Per operation: it takes guests as a parameter, not in its path. */
export function guestArgumentOps(operations: readonly Operation[]): boolean[] {
  return operations.map((op) => !op.path.includes('{vmid}') && op.params.some((p) => !p.inPath && GUEST_PARAMETERS.has(p.name)));
}

/** How fully such an operation covers the guest the request names, and how well it matches it (relative to the best match). */
export const GUEST_ARGUMENT_COVERAGE = 0.7;
export const GUEST_ARGUMENT_SCORE = 0.3;

/** The concept is the guest an existing guest's ID names ("vm 101", "ct 200"). */
export function isNamedGuest(concept: Concept, query: ParsedQuery): boolean {
  return query.oneGuest && query.guestExists && !concept.verb && GUEST_WORDS.has(concept.source);
}
