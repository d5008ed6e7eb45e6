/**
 * The vocabulary's phrases found in a request: "freeze the filesystems" is the phrase "freeze
 * filesystem", whose rule says what it searches and which methods it hints.
 */
import type { CompiledSynonym } from './synonym-compile.js';

export function opensLongerPhrase(stems: string[], i: number, synonyms: ReadonlyMap<string, CompiledSynonym[]>): boolean {
  const phrase = matchPhrase(stems, i, synonyms, undefined);
  return phrase !== undefined && phrase.span > 1;
}

export function matchPhrase(stems: string[], start: number, synonyms: ReadonlyMap<string, CompiledSynonym[]>, verbPosition: number | undefined): Phrase | undefined {
  const candidates = synonyms.get(stems[start] as string);
  if (!candidates) return undefined;
  for (const candidate of candidates) {
    const span = phraseSpan(stems, start, candidate.tokens);
    if (span === undefined) continue;
    if (verbPosition !== undefined && verbPosition >= start && verbPosition < start + span) continue;
    return { ...candidate, span };
  }
  return undefined;
}

/**
 * Articles and possessives between a phrase's words do not break it: "freeze the filesystems" is
 * "freeze filesystem", "restore the file" is "restore file". The number of query words the phrase
 * covers, or undefined when it does not match at `start`.
 */
function phraseSpan(stems: string[], start: number, words: readonly string[]): number | undefined {
  let j = start;
  for (let k = 0; k < words.length; k++) {
    while (k > 0 && stems[j] !== words[k] && INSIDE_PHRASE.has(stems[j] as string)) j += 1;
    if (stems[j] !== words[k]) return undefined;
    j += 1;
  }
  return j - start;
}

/** Words that may sit between a phrase's words without changing it. */
const INSIDE_PHRASE = new Set(['the', 'a', 'an', 'its', 'their', 'my', 'our', 'your', 'his', 'her', 'this', 'that', 'these', 'those']);

export type Phrase = CompiledSynonym & { span: number };
