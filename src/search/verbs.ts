/**
 * Operator verbs → HTTP method intent. "list the snapshots" wants a GET, "remove the snapshot" a
 * DELETE: the verb decides between operations that share a path. Only generic verbs live here;
 * verbs that name an action of their own (start, migrate, upload, sync…) are synonym rules that
 * search for that action and may hint a method.
 *
 * A verb steers the method only in imperative position (first content word, possibly after
 * "please" or "how do I"), because words like "update" or "set" are also nouns later in a request
 * ("available updates", "ip set").
 */
import type { HttpMethod } from '../schema/model.js';

export interface VerbRule {
  words: readonly string[];
  /**
   * Methods that satisfy the intent, preferred first: PVE changes configuration with PUT on most
   * paths and POST on some.
   */
  methods: readonly HttpMethod[];
  /** Words the verb contributes to the text search, with weights (they appear in operation summaries). */
  terms: Readonly<Record<string, number>>;
  /** The verb asks for a collection ("list …"), so per-item reads rank lower. */
  collection?: boolean;
}

export const VERB_RULES: readonly VerbRule[] = [
  {
    words: ['list', 'enumerate', 'index', 'browse', 'count'],
    methods: ['GET'],
    terms: { list: 0.6, index: 0.3 },
    collection: true,
  },
  {
    words: ['show', 'get', 'display', 'view', 'read', 'see', 'check', 'fetch', 'find', 'inspect', 'query', 'lookup', 'print', 'retrieve', 'describe', 'look', 'tell', 'monitor', 'watch'],
    methods: ['GET'],
    terms: { get: 0.3, read: 0.3 },
  },
  {
    words: [
      'create',
      'add',
      'new',
      'make',
      'generate',
      'register',
      'take',
      'allocate',
      'provision',
      'define',
      'setup',
      'build',
      'spawn',
      'issue',
      'order',
      'trigger',
      'initialize',
      'init',
      'open',
      'request',
      'put',
    ],
    methods: ['POST'],
    terms: { create: 0.5, add: 0.4, new: 0.3 },
  },
  {
    words: [
      'change',
      'set',
      'update',
      'edit',
      'modify',
      'configure',
      'rename',
      'adjust',
      'alter',
      'tweak',
      'toggle',
      'assign',
      'mark',
      'replace',
      'write',
      'give',
      'attach',
      'mount',
      'insert',
      'eject',
      'plug',
      'limit',
      'throttle',
      'cap',
      'restrict',
      'bump',
      'raise',
      'lower',
      'reduce',
      'decrease',
      'exclude',
      'ensure',
      // Taking a part off a guest is a change of its configuration ("detach the iso from vm 109").
      'detach',
      'unplug',
    ],
    methods: ['PUT', 'POST'],
    terms: { update: 0.5, set: 0.4, config: 0.5, option: 0.4, modify: 0.3 },
  },
  {
    // Mapping a device or directory for the cluster creates a resource mapping.
    words: ['map'],
    methods: ['POST'],
    terms: { mapping: 1, create: 0.3 },
  },
  {
    // Running something that exists now ("run the replication job now", "refresh the package index").
    words: ['run', 'rerun', 'refresh', 'resync', 'kick'],
    methods: ['POST'],
    terms: { start: 0.3, now: 0.3 },
  },
  {
    words: ['remove', 'delete', 'destroy', 'drop', 'erase', 'purge', 'del', 'rm', 'discard', 'clear', 'cancel', 'abort'],
    methods: ['DELETE'],
    terms: { delete: 0.6, remove: 0.5, destroy: 0.4 },
  },
];

