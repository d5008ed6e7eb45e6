/**
 * What a request asks to do when its words alone do not say it: "configure an smtp server" creates
 * one (the article makes it new), "push vm 404 over to pve3" acts on the guest although "push" is
 * in no vocabulary (an unknown word before a guest or node an ID names is a verb).
 */
import type { HttpMethod } from '../schema/model.js';
import { isNoise, tokenize } from './analyzer.js';
import { GUEST_PLURALS, GUEST_WORDS, NODE_WORDS, ONE_OF } from './roles.js';
import type { Concept } from './query.js';
import type { VerbRule } from './verbs.js';

/** Words that introduce the verb's object as a thing that does not exist yet. */
const NEW_THING = new Set(['a', 'an', 'new', 'another']);

/** Creating comes first, changing an existing thing second. */
export const CREATE_FIRST: readonly HttpMethod[] = ['POST', 'PUT'];

/** Changing an existing thing comes first, creating one second. */
export const CHANGE_FIRST: readonly HttpMethod[] = ['PUT', 'POST'];

/** A change verb whose object is new ("configure an smtp server", "set up another alias") creates it. */
export function changesNewThing(tokens: readonly string[], verb: { rule: VerbRule; position: number; length: number } | undefined): boolean {
  if (!verb || verb.rule.methods[0] !== 'PUT') return false;
  return NEW_THING.has(tokens[verb.position + verb.length] ?? '');
}

/** Methods an unnamed act asks for: anything but a read. */
export const ACTING: readonly HttpMethod[] = ['POST', 'PUT', 'DELETE'];

/**
 * The request opens with a word the vocabulary and the schema do not know, right before a guest or
 * node named by ID ("push vm 404 …", "bounce ct 200"): an imperative whose meaning the rest of the
 * request carries, so it asks to act, not to read.
 */
export function unknownVerbBeforeTarget(tokens: readonly string[], at: number | undefined, known: (i: number) => boolean): boolean {
  if (at === undefined || known(at)) return false;
  let i = at + 1;
  if (ONE_OF.has(tokens[i] ?? '')) i += 1;
  if (tokens[i] === 'node') return true;
  return GUEST_WORDS.has(tokens[i] ?? '') && /^[0-9]+$/.test(tokens[i + 1] ?? '');
}

/** Words that open a clause saying why or when ("so I can snapshot", "before the upgrade", "while it runs"). */
const SUBORDINATORS = new Set(['so', 'before', 'after', 'while', 'because', 'since', 'until', 'once', 'otherwise', 'when', 'whenever']);
/** Weight of what such a clause names: the context of the act, not its object. */
const CLAUSE_WEIGHT = 0.5;

/**
 * Weighs down (in place) the concepts named only in a clause after the request's object that says
 * why or when: "freeze vm 130's disks so I can snapshot" acts on the disks, not on a snapshot. The
 * clause ends at the next punctuation (`ends`: token positions where a sentence part ends), so
 * "…after too many attempts, unlock her" still asks to unlock.
 */
export function weighClauses(tokens: readonly string[], concepts: Concept[], ends: readonly number[]): void {
  const at = tokens.findIndex((t, i) => i > 0 && SUBORDINATORS.has(t));
  if (at === -1) return;
  const end = ends.find((e) => e > at + 1) ?? tokens.length;
  const before = new Set([...tokens.slice(0, at), ...tokens.slice(end)]);
  const after = new Set(tokens.slice(at + 1, end));
  for (const [k, c] of concepts.entries()) {
    const words = c.source.split(' ');
    if (!c.verb && words.every((w) => after.has(w) && !before.has(w))) concepts[k] = { ...c, weight: c.weight * CLAUSE_WEIGHT };
  }
}

/** Token positions at which a part of the request ends (after a comma, semicolon, question mark or a sentence's period). */
export function partEnds(text: string): number[] {
  const ends: number[] = [];
  let count = 0;
  for (const part of text.split(/[,;!?]|\.(?:\s|$)/)) {
    count += tokenize(part).length;
    ends.push(count);
  }
  return ends;
}

/** Nouns that name a listing of the things before them ("template list", "user overview"). */
const LISTINGS = new Set(['list', 'listing', 'overview', 'inventory']);

/** The request is a noun phrase naming a listing: "template list", "snapshot list of vm 101". */
export function namesListing(tokens: readonly string[]): boolean {
  return tokens.some((t, i) => i > 0 && LISTINGS.has(t) && (i === tokens.length - 1 || tokens[i + 1] === 'of'));
}

/** The index terms that power actions search first: said of something else, they are that thing's act. */
export const POWER_ACTS = new Set(['start', 'stop', 'shutdown', 'reboot', 'reset', 'suspend', 'resume']);

/** A word other than a guest or node word follows (articles skipped): what the phrase acts on is that, not the guest. */
export function namesSomethingElse(tokens: readonly string[], at: number, words = 1): boolean {
  let i = at;
  while (ONE_OF.has(tokens[i] ?? '')) i += 1;
  const next = tokens.slice(i, i + words);
  const target = (t: string) => GUEST_WORDS.has(t) || GUEST_PLURALS.has(t) || NODE_WORDS.has(t);
  return next.length > 0 && !next.some(target) && !isNoise(next[0] as string);
}
