/**
 * Turns an operator's request into weighted concepts and a method intent.
 *
 * "please take a snapshot of vm 101" becomes: intent POST (from "take"), concepts
 * {snapshot, snap} and {qemu, vm, virtual, machine}; "please", "a", "of" and "101" carry nothing.
 * Each concept is scored as a unit, so a rich synonym list cannot outweigh a plain word.
 */
import type { HttpMethod } from '../schema/model.js';
import { isNoise, stem, tokenize } from './analyzer.js';
import { particleTerm } from './document.js';
import { namedItemKinds, nameSpelledItems } from './items.js';
import { ID_KINDS, readReferences } from './references.js';
import { acting, rejoinSplitActions } from './opening.js';
import { readCessation, readPassive, readResult, unknownImperative } from './acts.js';
import { checkConcepts, withCheckRead } from './ability.js';
import { findAsk, splitParts, weighContext } from './ask.js';
import { ACTING, addsAmount, CHANGE_FIRST, CREATE_FIRST, changesNewThing, dropMetaWords, gerund, namesListing, namesSomethingElse, POWER_ACTS, unknownVerbBeforeTarget } from './intent.js';
import { asksForNodeGuests, bothGuestKinds, GUEST_PLURALS, GUEST_WORDS, NODE_ID, NODE_WORDS, ONE_OF, PLURAL_TERM_MIN, PREPOSITIONS, weighRoles } from './roles.js';
import type { CompiledSynonym } from './synonym-compile.js';
import { matchPhrase, opensLongerPhrase } from './phrases.js';
import { QUESTION_METHODS, isNeutralOpener, isStateQuestion, phrasalVerbRule, verbRule, type VerbRule } from './verbs.js';

export interface Concept {
  /** Index terms (stemmed) and how well each stands for the concept. */
  terms: ReadonlyMap<string, number>;
  /** Importance of the concept in the request: verbs matter less than nouns. */
  weight: number;
  /** The query words the concept came from, for explanations and tests. */
  source: string;
  /** A verb's words are generic ("list", "create"): how rare they are in the schema says nothing. */
  verb: boolean;
  /**
   * Only the request's context names it (ask.ts): weighed down, an operation need not cover it; or
   * kept at full weight as the guest or node the ask acts on.
   */
  context?: 'weighed' | 'kept';
}

export interface ParsedQuery {
  concepts: Concept[];
  /** Methods the request asks for, when a verb or a state question says so. */
  methods?: readonly HttpMethod[];
  /** Methods an action word suggests ("upload" → POST) when no verb or question decides. */
  hintedMethods?: readonly HttpMethod[];
  /** The request is about many things ("list …", plural nouns): collections beat single items. */
  collection: boolean;
  /** Index terms of the things the request names in the plural ("storages", "pools"): reading one of them is not the answer. */
  pluralTerms: ReadonlySet<string>;
  /** The request names one guest ("vm 101", "the vm"): the list of guests is not the answer. */
  oneGuest: boolean;
  /**
   * The guest exists: named by its ID ("container 200") or the target of a preposition ("add a disk
   * to a vm"), so creating a guest is not the answer either.
   */
  guestExists: boolean;
  /** The request says when or how often ("nightly", "every day", "a backup job"): a scheduled job may be the answer. */
  timed: boolean;
  /** The request is a question ("which …", "what is …", "how many …"): it asks what something holds. */
  question: boolean;
  /** The request names a node ("shut down pve1", "the host") and no guest at all: an operation on a guest is not the answer. */
  nodeNotGuest: boolean;
  /** The request asks about guests in the plural and names no node ("which guests are locked"): an inventory of the cluster. */
  inventory: boolean;
  /** The request asks about guests in the plural on a node it names ("how many containers are on this node"): that node's lists. */
  nodeGuests: boolean;
  /**
   * The guest named is what is added to or taken from something else ("add vm 130 to the dev pool",
   * "put vm 120 under ha", "take vm 120 out of ha"): the pool or HA is changed, not the guest.
   */
  guestMember: boolean;
  /** Index terms of what something is added to ("add 10.0.0.5 to the blocklist ipset" → ipset): it exists, so creating one is not the answer. */
  addedTo: ReadonlySet<string>;
  /** Index terms of the kinds of thing the request names one item of ("the PVEAuditor role" → role), items.ts. */
  namedItems: ReadonlySet<string>;
  /**
   * A verbless request that names one guest or node ("vm 101 disk size", "pve2 uptime"): it asks
   * for that thing's properties, which its reads return.
   */
  propertyOf: boolean;
}

