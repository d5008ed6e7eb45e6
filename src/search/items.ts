/**
 * One thing named by its name or number: "the PVEAuditor role", "group admins", "rule 3", "the dev
 * pool". The request is about that item, so the listing of its kind (`GET /access/roles`) answers
 * it less well than the operations on one item (`GET /access/roles/{roleid}`).
 */
import { isNoise, stem } from './analyzer.js';
import { GUEST_WORDS, ONE_OF } from './roles.js';
import type { CompiledSynonym } from './synonym-compile.js';
import { verbRule } from './verbs.js';

const DEMONSTRATIVES = new Set(['this', 'that']);

/** Index terms of a kind of thing, from the word itself and the rule it triggers (terms this strong stand for it). */
const KIND_TERM_MIN = 0.6;

/**
 * Terms of the kinds the request names one item of: a known noun right before a word neither the
 * vocabulary nor the schema knows (or a number), or right after one that follows an article.
 * `keywords`: the request is bare keywords (ask.ts), where a name needs no spelling of its own.
 */
export function namedItemKinds(
  tokens: readonly string[],
  stems: readonly string[],
  synonyms: ReadonlyMap<string, CompiledSynonym[]>,
  identifiers: ((term: string) => boolean) | undefined,
  keywords = false,
): Set<string> {
  const known = (i: number) => synonyms.has(stems[i] as string) || identifiers?.(stems[i] as string) === true;
  const word = (i: number) => {
    const t = tokens[i];
    return t !== undefined && !isNoise(t) && verbRule(t, stems[i] as string) === undefined && /^[a-z0-9][\w.-]*$/.test(t);
  };
  // An unknown word is a name where names go: last, or spelled like one (digits, dashes, dots); in
  // a request of bare keywords ("pool staging delete") anywhere after its kind.
  const spelledAsName = (i: number) => keywords || /[0-9_.-]/.test(tokens[i] as string) || i === tokens.length - 1;
  const name = (i: number) => word(i) && ((!known(i) && spelledAsName(i)) || /^[0-9][\w.-]*$/.test(tokens[i] as string));
  const nameAfterArticle = (i: number) => word(i) && !known(i) && ONE_OF.has(tokens[i - 1] ?? '');
  // "that task", "this snapshot": a demonstrative points at one item the operator has in mind, of
  // a kind one of the (at most two) known words after it names.
  const pointedAt = (i: number) => {
    const start = tokens.findLastIndex((t, j) => j < i && DEMONSTRATIVES.has(t));
    return start !== -1 && i - start <= 2 && tokens.slice(start + 1, i + 1).every((_, k) => word(start + 1 + k) && known(start + 1 + k));
  };
  const kinds = new Set<string>();
  tokens.forEach((token, i) => {
    if (!word(i) || !known(i) || /^[0-9]/.test(token) || GUEST_WORDS.has(token)) return;
    if (!name(i + 1) && !nameAfterArticle(i - 1) && !pointedAt(i)) return;
    kinds.add(stems[i] as string);
    for (const rule of synonyms.get(stems[i] as string) ?? []) {
      if (rule.tokens.length !== 1) continue;
      for (const [term, weight] of rule.terms) if (weight >= KIND_TERM_MIN) kinds.add(term);
    }
  });
  return kinds;
}

/** A word spelled as a name (`backup-nas`, `pre-upgrade`, `daily-1`), not inside a path, address or file name. */
const SPELLED_NAME = /(?<![\w/@.:-])[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+(?![\w/@:-]|\.[a-z0-9])/gi;
/** What stands in for such a name: a number, which names an item (namedItemKinds) and is no search term. */
const NAME_STAND_IN = ' 1 ';

/**
 * "disable storage backup-nas", "roll back to snapshot pre-upgrade": a name spelled with dashes or
 * dots after a known noun, or before one in a definite phrase ("the nfs-backup storage"), names one
 * item of that kind, and its parts ("backup", "upgrade") are not what the request is about. The
 * name gives way to a stand-in; the noun stays.
 */
export function nameSpelledItems(text: string, synonyms: ReadonlyMap<string, unknown>, identifiers: ((term: string) => boolean) | undefined): string {
  const knownNoun = (w: string) => synonyms.has(stem(w)) || identifiers?.(stem(w)) === true;
  return text.replace(SPELLED_NAME, (name, at: number) => {
    const before = /([a-z]+)\s+$/i.exec(text.slice(0, at))?.[1];
    const after = /^\s+([a-z]+)/i.exec(text.slice(at + name.length))?.[1];
    const noun = (w: string | undefined) =>
      w !== undefined && !isNoise(w.toLowerCase()) && !GUEST_WORDS.has(w.toLowerCase()) && verbRule(w.toLowerCase(), stem(w.toLowerCase())) === undefined && knownNoun(w.toLowerCase());
    // Before its noun without an article it is an adjective ("datacenter-wide default").
    return noun(before) || (ONE_OF.has(before?.toLowerCase() ?? '') && noun(after)) ? NAME_STAND_IN : name;
  });
}
