/**
 * Typos in a request ("snpashot", "strat vm 101", "delte the pool", "tsak log") corrected to the
 * word the search knows, before the request is parsed: the verb table and the phrase rules match
 * whole words, and the index's own fuzzy match covers only long index terms, so a misspelt verb or
 * a short misspelt noun found nothing (or the wrong thing) before.
 *
 * A word is left alone when it is known — to the index, the phrase rules, the verb table, as a
 * stopword, or as one of the most frequent English words (english-words.ts: "alice", "stuck" and
 * "fine" are words, not typos of "alive", "stick" and "file") — or when it is short (three letters and fewer are ids, units and abbreviations more
 * often than typos), is part of a name (`net0`, `local-lvm`, `dave@pve`), or no known word is close enough. Close means one edit for
 * words of up to seven letters and two for longer ones (Damerau–Levenshtein: a swap of neighbours
 * is one edit), the first letter kept or swapped with the second: typing slips rarely change the
 * first letter, and requiring it keeps real words the vocabulary lacks ("kill", "nuke") from being
 * turned into known ones that look alike. Among several close words the one most of the schema's
 * text uses wins; a tie between equally frequent words is left uncorrected.
 */
import { isNoise, stem, tokenize } from './analyzer.js';
import { NODE_COMMANDS } from './cli-commands.js';
import { ENGLISH_WORDS } from './english-words.js';
import { SYNONYM_RULES } from './synonyms.js';
import { VERB_RULES } from './verbs.js';

/**
 * A word on its own: letters joined to digits, dashes, dots, `@`, `/` or `_` make a name
 * (`net0`, `local-lvm`, `dave@pve`, `corp.example.com`), which is never corrected.
 */
const WORD = /(?<![\w.@/-])[A-Za-z]+(?![\w.@/-])/g;
/** Words shorter than this are never corrected. */
const MIN_LENGTH = 4;
/** Words at least this long may be two edits away from the known word. */
const TWO_EDITS_FROM = 8;
/** Corrections remembered, at most: a long-running server meets ever new words. */
const CORRECTION_CACHE_LIMIT = 4096;

export class Speller {
  /** Known words by first letter, with how often the schema's text uses them (phrase and verb words count as common). */
  private readonly byInitial = new Map<string, Map<string, number>>();
  private readonly corrections = new Map<string, string | null>();

  constructor(private readonly known: ReadonlyMap<string, number>) {
    for (const [word, count] of known) {
      const initial = word[0] as string;
      let bucket = this.byInitial.get(initial);
      if (!bucket) this.byInitial.set(initial, (bucket = new Map()));
      bucket.set(word, count);
    }
  }

  /** The request with each correctable typo replaced by the known word; the rest of the text unchanged. */
  correct(text: string): string {
    return text.replace(WORD, (word) => this.correction(word.toLowerCase()) ?? word);
  }

  private correction(word: string): string | undefined {
    if (word.length < MIN_LENGTH || this.isKnown(word)) return undefined;
    let found = this.corrections.get(word);
    if (found === undefined) {
      found = this.closest(word);
      if (this.corrections.size >= CORRECTION_CACHE_LIMIT) this.corrections.clear();
      this.corrections.set(word, found);
    }
    return found ?? undefined;
  }

  private isKnown(word: string): boolean {
    return isNoise(word) || this.known.has(word) || this.known.has(stem(word)) || ENGLISH_WORDS.includes(` ${word} `);
  }

  private closest(word: string): string | null {
    const limit = word.length >= TWO_EDITS_FROM ? 2 : 1;
    let best: string | null = null;
    let bestCount = -1;
    let tied = false;
    const initials = new Set([word[0] as string, word[1] as string]);
    for (const initial of initials) {
      for (const [candidate, count] of this.byInitial.get(initial) ?? []) {
        if (Math.abs(candidate.length - word.length) > limit || candidate.length < MIN_LENGTH) continue;
        // A candidate starting with the word's second letter must be the first two letters swapped.
        if (initial !== word[0] && candidate[1] !== word[0]) continue;
        if (editDistance(word, candidate, limit) > limit) continue;
        if (count > bestCount) {
          best = candidate;
          bestCount = count;
          tied = false;
        } else if (count === bestCount) {
          tied = true;
        }
      }
    }
    return tied ? null : best;
  }
}

/** Phrase and verb words are what requests are made of: they outrank words only the schema's text uses. */
const VOCABULARY_WORD_COUNT = 1_000_000;

/**
 * The words a request may use that the search understands, with their weight for choosing among
 * close ones: the indexed text's words (the ranker's `indexedWords`) and the phrase, verb and
 * command words.
 */
export function searchVocabulary(indexedWords: ReadonlyMap<string, number>): Map<string, number> {
  const known = new Map(indexedWords);
  const add = (word: string, count: number): void => {
    known.set(word, (known.get(word) ?? 0) + count);
  };
  for (const rule of SYNONYM_RULES) {
    for (const phrase of [...rule.triggers, ...Object.keys(rule.terms)]) for (const word of tokenize(phrase)) add(word, VOCABULARY_WORD_COUNT);
  }
  for (const rule of VERB_RULES) for (const phrase of rule.words) for (const word of tokenize(phrase)) add(word, VOCABULARY_WORD_COUNT);
  // Node commands ("pvesm status", "pct enter") are names, not typos of index words.
  for (const [command] of NODE_COMMANDS) for (const word of tokenize(command)) add(word, VOCABULARY_WORD_COUNT);
  return known;
}

/** Optimal-string-alignment distance, stopped early once every path exceeds `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (previous2[j - 2] as number) + 1);
      row.push(d);
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return rowMin;
    previous2 = previous;
    previous = row;
  }
  return previous[b.length] as number;
}
