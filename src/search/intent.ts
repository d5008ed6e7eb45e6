/**
 * What a request asks to do when its words alone do not say it: "configure an smtp server" creates
 * one (the article makes it new), "push vm 404 over to pve3" acts on the guest although "push" is
 * in no vocabulary (an unknown word before a guest or node an ID names is a verb).
 */
import type { HttpMethod } from '../schema/model.js';
import { isNoise } from './analyzer.js';
import { GUEST_PLURALS, GUEST_WORDS, NODE_WORDS, ONE_OF } from './roles.js';
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

/**
 * "put 4 cores for container 204", "add 2 more disks": a creating verb whose object is an amount
 * sets how much of it a thing has; said of a guest that exists, that is a change of its settings.
 */
export function addsAmount(tokens: readonly string[], verb: { rule: VerbRule; position: number; length: number } | undefined): boolean {
  if (!verb || verb.rule.methods[0] !== 'POST') return false;
  return /^[0-9]+$/.test(tokens[verb.position + verb.length] ?? '');
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

/** Words an agent uses for the API itself ("the endpoint that …", "api to …"): they name no operation. */
const META = new Set(['api', 'apis', 'endpoint', 'endpoints', 'call', 'calls', 'route', 'routes', 'method', 'operation', 'operations']);
/** Before a meta word: how it is introduced ("which endpoint", "via the api"). */
const META_BEFORE = new Set(['what', 'which', 'the', 'a', 'an', 'via', 'using', 'through', 'with', 'by', 's', 'right', 'correct']);
/** After a meta word: what ties it to the act ("api to list vms", "the call that starts …"). */
const META_CONNECTORS = new Set(['to', 'for', 'that', 'which', 'i', 'should', 'can', 'do', 'does', 'will']);
/** Verbs that say what a call reports, not what it does ("which call returns the node list"). */
const REPORTING = new Set(['returns', 'gives', 'shows', 'provides', 'reports', 'tells', 'fetches', 'gets', 'lists', 'exposes']);

/**
 * Drops an agent's words for the API itself: "what endpoint deletes a snapshot" asks to delete a
 * snapshot, "api to list vms" to list VMs, "endpoint for creating a container" to create one (the
 * gerund becomes the verb `isVerb` knows), "read the syslog via api" to read the syslog. A meta
 * word stays where it names a thing ("notification endpoints", "api token").
 */
export function dropMetaWords(tokens: readonly string[], isVerb: (word: string) => boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    const before = i === 0 || META_BEFORE.has(tokens[i - 1] as string);
    const next = tokens[i + 1];
    const tied = next === undefined || META_CONNECTORS.has(next) || REPORTING.has(next) || isVerb(next) || gerund(next, isVerb) !== undefined;
    if (!META.has(t) || !before || !tied) {
      out.push(t);
      continue;
    }
    let j = i + 1;
    while (META_CONNECTORS.has(tokens[j] ?? '') || REPORTING.has(tokens[j] ?? '')) j += 1;
    const base = gerund(tokens[j], isVerb);
    if (base !== undefined) {
      out.push(base);
      j += 1;
    }
    i = j - 1;
  }
  return out;
}

/** The verb a gerund is made of ("creating" → create, "stopping" → stop), when `isVerb` knows it. */
export function gerund(word: string | undefined, isVerb: (word: string) => boolean): string | undefined {
  if (word === undefined || !word.endsWith('ing') || word.length < 6) return undefined;
  const stemmed = word.slice(0, -3);
  for (const base of [stemmed, `${stemmed}e`, stemmed.slice(0, -1)]) if (isVerb(base)) return base;
  return undefined;
}
