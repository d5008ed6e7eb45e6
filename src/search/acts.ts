/**
 * The act an ask's words name when no verb opens it: a generic verb after the object in a keyword
 * request ("sdn vnet create"), a thing and how it ought to be ("pve2 should resolve via …"), the
 * end of an activity ("stop replicating vm 140"), an unknown word in a verb's place ("obtain the
 * …"), a question about a way to act ("is there a way to clone …"). ask.ts finds the ask's clause;
 * this reads its act.
 */
import { isNoise } from './analyzer.js';
import { findOpening, type Opening } from './opening.js';
import { GUEST_PLURALS, GUEST_WORDS, NODE_WORDS } from './roles.js';
import { QUESTION_METHODS, isNeutralOpener, isStateQuestion, verbRule, type VerbRule } from './verbs.js';

/** Words of a sentence: a clause holding one is written in prose, not as keywords. */
const PROSE = new Set(['the', 'a', 'an', 'my', 'our', 'its', 'their', 'this', 'that', 'these', 'those', 'i', 'we', 'you', 'it', 'is', 'are', 'of', 'to', 'for', 'from', 'with', 'in', 'on', 'at']);

/**
 * "sdn vnet create", "vm cpu type change 103", "ceph mon add pve3": in a clause of bare keywords a
 * generic verb after the object is the act, as if written first. In prose a verb word after the
 * object is usually a noun ("the update list"), so only keyword clauses are read so.
 */
export function keywordsOnly(tokens: readonly string[], from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (PROSE.has(tokens[i] as string)) return false;
  return true;
}

export function lateVerb(opening: Opening, tokens: readonly string[], from: number, end: number): Opening {
  if (opening.verb || opening.questionMethods || opening.manner || opening.firstContent === undefined) return opening;
  if (!keywordsOnly(tokens, from, end)) return opening;
  for (let i = opening.firstContent + 1; i < end; i++) {
    const rule = verbRule(tokens[i] as string, tokens[i] as string);
    if (rule) return { ...opening, verb: { rule, position: i, length: 1 } };
  }
  return opening;
}

/** Modals that say how something ought to be ("pve2 should resolve via 1.1.1.1"). */
const OUGHT = new Set(['should', 'must', 'shall']);
/** Words between such a modal and its verb. */
const OUGHT_FILLERS = new Set(['not', 'never', 'be', 'always', 'now', 'also', 'only']);

/**
 * "pve2 should resolve via 1.1.1.1", "nightly vzdump should run at 02:30", "ct 400 should no
 * longer be ha managed" (read as "should remove …" by `readCessation`): a thing and how it ought to
 * be asks to change it. The generic verb after the modal is the act; any other verb there is the
 * new state, so the act is a change.
 */
export function wantedState(opening: Opening, tokens: readonly string[], from: number, end: number, isAct: (word: string) => boolean): Opening {
  if (opening.verb || opening.questionMethods || opening.manner || opening.firstContent === undefined) return opening;
  // After the thing it is said of: "should I …" asks instead.
  for (let i = from + 1; i < end; i++) {
    if (!OUGHT.has(tokens[i] as string)) continue;
    let j = i + 1;
    while (OUGHT_FILLERS.has(tokens[j] ?? '')) j += 1;
    const rule = verbRule(tokens[j] ?? '', tokens[j] ?? '');
    if (rule) return { ...opening, verb: { rule, position: j, length: 1 } };
    // "vm 101 needs to be stopped" (read as "should be stop" by `readPassive`): the act, whose
    // word hints its own method. Said actively it is a state to keep ("vm 150 should boot when …").
    if (tokens[j - 1] === 'be' && isAct(tokens[j] ?? '')) return { ...opening, firstContent: j };
    return { ...opening, verb: { rule: CHANGE, position: i, length: 1 } };
  }
  return opening;
}

/**
 * "don't let vm 101 start on boot", "never start ct 200 automatically", "do not delete its
 * backups": the API has no act of not acting; a negated imperative asks to configure the thing so
 * that it does not happen, a change.
 */
export function negatedImperative(opening: Opening, tokens: readonly string[], from: number): Opening {
  const negated = (tokens[from] === 'don' && tokens[from + 1] === 't') || (tokens[from] === 'do' && tokens[from + 1] === 'not') || tokens[from] === 'never';
  return negated ? { firstContent: opening.firstContent, verb: { rule: CHANGE, position: from, length: 1 } } : opening;
}

