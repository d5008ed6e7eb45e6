/**
 * What the schema's paths and names say, computed once per model for the ranker and the query
 * parser: the identifiers it uses, the segment pairs its paths spell, its operations on a kind of
 * guest.
 */
import { splitPath, type Operation } from '../schema/model.js';
import { analyze } from './analyzer.js';
import { indexedOperation, shownByUpdates } from './document.js';

/** Every term the schema uses as a name: path segments, handlers, parameters and returned properties. */
export function identifierTerms(operations: readonly Operation[]): Set<string> {
  const terms = new Set<string>();
  const updates = shownByUpdates(operations);
  operations.forEach((op, id) => {
    const doc = indexedOperation(op, id, updates[id]);
    for (const field of [doc.path, doc.name, doc.params, doc.returns]) for (const term of analyze(field)) terms.add(term);
    if (doc.tail) terms.add(doc.tail);
  });
  return terms;
}

/** "a b" for every two adjacent literal one-word segments of a path (`acme account`, `ceph pool`). */
export function pathPairs(operations: readonly Operation[]): Set<string> {
  const pairs = new Set<string>();
  for (const op of operations) {
    const segments = splitPath(op.path);
    segments.forEach((s, i) => {
      const next = segments[i + 1];
      if (next === undefined || s.startsWith('{') || next.startsWith('{')) return;
      const [a, b] = [analyze(s), analyze(next)];
      if (a.length === 1 && b.length === 1) pairs.add(`${a[0]} ${b[0]}`);
    });
  }
  return pairs;
}

/** Per operation: it is about a kind of guest (a segment that elsewhere precedes `{vmid}`: qemu, lxc) but no one guest. */
export function guestKindOps(operations: readonly Operation[]): boolean[] {
  const kinds = new Set<string>();
  for (const op of operations) {
    const segments = splitPath(op.path);
    segments.forEach((s, i) => {
      if (segments[i + 1] === '{vmid}') kinds.add(s);
    });
  }
  return operations.map((op) => {
    const segments = splitPath(op.path);
    return !segments.includes('{vmid}') && segments.some((s) => kinds.has(s));
  });
}
