/**
 * What a request asks, apart from what it tells: "the gitlab token leaked, kill it" asks to kill the
 * token; "I need to take pve2 down tomorrow, how do I move everything off it first" asks how to move
 * the guests; "quiesce vm 160's filesystem before a storage snapshot" asks to freeze, not to
 * snapshot. The request is cut into clauses (at punctuation, at words that open a clause saying why
 * or when, at a new subject or question), each clause is read as an ask (an imperative, a question,
 * a wish), as context (a statement of what happened, a reason, a time) or as plain words (a keyword
 * bag, a list), and the ask's clause decides the method. What only the context names is weighed
 * down, not dropped: it may scope the ask (the node or guest a pronoun stands for).
 */
import { isNoise } from './analyzer.js';
import type { Concept } from './query.js';
import { keywordsOnly, lateVerb, mannerFrame, negatedImperative, scopes, shift, wantedState, wishedResult } from './acts.js';
import { findOpening, type Opening } from './opening.js';
import { isMannerModal, isNeutralOpener, isStateQuestion, phrasalVerbRule, verbRule, type VerbRule } from './verbs.js';

/** Punctuation that ends a part of the request: , ; ! ? ( ) a sentence's period, a colon or a dash between words. */
const PART_BREAK = /[,;!?()[\]]|\.(?:\s|$)|:(?:\s|$)|\s[-–—]+\s|[–—]/g;