/** Verbs steer the method; as search terms they only break ties between otherwise equal operations. */
const VERB_WEIGHT = 0.35;
/**
 * Words that say which attribute of the thing before them is meant ("cpu type", "keyboard layout",
 * "bus model"): the attribute is that thing's, so they refine its concept instead of being one.
 */
const QUALIFIERS = new Set(['type', 'kind', 'model', 'layout', 'mode', 'flavour', 'flavor', 'variant']);
/** How much a qualifier adds to the concept it refines. */
const QUALIFIER_WEIGHT = 0.25;
/** Weight of an action word (start, stop, backup…) inside a question: a state to look at, not the operation wanted. */
const QUESTION_ACTION_WEIGHT = 0.4;
/** How well `status` stands for an action word asked about as a state. */
const STATE_STATUS_WEIGHT = 0.6;
/** The verb's own word is searched too ("order" a certificate, "register" an account). */
const VERB_OWN_TERM_WEIGHT = 0.5;

const NAMING = new Set(['named', 'called']);
/** A concept standing this well for a schedule or a job says the request is about one. */
const TIMED_MIN = 0.4;

/** Where one named guest lives is the request's point ("which node hosts vm 150"): its phrase weighs this much. */
const PLACEMENT_OF_ONE_GUEST_WEIGHT = 1.4;

/**
 * Operators write the API's compound identifiers as two words: "os type" (ostype), "boot disk"
 * (bootdisk), "stop all" (stopall), "cpu units" (cpuunits). `identifiers` says whether a term is an
 * identifier of the schema (a path segment, handler, parameter or returned property name).
 */
