/**
 * What kind of answer a parsed request asks for, as the ranker weighs property matches: a write
 * that sets what it names, or a read that shows what it names among a listing's properties.
 */
import type { ParsedQuery } from './query.js';

/** The request asks to set or add something ("change the cpu type"): a write taking it as a parameter does that. */
export function asksToSet(query: ParsedQuery): boolean {
  const methods = query.methods ?? query.hintedMethods;
  return methods !== undefined && methods[0] !== 'GET' && methods[0] !== 'DELETE';
}

/**
 * The request asks to see something's properties: a question ("what is the name of the cluster",
 * "how many cores does vm 101 have", or verbless: "vm 101 disk size") or a read of many things
 * ("which guests are locked"), not an action.
 */
export function asksForListing(query: ParsedQuery): boolean {
  if (query.question || query.propertyOf) return true;
  if (!query.collection) return false;
  return query.methods ? query.methods[0] === 'GET' : query.hintedMethods === undefined;
}