/** Question words that ask about state ("which vms are running?", "is the node up?") and so imply a read. */
const STATE_QUESTIONS = new Set(['what', 'which', 'who', 'whom', 'is', 'are', 'was', 'were', 'does', 'did', 'where', 'when', 'why', 'can', 'could', 'has', 'have']);
/** Words that open a request without deciding it ("how do I …", "please …"). */
const NEUTRAL_OPENERS = new Set([
  'how',
  'do',
  'i',
  'to',
  'please',
  'kindly',
  'we',
  'you',
  'want',
  'need',
  'should',
  'would',
  'like',
  'let',
  'me',
  'quickly',
  // What is left of a negative contraction ("don't", "doesn't", "won't"): the negation is read
  // from the clause (ask.ts, acts.ts), the fragment itself names nothing.
  'don',
  'doesn',
  'didn',
  'isn',
  'aren',
  'wasn',
  'won',
  'hasn',
  'haven',
  // Greetings, courtesy and fillers ("hey, pls …", "ok so basically …", "… asap, thanks"): no act, no thing.
  'pls',
  'plz',
  'hi',
  'hello',
  'hey',
  'thanks',
  'thank',
  'thx',
  'cheers',
  'ok',
  'okay',
  'basically',
  'btw',
  'lol',
  'asap',
  // "I'm trying to …", "help me …", "looking to …", "I was wondering if you could …", "do you
  // think you could …": the operator's effort or politeness, not the act.
  'wondering',
  'think',
  'trying',
  'looking',
  'hoping',
  'planning',
  'help',
]);

/** Methods a state question asks for. */
export const QUESTION_METHODS: readonly HttpMethod[] = ['GET'];

const byWord = new Map<string, VerbRule>();
for (const rule of VERB_RULES) for (const word of rule.words) byWord.set(word, rule);

/** Two-word verbs whose first word alone means something else: "set up" creates, "set" changes. */
const PHRASAL_VERBS: Readonly<Record<string, string>> = {
  'set up': 'create',
  'clean up': 'remove',
  'get rid': 'remove',
  'look up': 'show',
  'spin off': 'create',
  'make it': 'change',
  // "make sure vm 101 starts at boot": a state to hold, set in a configuration.
  'make sure': 'change',
  'make them': 'change',
  // "give me the ram usage of every node": what is given to the asker is shown, not granted.
  'give me': 'show',
  'get me': 'show',
  'send me': 'show',
};

/** The verb rule a two-word verb ("set up a replication job") stands for, if `token next` is one. */
export function phrasalVerbRule(token: string, next: string | undefined): VerbRule | undefined {
  const word = next === undefined ? undefined : PHRASAL_VERBS[`${token} ${next}`];
  return word === undefined ? undefined : byWord.get(word);
}

/** Verbs that are one only as written: "runs" and "running" are states ("which vms are running"). */
const EXACT_ONLY = new Set(['run', 'rerun', 'refresh', 'resync', 'kick', 'map']);

/** The verb rule for a lowercased token (or its stem), if it is a generic operator verb. */
export function verbRule(token: string, stemmed: string): VerbRule | undefined {
  return byWord.get(token) ?? (EXACT_ONLY.has(stemmed) ? undefined : byWord.get(stemmed));
}

/**
 * A verb whose object sits between it and a particle: "take vm 120 out of ha" removes it from HA,
 * "kick osd 3 out" likewise; the particle decides what the verb does.
 */
const SEPARABLE_VERBS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  take: { out: 'remove', off: 'remove' },
  pull: { out: 'remove' },
  kick: { out: 'remove' },
};

/** The verb rule `token` stands for given the words after it (a separable verb's particle), if it differs from its own. */
export function separableVerbRule(token: string, rest: readonly string[]): VerbRule | undefined {
  const particles = SEPARABLE_VERBS[token];
  if (!particles) return undefined;
  for (const word of rest) {
    const meaning = particles[word];
    if (meaning) return byWord.get(meaning);
  }
  return undefined;
}

export function isStateQuestion(token: string): boolean {
  return STATE_QUESTIONS.has(token);
}

/** After "how", these ask for a way to act ("how can I stop …"), like "how do I": not a state question. */
const MANNER_MODALS = new Set(['can', 'could', 'should', 'would', 'do', 'does', 'to']);

export function isMannerModal(token: string): boolean {
  return MANNER_MODALS.has(token);
}

export function isNeutralOpener(token: string): boolean {
  return NEUTRAL_OPENERS.has(token);
}