export function parseQuery(
  text: string,
  synonyms: ReadonlyMap<string, CompiledSynonym[]>,
  identifiers?: (term: string) => boolean,
  pathPair?: (first: string, second: string) => boolean,
  itemValue?: (term: string) => boolean,
): ParsedQuery {
  const withIds = readReferences(text);
  const referenced = nameSpelledItems(withIds, synonyms, identifiers);
  const isVerb = (word: string) => verbRule(word, stem(word)) !== undefined || synonyms.get(stem(word))?.some((r) => r.methods !== undefined && r.tokens.length === 1) === true;
  // Each punctuated part is read on its own: a split action or a meta word does not reach across a comma.
  const tokens: string[] = [];
  const parts: number[] = [];
  let ceases = false;
  for (const part of splitParts(referenced)) {
    const cessation = readCessation(readResult(readPassive(tokenize(part), isVerb), isVerb), (word) => gerund(word, isVerb));
    ceases ||= cessation.ceases;
    tokens.push(...dropMetaWords(rejoinSplitActions(cessation.tokens, synonyms), isVerb));
    parts.push(tokens.length);
  }
  const stems = tokens.map(stem);
  const ask = findAsk(tokens, stems, parts, isVerb);
  const known = (i: number) => synonyms.has(stems[i] as string) || identifiers?.(stems[i] as string) === true;
  const opening = unknownImperative(ask.opening, tokens, known);
  const concepts: Concept[] = [];
  // Which concept each rule or word became, and the token spans each concept was read from.
  const seenRules = new Map<CompiledSynonym['terms'], number>();
  const seenWords = new Map<string, number>();
  const spans: Array<Array<[number, number]>> = [];
  const push = (concept: Concept, at: number, span = 1) => {
    spans.push([[at, at + span]]);
    concepts.push(concept);
  };
  const pluralTerms = new Set<string>();
  const guestById = tokens.some((t, i) => GUEST_WORDS.has(t) && /^[0-9]+$/.test(tokens[i + 1] ?? ''));
  // "the guest agent" names an agent, not a guest: a guest word opening a longer phrase modifies it.
  const guestNoun = (i: number) => GUEST_WORDS.has(tokens[i] as string) && !opensLongerPhrase(stems, i, synonyms);
  // Guests a statement names when the ask names its own guest or node are context, not the request's shape.
  const told = (i: number) => ask.scoped && ask.context.has(i);
  const anyGuest = tokens.some((t, i) => !told(i) && (guestNoun(i) || GUEST_PLURALS.has(t)));
  // "which vm is called db01": a guest named by its name is one guest too.
  const byName = tokens.some((t, i) => NAMING.has(t) || (t === 'name' && (tokens[i - 1] === 'the' || tokens[i - 1] === 'by')));
  const oneGuest = guestById || tokens.some((_, i) => guestNoun(i) && ONE_OF.has(tokens[i - 1] ?? '')) || (byName && tokens.some((_, i) => guestNoun(i)));
  const guestExists = guestById || tokens.some((_, i) => guestNoun(i) && (PREPOSITIONS.has(tokens[i - 1] ?? '') || (ONE_OF.has(tokens[i - 1] ?? '') && PREPOSITIONS.has(tokens[i - 2] ?? ''))));
  const namesNode = text.match(NODE_ID) !== null || tokens.some((t) => NODE_WORDS.has(t));
  // A named node ("how many cpus does pve1 have") asks for that node's own figures, as a named guest does.
  const namedNode = text.match(NODE_ID) !== null;
  const oneNamed = oneGuest || namedNode;
  let hinted: readonly HttpMethod[] | undefined;
  // "restore vm 118 from last night's backup": the ask recreates the guest it names.
  let recreating = false;
  let collection = opening.verb?.rule.collection === true;

  for (let i = 0; i < tokens.length; ) {
    const token = tokens[i] as string;
    const stemmed = stems[i] as string;
    if (i === opening.verb?.position) {
      push(verbConcept(opening.verb.rule, stemmed), i, opening.verb.length);
      i += opening.verb.length;
      continue;
    }
    if (i === opening.unknownVerb) {
      // "obtain the status …": a verb of unknown meaning, searched as lightly as a known one.
      push({ terms: new Map([[stemmed, 1]]), weight: VERB_WEIGHT, source: token, verb: false }, i);
      i += 1;
      continue;
    }
    // "… to clean it up": a two-word verb's particle later in the request is part of that verb.
    if (i > 0 && phrasalVerbRule(tokens[i - 1] as string, token) !== undefined) {
      i += 1;
      continue;
    }
    let phrase = matchPhrase(stems, i, synonyms, opening.verb?.position);
    if (phrase?.span === 1 && i > 0 && pathPair?.(stems[i - 1] as string, stemmed) && stemmed !== stems[i - 1]) {
      // "acme account": two words that are adjacent segments of a path (`/cluster/acme/account`)
      // name that path; the second keeps its own word instead of its rule's (account → user).
      phrase = undefined;
    }
    const compound = identifiers && (phrase?.span ?? 1) === 1 ? compoundAt(tokens, i, opening.verb?.position, identifiers) : undefined;
    if (compound) {
      push(
        {
          terms: new Map([
            [compound, 1],
            [stems[i] as string, COMPOUND_PART_WEIGHT],
            [stems[i + 1] as string, COMPOUND_PART_WEIGHT],
          ]),
          weight: 1,
          source: `${token} ${tokens[i + 1]}`,
          verb: false,
        },
        i,
        2,
      );
      // "stop all guests": the action word keeps hinting its method.
      if (i === opening.firstContent && phrase?.methods) hinted = phrase.methods;
      if (isPlural(tokens[i + 1] as string, stems[i + 1] as string)) collection = true;
      i += 2;
      continue;
    }
    if (NAMING.has(token) && opening.verb?.rule.words[0] === 'create') {
      // "create a pool named dev": the name is the new thing's, not one to look up.
      i += 1;
      continue;
    }
    if (phrase?.when && acting(opening, hinted)) {
      // "back up vm 101 right now": when to act, not a state to read.
      i += phrase.span;
      continue;
    }
    if (phrase?.ranking && oneNamed) {
      // "how many cores does vm 101 have" asks for one guest's own figure, not a comparison.
      i += phrase.span;
      continue;
    }
    // "turn off vm 101" powers the guest; "turn off protection for vm 101" changes a setting of it.
    if (phrase?.power && (anyGuest || namesNode) && !namesSomethingElse(tokens, i + phrase.span)) {
      // "turn on vm 101": power, not a feature to enable.
      const power = { ...phrase, terms: phrase.power.terms, methods: phrase.power.methods, stateTerms: undefined, power: undefined };
      phrase = power;
    }
    if (phrase) {
      const last = i + phrase.span - 1;
      const plural = isPlural(tokens[last] as string, stems[last] as string);
      const seen = seenRules.get(phrase.terms);
      if (seen !== undefined) spans[seen]?.push([i, i + phrase.span]);
      else {
        seenRules.set(phrase.terms, concepts.length);
        // In a question an action word is a state ("which vms are stopped"): it asks to see, not to
        // act; in the plural it is the things themselves ("what backups exist").
        // So is a participle in a request to read ("list all stopped vms").
        const reading = opening.questionMethods !== undefined || (opening.verb?.rule.methods[0] === 'GET' && /(?:ed|ing)$/.test(tokens[i + phrase.span - 1] as string));
        const state = reading && phrase.methods !== undefined && !plural;
        // "restore vm 118 from its backup", "delete the backup of vm 101": an action word after an
        // act that does not make one ("take a backup") names what the action left, the archive.
        const resultOf = recreating || (opening.verb !== undefined && opening.verb.position < i && opening.verb.rule.methods[0] !== 'POST');
        const things = plural || resultOf ? phrase.pluralTerms : undefined;
        const weight = state ? phrase.weight * QUESTION_ACTION_WEIGHT : phrase.placement && oneGuest ? PLACEMENT_OF_ONE_GUEST_WEIGHT : phrase.weight;
        // "cron", "syslog", "spiceproxy": a word that names one object a path can hold (a service)
        // keeps its own term beside what the vocabulary makes of it.
        const own = phrase.span === 1 && itemValue?.(stemmed) ? new Map([[stemmed, 1]]) : undefined;
        const terms = new Map([...(things ?? (state ? (phrase.stateTerms ?? withStatus(phrase.terms)) : phrase.terms)), ...(own ?? [])]);
        push({ terms, weight, source: tokens.slice(i, i + phrase.span).join(' '), verb: false }, i, phrase.span);
        // "backups" are things to look at, not the act of backing up.
        // "…, unlock her": an action word opening a later part of the request is an imperative too.
        // A power word acting on something other than a guest or node ("reset bob's password") hints nothing.
        const otherObject = POWER_ACTS.has([...phrase.terms.keys()][0] ?? '') && namesSomethingElse(tokens, i + phrase.span, 2);
        if (i === opening.firstContent && phrase.recreates) recreating = true;
        if ((i === opening.firstContent || (hinted === undefined && !opening.verb && !opening.questionMethods && (parts.includes(i) || (ask.keywords && !plural)))) && !things && !otherObject)
          hinted = phrase.methods;
      }
      if (plural) for (const [term, weight] of phrase.pluralTerms ?? phrase.terms) if (weight >= PLURAL_TERM_MIN) pluralTerms.add(term);
      // "each node", "every storage": the things named are many, so reading one of them is not the answer.
      if (phrase.collection && QUANTIFIERS.has(token)) pluralTerms.add(stems[last] as string);
      if (phrase.collection || plural) collection = true;
      i += phrase.span;
      continue;
    }
    i += 1;
    if (i === tokens.length && PARTICLES.has(token) && concepts.length > 0 && identifiers?.(particleTerm(token))) {
      // "bring osd 3 back in": a preposition with nothing after it is a particle, and the word that
      // sets the operation apart (`…/osd/{osdid}/in`, indexed as a particle term).
      push({ terms: new Map([[particleTerm(token), 1]]), weight: 1, source: token, verb: false }, i - 1);
      continue;
    }
    if (isNoise(token) || isStateQuestion(token) || isNeutralOpener(token)) continue;
    const previous = concepts.at(-1);
    if (QUALIFIERS.has(stemmed) && previous && !previous.verb && lastWordOf(previous) === tokens[i - 2]) {
      concepts[concepts.length - 1] = { ...previous, terms: new Map([...previous.terms, [stemmed, Math.max(previous.terms.get(stemmed) ?? 0, QUALIFIER_WEIGHT)]]) };
      continue;
    }
    if (isPlural(token, stemmed)) {
      collection = true;
      pluralTerms.add(stemmed);
    }
    const verb = verbRule(token, stemmed);
    if (verb) {
      push(verbConcept(verb, stemmed), i - 1);
      continue;
    }
    const seen = seenWords.get(stemmed);
    if (seen !== undefined) {
      spans[seen]?.push([i - 1, i]);
      continue;
    }
    seenWords.set(stemmed, concepts.length);
    push({ terms: new Map([[stemmed, 1]]), weight: 1, source: token, verb: false }, i - 1);
  }
  // "how do I back up vm 101": asking how to act decides the method an action word hints.
  if (!opening.verb && !opening.questionMethods && !hinted && (actsOnOne(tokens, opening.unknownVerb) || unknownVerbBeforeTarget(tokens, opening.firstContent, known))) hinted = ACTING;
  // "template list", "snapshot list of vm 101": a noun phrase naming a listing asks to read it.
  const listing = !opening.verb && !opening.questionMethods && namesListing(tokens);
  if (listing) collection = true;
  const verbMethods = changesNewThing(tokens, opening.verb) ? CREATE_FIRST : listing ? QUESTION_METHODS : guestById && addsAmount(tokens, opening.verb) ? CHANGE_FIRST : opening.verb?.rule.methods;
  // "can I snapshot ct 200": whether the act can be done is what a check of it answers (ability.ts).
  for (const [check, at] of checkConcepts(opening, verbMethods ?? hinted)) push(check, at);
  const timed = concepts.some((c) => (c.terms.get('schedule') ?? 0) >= TIMED_MIN || (c.terms.get('job') ?? 0) >= TIMED_MIN);
  weighContext(concepts, spans, ask);
  const { guestMember, addedTo, joinsExisting } = weighRoles(tokens, stems, concepts, opening.verb);
  // "add a disk to a vm": adding to a thing that exists may be setting one of its options.
  if (addedTo.size > 0) for (const [k, c] of concepts.entries()) if (c.verb) concepts[k] = { ...c, terms: new Map([...CHANGE_TERMS, ...c.terms]) };
  // "add vm 130 to the dev pool": joining a thing that exists changes it.
  const methods = withCheckRead(opening, (joinsExisting ? CHANGE_FIRST : verbMethods) ?? opening.questionMethods ?? (opening.manner ? hinted : undefined));
  const propertyOf = oneNamed && !methods && !hinted && opening.manner !== true;
  const namedItems = opening.verb?.rule.methods[0] === 'POST' ? new Set<string>() : namedItemKinds(tokens, stems, synonyms, identifiers, ask.keywords);
  if (opening.verb?.rule.methods[0] !== 'POST') for (const [pattern, kind] of ID_KINDS) if (pattern.test(text)) namedItems.add(kind);
  const shape = {
    namedItems,
    collection,
    pluralTerms,
    oneGuest,
    guestExists: guestExists && !recreating,
    timed,
    nodeNotGuest: namesNode && !anyGuest,
    inventory: !namesNode && !oneGuest && (tokens.some((t) => GUEST_PLURALS.has(t) || t === 'machines') || bothGuestKinds(tokens)) && (methods ?? hinted ?? QUESTION_METHODS)[0] === 'GET',
    nodeGuests:
      !oneGuest &&
      asksForNodeGuests(
        text,
        tokens.filter((_, i) => !told(i)),
      ),
    question: opening.questionMethods !== undefined,
    guestMember: guestMember || ceases,
    propertyOf,
    addedTo,
  };
  if (methods) return { concepts, methods, ...shape };
  return hinted ? { concepts, hintedMethods: hinted, ...shape } : { concepts, ...shape };
}