/** "needs to", "has to": a modal of obligation in two words. */
const OBLIGED = new Set(['need', 'needs', 'has', 'have']);
/** Participles not made with -ed. */
const IRREGULAR_PARTICIPLES: Readonly<Record<string, string>> = { kept: 'keep', set: 'set', shut: 'shut', taken: 'take', made: 'make', given: 'give', put: 'put', run: 'run', gone: 'remove' };

/**
 * "the snapshot should be deleted", "vm 101 needs to be stopped", "ct 200 has to be restarted": a
 * passive after a modal of obligation asks for the act its participle names, read as "should
 * be <verb>" when `isAct` knows the verb.
 */
export function readPassive(tokens: readonly string[], isAct: (word: string) => boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    const obliged = OBLIGED.has(t) && tokens[i + 1] === 'to';
    if (!OUGHT.has(t) && !obliged) {
      out.push(t);
      continue;
    }
    let k = obliged ? i + 2 : i + 1;
    const fillers: string[] = [];
    while (OUGHT_FILLERS.has(tokens[k] ?? '')) fillers.push(tokens[k++] as string);
    const base = fillers.includes('be') ? participleBase(tokens[k] ?? '', isAct) : undefined;
    if (base === undefined) {
      out.push(t);
      continue;
    }
    out.push('should', ...fillers.filter((f) => f !== 'be'), 'be', base);
    i = k;
  }
  return out;
}

/** Words of a wish ("I want vm 101 stopped", "we need these snapshots deleted"). */
const WISHING = new Set(['want', 'need', 'like', 'wanna']);

/**
 * "I want vm 101 stopped", "we need these snapshots deleted", "I want ct 200 restarted before
 * noon": a wish whose object ends its part with a participle asks for the participle's act; the
 * participle is read as its verb (`isAct` knows it), which ends the clause (`wishedResult`).
 */
export function readResult(tokens: readonly string[], isAct: (word: string) => boolean): string[] {
  const wished = tokens.findIndex((t) => WISHING.has(t));
  if (wished === -1) return [...tokens];
  let last = tokens.length - 1;
  for (let i = wished + 2; i < tokens.length; i++) if (ENDS_RESULT.has(tokens[i] as string)) last = Math.min(last, i - 1);
  // "I want to know which vms are stopped": a participle after a question word or a copula is a state.
  const stated = tokens.slice(wished + 1, last).some((t) => EMBEDDED.has(t) || COPULAS.has(t));
  const base = last > wished + 1 && !stated ? participleBase(tokens[last] as string, isAct) : undefined;
  return base === undefined ? [...tokens] : [...tokens.slice(0, last), base, ...tokens.slice(last + 1)];
}

const COPULAS = new Set(['is', 'are', 'was', 'were', 'be', 'been', 'being']);
/** Words after which a result participle's clause is over ("… restarted before noon", "… gone from local"). */
const ENDS_RESULT = new Set([
  'before',
  'after',
  'by',
  'until',
  'when',
  'because',
  'so',
  'asap',
  'now',
  'today',
  'tonight',
  'please',
  // "… gone from local", "… stopped on pve2": where, not what.
  'from',
  'on',
  'in',
  'at',
  'to',
  'within',
  'during',
]);

/** In a wish with no verb first, a verb or action word ending the clause is the act (read so by `readResult`). */
export function wishedResult(opening: Opening, tokens: readonly string[], from: number, end: number, isAct: (word: string) => boolean): Opening {
  if (opening.verb || opening.questionMethods || opening.manner) return opening;
  if (!tokens.slice(from, end).some((t) => WISHING.has(t))) return opening;
  const at = end - 1;
  const word = tokens[at] as string;
  const rule = verbRule(word, word);
  if (rule) return { ...opening, verb: { rule, position: at, length: 1 } };
  return isAct(word) ? { ...opening, firstContent: at } : opening;
}

function participleBase(word: string, isAct: (word: string) => boolean): string | undefined {
  const irregular = IRREGULAR_PARTICIPLES[word];
  if (irregular !== undefined) return irregular;
  if (!word.endsWith('ed')) return undefined;
  return [word.slice(0, -1), word.slice(0, -2), word.slice(0, -3)].find(isAct);
}

const CHANGE = verbRule('change', 'change') as VerbRule;
/** Verbs that end an activity ("stop replicating …"). */
const CEASING = new Set(['stop', 'quit', 'cease']);

/**
 * "stop replicating vm 140", "no longer replicate vm 333", "stop managing ct:210 with ha": ending
 * an activity removes what keeps it going (the replication job, the HA resource), so the words are
 * read as "remove" and the activity's verb (its gerund made plain when `base` knows it); a guest
 * named is what the activity applies to, not what is removed (`ceases`). "stop
 * running vms" stops guests: a state word after "stop" is not an activity.
 */
