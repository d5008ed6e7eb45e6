/**
 * "can I suspend every vm on pve4", "could we migrate vm 100 while it runs": asking whether one may
 * act asks for the act (`findOpening` marks the modal as `ability`). Its other reading, whether the
 * act is possible, is what a check operation answers (a feature, precondition or safety check):
 * such checks are searched lightly beside the act, and a read ranks second to the act, not against it.
 */
import type { HttpMethod } from '../schema/model.js';
import { stem } from './analyzer.js';
import type { Opening } from './opening.js';
import type { Concept } from './query.js';

/** What the checks of an act say they do ("check if feature … is available", "preconditions for migration"). */
const CHECK: Concept = {
  terms: new Map(Object.entries({ check: 1, precondition: 1, precheck: 1, feature: 0.6, capability: 0.6, safe: 0.6 }).map(([word, w]) => [stem(word), w])),
  // Under a noun's weight, so the act stays first unless the check names it too. At 0.5 the feature
  // check of "can I snapshot this container" fell behind the snapshot list; at 0.7 it came before
  // the act of "is it possible to migrate vm 100" (that request names "possible" as a word too).
  weight: 0.6,
  source: 'can',
  verb: false,
};

/** The check concept to search, at the modal's position, when the request asks whether it may do something that is not a read. */
export function checkConcepts(opening: Opening, acts: readonly HttpMethod[] | undefined): Array<[Concept, number]> {
  return opening.ability !== undefined && acts?.[0] !== 'GET' ? [[CHECK, opening.ability]] : [];
}

/** The methods asked for, with a read after them when the request asks whether it may act. */
export function withCheckRead(opening: Opening, asked: readonly HttpMethod[] | undefined): readonly HttpMethod[] | undefined {
  return opening.ability !== undefined && asked && !asked.includes('GET') ? [...asked, 'GET'] : asked;
}