/** What a change verb searches, added to an add verb's terms when it adds to something that exists. */
const CHANGE_TERMS: ReadonlyMap<string, number> = new Map([
  ['update', 0.5],
  ['set', 0.4],
  ['config', 0.5],
]);

/** Prepositions that, last in a request, are particles ("back in"). */
const PARTICLES = new Set(['in', 'on', 'up']);

/** Words that make the thing after them many ("each node", "all guests"). */
const QUANTIFIERS = new Set(['each', 'every', 'all', 'per']);

/**
 * "rebuild the cloud-init drive", "yank the power": a verb of unknown meaning acting on one thing
 * asks to act; on many ("identify all guests whose …", "return all guests that …") it asks to read.
 */
function actsOnOne(tokens: readonly string[], verb: number | undefined): boolean {
  if (verb === undefined) return false;
  for (let k = verb + 1; k < tokens.length; k++) {
    const t = tokens[k] as string;
    if (QUANTIFIERS.has(t)) return false;
    if (!ARTICLES.has(t)) return !isPlural(t, stem(t));
  }
  return false;
}

const ARTICLES = new Set(['the', 'a', 'an', 'its', 'their', 'our', 'my', 'your', 'this', 'that']);

/** How well each word of a compound ("os type") stands for it on its own. */
const COMPOUND_PART_WEIGHT = 0.25;