export function readCessation(tokens: readonly string[], base: (gerund: string) => string | undefined): { tokens: string[]; ceases: boolean } {
  const out: string[] = [];
  let ceases = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    const next = tokens[i + 1] ?? '';
    if (CEASING.has(t) && next.endsWith('ing') && next.length > 5 && next !== 'running') {
      out.push('remove', base(next) ?? next);
      i += 1;
      ceases = true;
    } else if (t === 'no' && next === 'longer') {
      out.push('remove');
      i += 1;
      ceases = true;
    } else out.push(t);
  }
  return { tokens: out, ceases };
}

/** A guest or node a statement names is where the ask acts ("the vm won't boot …, can I see what is pending"). */
export function scopes(word: string): boolean {
  return GUEST_WORDS.has(word) || GUEST_PLURALS.has(word) || NODE_WORDS.has(word);
}

/** Words that open an object right after a verb ("obtain the …", "terminate all …", "persist its …"). */
const OBJECT_OPENERS = new Set(['the', 'a', 'an', 'all', 'every', 'each', 'any', 'some', 'its', 'their', 'our', 'your', 'my', 'this', 'these', 'those']);
/** Words that open a question embedded after a verb ("determine which node …", "figure out whether …"). */
const EMBEDDED = new Set(['which', 'what', 'who', 'whether', 'if', 'where', 'how']);

/**
 * "Obtain the current status of ct 200", "terminate vm 105", "determine which node hosts vm 150":
 * the ask opens with a word that neither the vocabulary nor the schema knows, right before its
 * object or an embedded question. It is a verb whose meaning the rest carries: it is searched as
 * lightly as a verb (`unknownVerb`), and before an embedded question the request asks to read.
 */
export function unknownImperative(opening: Opening, tokens: readonly string[], known: (i: number) => boolean): Opening {
  const at = opening.firstContent;
  if (opening.verb || opening.questionMethods || at === undefined || known(at) || !/^[a-z]{3,}$/.test(tokens[at] as string)) return opening;
  const next = tokens[at + 1] ?? '';
  if (EMBEDDED.has(next)) return { ...opening, unknownVerb: at, questionMethods: QUESTION_METHODS };
  return OBJECT_OPENERS.has(next) || scopes(next) ? { ...opening, unknownVerb: at } : opening;
}

/** Words of a question that asks for a way to act ("is there a way to …", "what's the best way to …", "is it possible to …"). */
const FRAMES = new Set([
  'possible',
  'way',
  'ways',
  'best',
  'easiest',
  'right',
  'correct',
  'proper',
  'recommended',
  'call',
  'able',
  'allowed',
  'supposed',
  'method',
  'option',
  'command',
  'there',
  'any',
]);
/** Frame words that ask whether the asker may act, not how. */
const POSSIBILITY = new Set(['possible', 'able', 'allowed']);
/** How far into its clause such a question's "to" may stand. */
const FRAME_REACH = 8;

/**
 * "is there a way to clone ct 200", "what's the best way to migrate vm 120", "is it possible to
 * resize a disk": a question about a way to act asks how to act, like "how do I": the clause after
 * "to" decides, not the question word.
 */
export function mannerFrame(opening: Opening, tokens: readonly string[], stems: readonly string[], from: number, end: number): Opening {
  // "would it be possible to …" opens with no question word: its frame word comes first.
  if (!opening.questionMethods && !FRAMES.has(tokens[opening.firstContent ?? -1] ?? '')) return opening;
  let framed = false;
  let possibility: number | undefined;
  for (let k = from; k < Math.min(end, from + FRAME_REACH); k++) {
    const t = tokens[k] as string;
    if (t === 'to' && framed) {
      const act = shift(findOpening(tokens.slice(k + 1, end), stems.slice(k + 1, end)), k + 1);
      // "is it possible to …", "am I able to …" ask whether one may act, like "can I …".
      return act.verb || act.firstContent !== undefined ? { ...act, manner: true, ...(possibility !== undefined && { ability: possibility }) } : opening;
    }
    if (POSSIBILITY.has(t)) possibility = k;
    if (FRAMES.has(t)) framed = true;
    else if (!isNoise(t) && !isStateQuestion(t) && !isNeutralOpener(t)) return opening;
  }
  return opening;
}

export function shift(opening: Opening, by: number): Opening {
  const out: Opening = { ...opening };
  if (opening.verb) out.verb = { ...opening.verb, position: opening.verb.position + by };
  if (opening.firstContent !== undefined) out.firstContent = opening.firstContent + by;
  if (opening.ability !== undefined) out.ability = opening.ability + by;
  return out;
}