/** Splits a request into its punctuated parts (empty parts dropped). */
export function splitParts(text: string): string[] {
  return text
    .split(PART_BREAK)
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** Words that open a clause saying why or when ("so I can snapshot", "before the upgrade", "while it runs"). */
const SUBORDINATORS = new Set(['so', 'before', 'after', 'while', 'because', 'since', 'until', 'once', 'otherwise', 'when', 'whenever', 'unless']);
/** Words that join two clauses ("…, and I want …", "… but not …", "… then delete it"). */
const JOINERS = new Set(['and', 'but', 'then']);
/** Subjects that open a clause of their own ("… and we want …", "someone deleted …"). */
const SUBJECTS = new Set(['i', 'we', 'someone', 'somebody', 'they', 'it', 'he', 'she', 'nobody']);
/** Words of wanting: "I need to …", "we want …", "I'd like …" ask for what follows. */
const WANTS = new Set(['need', 'want', 'wanna', 'like', 'must', 'have', 'would', 'd', 'trying', 'looking', 'hoping', 'planning', 'going', 'wondering']);
/** Words that tell a state or an event rather than ask for anything ("… is wedged", "… keeps failing", "… doesn't boot"). */
const FINITE = new Set([
  'am',
  'm',
  've',
  'have',
  'is',
  'are',
  'was',
  'were',
  'has',
  'had',
  'keeps',
  'kept',
  'got',
  'gets',
  'seems',
  'looks',
  'won',
  'doesn',
  'don',
  'didn',
  'isn',
  'aren',
  'wasn',
  'hasn',
  'can',
  'cannot',
  'hangs',
  'fails',
  'shows',
  'says',
  'gives',
  'does',
  'did',
  // A third person's present ("the rest stays up", "ct 200 crashes nightly").
  'stays',
  'works',
  'runs',
  'crashes',
  'freezes',
  'dies',
  'breaks',
  'complains',
  'belongs',
  'sits',
  'lives',
  'uses',
  // Irregular pasts ("the upgrade broke everything", "I took a snapshot").
  'broke',
  'took',
  'went',
  'gave',
  'ran',
  'lost',
  'came',
  'saw',
  'forgot',
  'brought',
  'built',
  'began',
  'fell',
  'found',
  'sent',
  'told',
  'thought',
  'wrote',
  'froze',
  'hung',
  'became',
]);
/** Pronouns that point back at a thing the request named before. */
const ANAPHORS = new Set(['it', 'its', 'them', 'their', 'her', 'him', 'his', 'one', 'ones', 'that', 'those', 'these', 'this']);
/** Weight of what only the context names: it scopes the ask, it is not what is asked. */
export const CONTEXT_WEIGHT = 0.5;

type ClauseRole = 'ask' | 'context' | 'plain';

interface Clause {
  /** Token positions [start, end). */
  start: number;
  end: number;
  /** Where the clause's own words start, after a joining "and", "but", "then" or a "please". */
  from: number;
  role: ClauseRole;
  /** The clause voices a wish ("I need to …", "we want …"): when another ask follows, it is the purpose. */
  wish: boolean;
  /** The clause says why or when ("so I can …", "before the upgrade"). */
  reason: boolean;
  /** The clause is a question about state ("is vm 101 running?"). */
  question: boolean;
  /** Where the clause's third party ends ("our CFO | wants …"): who wants what the clause asks, the subject a pronoun points at. */
  party: number | undefined;
}

export interface Ask {
  /** How the ask's clause opens (positions in the whole request). */
  opening: Opening;
  /** Token positions of the clauses that only give context. */
  context: ReadonlySet<number>;
  /** Of those, the positions of clauses that say why or when ("so …", "before …"), not what happened. */
  reasons: ReadonlySet<number>;
  /** Where the ask's clause starts: an action word there hints its method. */
  start: number;
  /** The ask is written as bare keywords ("user token revoke bob@pve"): an action word anywhere in it is the act. */
  keywords: boolean;
  /**
   * The ask names a guest or node of its own ("…, power down pve2 (guests already migrated)"): a
   * guest or node the context names is then not where it acts, only context.
   */
  scoped: boolean;
  clauses: readonly Clause[];
}

/**
 * The ask of a request, from its tokens and the token positions where its punctuated parts end.
 * A request of one plain clause is its own ask, read as before. `isAct`: the vocabulary knows the
 * word as an action.
 */
export function findAsk(tokens: readonly string[], stems: readonly string[], ends: readonly number[], isAct: (word: string) => boolean = () => false): Ask {
  const clauses = splitClauses(tokens, ends).map((c) => classify(c, tokens, stems, ends.includes(c.end) && c.end < tokens.length, isAct));
  // "vm 140 is frozen, console black, acpi does nothing. force it off": a fragment between two
  // statements goes on telling.
  for (const [k, c] of clauses.entries()) if (c.role === 'plain' && clauses[k - 1]?.role === 'context' && clauses[k + 1]?.role === 'context') c.role = 'context';
  const asks = clauses.filter((c) => c.role === 'ask');
  // "I need to take pve2 down, how do I move everything off it": the wish is why; the later ask is
  // what. So is a question before another ask ("what's wrong with vm 101? show me its tasks").
  for (const [k, c] of clauses.entries()) if ((c.wish || c.question) && c.role === 'ask' && clauses.slice(k + 1).some((d) => d.role === 'ask')) c.role = 'context';
  const asking = clauses.filter((c) => c.role !== 'context');
  const chosen = clauses.filter((c) => c.role === 'ask').at(-1) ?? (asks.length === 0 && asking.length < clauses.length ? asking[0] : undefined);
  // "the gitlab token leaked, kill it": a pronoun in the ask stands for what the context told of.
  // Not a pronoun that is a subject ("who it was", "whether it is safe"): that one points at nothing told.
  const referred = chosen !== undefined && tokens.slice(chosen.from, chosen.end).some((t, k, words) => ANAPHORS.has(t) && !FINITE.has(words[k + 1] ?? ''));
  const referent = referred ? subjectOf(clauses.filter((c) => c.role === 'context' && !c.reason).at(-1), tokens) : undefined;
  const context = new Set<number>();
  const reasons = new Set<number>();
  if (asking.length > 0)
    for (const c of clauses) {
      if (c.role !== 'context') continue;
      for (let i = c.start; i < c.end; i++) if (!referent?.has(i)) context.add(i);
      if (c.reason) for (let i = c.start; i < c.end; i++) reasons.add(i);
    }
  if (!chosen) {
    const opening = negatedImperative(
      wantedState(lateVerb(mannerFrame(findOpening([...tokens], [...stems]), tokens, stems, 0, tokens.length), tokens, 0, tokens.length), tokens, 0, tokens.length, isAct),
      tokens,
      0,
    );
    return { opening, context, reasons, start: 0, keywords: keywordsOnly(tokens, 0, tokens.length), clauses, scoped: false };
  }
  const opening = given(
    mannerFrame(shift(findOpening(tokens.slice(chosen.from, chosen.end), stems.slice(chosen.from, chosen.end)), chosen.from), tokens, stems, chosen.from, chosen.end),
    chosen,
    tokens,
    isAct,
  );
  return {
    opening: negatedImperative(
      wishedResult(wantedState(lateVerb(opening, tokens, chosen.from, chosen.end), tokens, chosen.from, chosen.end, isAct), tokens, chosen.from, chosen.end, isAct),
      tokens,
      chosen.from,
    ),
    context,
    reasons,
    start: chosen.from,
    keywords: keywordsOnly(tokens, chosen.from, chosen.end),
    clauses,
    scoped: tokens.slice(chosen.from, chosen.end).some(scopes),
  };
}

const GIVE = verbRule('give', 'give') as VerbRule;

/**
 * "vnet app needs a gateway and a dhcp range", "the new hire needs read-only access": a third party
 * wanting a thing, no act named, asks for it to be given (set or added); "our CFO wants a backup"
 * names its act.
 */
function given(opening: Opening, clause: Clause, tokens: readonly string[], isAct: (word: string) => boolean): Opening {
  if (clause.party === undefined || tokens[clause.party + 1] === 'to' || opening.verb || opening.questionMethods || opening.manner) return opening;
  if (opening.firstContent !== undefined && isAct(tokens[opening.firstContent] as string)) return opening;
  return { ...opening, verb: { rule: GIVE, position: clause.party, length: 1 } };
}

/** Cuts the request into clauses at its part ends and at words that open a clause inside a part. */
function splitClauses(tokens: readonly string[], ends: readonly number[]): Array<{ start: number; end: number }> {
  const cuts = new Set<number>([0, ...ends.filter((e) => e < tokens.length)]);
  for (let i = 1; i < tokens.length; i++) if (opensClause(tokens, i)) cuts.add(i);
  const starts = [...cuts].sort((a, b) => a - b);
  return starts.map((s, k) => ({ start: s, end: starts[k + 1] ?? tokens.length })).filter((c) => c.end > c.start);
}

/** A clause starts at `i` inside a part: a reason or time, a joined new subject, or a question or wish. */
function opensClause(tokens: readonly string[], i: number): boolean {
  const t = tokens[i] as string;
  const next = tokens[i + 1] ?? '';
  if (SUBORDINATORS.has(t)) return !timeAdverbial(tokens, i);
  // "dns server of pve1 i want change to 1.1.1.1": the topic first, then the wish about it.
  const before = tokens[i - 1] ?? '';
  if (SUBJECTS.has(t) && t !== 'it' && WANTS.has(next) && !JOINERS.has(before) && !isNoise(before) && !isStateQuestion(before) && !isNeutralOpener(before)) return true;
  if (JOINERS.has(t)) return SUBJECTS.has(next) || next === 'then' || next === 'please' || next === 'how' || opensQuestion(tokens, i + 1);
  return t === 'how' && isMannerModal(next);
}

/** "can I …", "could you …", "is there a way …": a question opening inside a part. */
function opensQuestion(tokens: readonly string[], i: number): boolean {
  const t = tokens[i];
  const next = tokens[i + 1] ?? '';
  return ((t === 'can' || t === 'could') && (next === 'i' || next === 'we' || next === 'you')) || (t === 'is' && next === 'there');
}

/**
 * What a clause does. `punctuated`: a comma or a period ends it and more follows, so a reason or
 * time that opens the request ("after the kernel update pve3 hangs, …") is one too.
 */
function classify(span: { start: number; end: number }, tokens: readonly string[], stems: readonly string[], punctuated: boolean, isAct: (word: string) => boolean): Clause {
  let from = span.start;
  while (from < span.end - 1 && (JOINERS.has(tokens[from] as string) || tokens[from] === 'please')) from += 1;
  // "…, so first I'd like to see …", "we had a scare, so set up a nightly backup": a "so" that
  // leads to a wish, a question or an imperative is no reason.
  if (tokens[from] === 'so') {
    let k = from + 1;
    while (SO_FILLERS.has(tokens[k] ?? '') || timeAdverbial(tokens, k)) k += timeAdverbial(tokens, k) ? 2 : 1;
    const next = tokens[k] ?? '';
    const imperative = verbRule(next, stems[k] ?? next) !== undefined || phrasalVerbRule(next, tokens[k + 1]) !== undefined || isAct(next);
    if (wishes(tokens, k) || ASK_OPENERS.has(next) || imperative) from = k;
  }
  // "our CFO wants a backup of …", "the new hire needs read-only access": a third party's wish
  // asks for what follows it; who wants it is context.
  const wanted = thirdPartyWish(tokens, from, span.end);
  const party = wanted?.party;
  if (wanted) from = wanted.from;
  const words = tokens.slice(from, span.end);
  const first = words[0] ?? '';
  const clause = { ...span, from, wish: party !== undefined, reason: false, question: false, party };
  // "if vm 101 is stopped, start it": a condition before a comma is context too.
  if (((span.start > 0 || punctuated) && SUBORDINATORS.has(first)) || (punctuated && first === 'if')) return { ...clause, role: 'context', reason: true };
  const wish = party !== undefined || wishes(tokens, from);
  // "we are running out of space": a subject and a finite verb state; "are" does not ask here.
  // So does a form of "be" before a place, its subject left out ("…, is on storage nas").
  if ((SUBJECTS.has(first) && FINITE.has(words[1] ?? '') && !wish) || (BE_FORMS.has(first) && PLACES.has(words[1] ?? ''))) return { ...clause, role: 'context' };
  const opening = findOpening(words, stems.slice(from, span.end));
  // "…, what's the call?": a question that names nothing asks nothing of its own.
  const names = words.some((w) => !isNoise(w) && !isStateQuestion(w) && !isNeutralOpener(w));
  const telling = (SUBJECTS.has(first) && first !== 'it') || words.some((w, j) => j > 0 && (FINITE.has(w) || pastTense(w, words[j + 1])));
  // "…, start it": an action word of the vocabulary opening a clause that tells nothing is an imperative too.
  const acting = opening.firstContent !== undefined && isAct(words[opening.firstContent] as string) && !(words[opening.firstContent] as string).endsWith('s') && !telling;
  if (names && (wish || acting || opening.verb || opening.questionMethods || opening.manner)) return { ...clause, role: 'ask', wish, question: opening.questionMethods !== undefined };
  return { ...clause, role: telling ? 'context' : 'plain' };
}

/**
 * "the gitlab token leaked, kill it": what a pronoun in the ask points at is the subject of the
 * last statement, the words before its verb; they are the ask's object, not context.
 */
function subjectOf(clause: Clause | undefined, tokens: readonly string[]): Set<number> | undefined {
  if (!clause) return undefined;
  const subject = new Set<number>();
  if (clause.party !== undefined) {
    for (let i = clause.start; i < clause.party; i++) subject.add(i);
    return subject;
  }
  for (let i = clause.from; i < clause.end; i++) {
    const t = tokens[i] as string;
    if (FINITE.has(t) || pastTense(t, tokens[i + 1]) || SUBJECTS.has(t)) break;
    subject.add(i);
  }
  return subject;
}

/** A third party's words of wanting ("the team needs …", "our CFO wants …"). */
const THIRD_PARTY_WANTS = new Set(['wants', 'needs', 'requires']);
/** Words before a noun: "the needs of …" is no wish. */
const DETERMINERS = new Set(['the', 'a', 'an', 'its', 'their', 'our', 'my', 'your', 'his', 'her', 'whose']);
/** How far into a clause a third party's wish may come ("the new database admin wants …"). */
const PARTY_MAX_WORDS = 5;

/**
 * Where what a third party wants starts ("our CFO wants | a backup of vm 160"), if the clause opens
 * with one: a subject of a few words, not a pronoun or a question word, then "wants", "needs" or
 * "requires" (not a passive: "vm 101 needs to be stopped" is an act asked for, acts.ts).
 */
function thirdPartyWish(tokens: readonly string[], from: number, end: number): { party: number; from: number } | undefined {
  const first = tokens[from] ?? '';
  if (SUBJECTS.has(first) || isStateQuestion(first) || first === 'how') return undefined;
  for (let k = from + 1; k < Math.min(end - 1, from + PARTY_MAX_WORDS + 1); k++) {
    const t = tokens[k] as string;
    if (FINITE.has(t) || JOINERS.has(t)) return undefined;
    if (!THIRD_PARTY_WANTS.has(t)) continue;
    if (DETERMINERS.has(tokens[k - 1] ?? '') || (tokens[k + 1] === 'to' && tokens[k + 2] === 'be')) return undefined;
    const start = tokens[k + 1] === 'to' ? k + 2 : k + 1;
    return start < end ? { party: k, from: start } : undefined;
  }
  return undefined;
}

/** "before that I need …", "after this we …": a time said of the clause, not a clause of its own. */
function timeAdverbial(tokens: readonly string[], i: number): boolean {
  return SUBORDINATORS.has(tokens[i] ?? '') && DEMONSTRATIVES.has(tokens[i + 1] ?? '') && SUBJECTS.has(tokens[i + 2] ?? '');
}

const DEMONSTRATIVES = new Set(['that', 'this', 'then']);
/** Forms of "be" that, with their subject left out, state where something is. */
const BE_FORMS = new Set(['is', 'are', 'was', 'were']);
const PLACES = new Set(['on', 'in', 'at', 'under', 'inside']);

/** "I need …", "we want …", "I'd like …", "we have to …" (not "I have a container …"). */
function wishes(tokens: readonly string[], at: number): boolean {
  let k = at + 1;
  // "I'm trying to …", "I just want …", "we really need …".
  while (BE.has(tokens[k] ?? '') || ADVERBS.has(tokens[k] ?? '')) k += 1;
  const want = tokens[k] ?? '';
  return SUBJECTS.has(tokens[at] ?? '') && WANTS.has(want) && (want !== 'have' || tokens[k + 1] === 'to');
}

const ADVERBS = new Set(['just', 'really', 'also', 'only', 'still', 'actually', 'basically', 'now']);

const BE = new Set(['m', 'am', 're', 'are', 'was', 'were']);

/** Words between "so" and what it leads to ("so first …", "so basically …"). */
const SO_FILLERS = new Set(['first', 'now', 'then', 'next', 'basically', 'just', 'actually', 'really', 'anyway', 'yeah']);
/** Words that open a request of the operator's own ("please …", "can you …", "how do I …"). */
const ASK_OPENERS = new Set(['please', 'can', 'could', 'how']);

/** "leaked", "deleted", "changed": a past tense tells what happened (a generic verb's participle is left to the opening). */
function pastTense(word: string, next: string | undefined): boolean {
  return word.endsWith('ed') && word.length > 4 && !isNoise(word) && verbRule(word, word) === undefined && phrasalVerbRule(word, next) === undefined;
}

/**
 * Weighs down (in place) the concepts named only in the context (`spans`: the token spans each
 * concept was read from): "freeze vm 130's disks so I can snapshot" acts on the disks, not on a
 * snapshot; "the backup failed, show me the log" reads a log. A guest or node a statement names
 * stays: it is where the ask acts.
 */
export function weighContext(concepts: Concept[], spans: ReadonlyArray<ReadonlyArray<readonly [number, number]>>, ask: Pick<Ask, 'context' | 'reasons' | 'scoped'>): void {
  if (ask.context.size === 0) return;
  const within = (set: ReadonlySet<number>, [from, to]: readonly [number, number]) => {
    for (let i = from; i < to; i++) if (!set.has(i)) return false;
    return true;
  };
  for (const [k, c] of concepts.entries()) {
    const read = spans[k] ?? [];
    if (read.length === 0 || !read.every((span) => within(ask.context, span))) continue;
    if (!ask.scoped && c.source.split(' ').every(scopes) && !read.some((span) => within(ask.reasons, span))) concepts[k] = { ...c, context: 'kept' };
    else concepts[k] = { ...c, weight: c.weight * CONTEXT_WEIGHT, context: 'weighed' };
  }
}