/** The schema identifier two adjacent content words spell together, if any. */
function compoundAt(tokens: string[], i: number, verbPosition: number | undefined, identifiers: (term: string) => boolean): string | undefined {
  const a = tokens[i] as string;
  const b = tokens[i + 1];
  if (b === undefined || i + 1 === verbPosition) return undefined;
  for (const t of [a, b]) if (!/^[a-z]+$/.test(t) || isNoise(t) || isStateQuestion(t) || isNeutralOpener(t)) return undefined;
  const joined = stem(a + b);
  return identifiers(joined) ? joined : undefined;
}

/** An action word in a question names a state ("stopped"), which status reads report. */
function withStatus(terms: ReadonlyMap<string, number>): ReadonlyMap<string, number> {
  return new Map([...terms, ['status', Math.max(terms.get('status') ?? 0, STATE_STATUS_WEIGHT)]]);
}

function lastWordOf(concept: Concept): string | undefined {
  return concept.source.split(' ').at(-1);
}

function isPlural(token: string, stemmed: string): boolean {
  return token.endsWith('s') && stemmed !== token;
}

function verbConcept(rule: VerbRule, stemmed: string): Concept {
  const terms = new Map<string, number>();
  for (const [word, weight] of Object.entries(rule.terms)) terms.set(stem(word), weight);
  terms.set(stemmed, Math.max(terms.get(stemmed) ?? 0, VERB_OWN_TERM_WEIGHT));
  return { terms, weight: VERB_WEIGHT, source: stemmed, verb: true };
}
