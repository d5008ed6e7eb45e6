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

/**
 * Factor for a node's read that has nothing to do with guests (`GET /nodes/{node}/network`) when a
 * question names one guest by ID ("which network bridge is ct 204 attached to"): the guest is what
 * it asks about, and the node's own reads are not.
 */
export const NODE_READ_FOR_ONE_GUEST = 0.6;

/** Per operation: a read under a node with no `{vmid}`, about no kind of guest and taking no guest as a parameter. */
export function nodeOwnReadOps(operations: readonly Operation[], guestKind: readonly boolean[], guestArgument: readonly boolean[]): boolean[] {
  return operations.map((op, id) => op.method === 'GET' && op.path.startsWith('/nodes/{node}/') && !op.path.includes('{vmid}') && !guestKind[id] && !guestArgument[id]);
}
