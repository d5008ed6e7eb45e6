/**
 * Words the vocabulary does not know, read through the known words nearest to them in meaning
 * ("purge" → wipe, destroy; "processor" → cpu): a request in words no rule was written for still
 * reaches the operations its neighbours name, at a discount.
 *
 * The neighbours come from neighbours-table.ts, generated offline from GloVe-derived word vectors
 * by bench/search-neighbours-build.ts (provenance and licence in its header). The table is parsed
 * on the first request that has a word it could answer, not when the server starts.
 */
import type { HttpMethod } from '../schema/model.js';
import { stem } from './analyzer.js';
import { NEIGHBOUR_TABLE } from './neighbours-table.js';
import type { CompiledSynonym } from './synonym-compile.js';
import { verbRule } from './verbs.js';

/** How much a neighbour's terms count, times its similarity: less than the word's own rule would. */
const NEIGHBOUR_WEIGHT = 0.6;

let table: ReadonlyMap<string, ReadonlyArray<[string, number]>> | undefined;

/** The known words nearest to an unknown stem, with their cosine similarity (0..1), nearest first. */
export function neighboursOf(stemmed: string): ReadonlyArray<[string, number]> {
  table ??= parseTable(NEIGHBOUR_TABLE);
  return table.get(stemmed) ?? [];
}

function parseTable(text: string): Map<string, Array<[string, number]>> {
  const map = new Map<string, Array<[string, number]>>();
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    if (space <= 0) continue;
    const near = line
      .slice(space + 1)
      .split(',')
      .map((pair): [string, number] => {
        const [word = '', similarity = '0'] = pair.split(':');
        return [word, Number(similarity) / 100];
      });
    map.set(line.slice(0, space), near);
  }
  return map;
}

/**
 * The synonym table, answering also for words it has no rule for: such a word, when the schema
 * does not use it either, stands for what its neighbours stand for (their rule's terms, a verb's
 * terms and method, or the identifier itself), each weighted by its similarity.
 */
export class NeighbourSynonyms extends Map<string, CompiledSynonym[]> {
  private readonly derived = new Map<string, CompiledSynonym[] | undefined>();

  constructor(
    private readonly rules: ReadonlyMap<string, CompiledSynonym[]>,
    private readonly identifier: (term: string) => boolean,
  ) {
    super(rules);
  }

  override get(key: string): CompiledSynonym[] | undefined {
    return super.get(key) ?? this.neighbourRule(key);
  }

  override has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  private neighbourRule(key: string): CompiledSynonym[] | undefined {
    if (this.derived.has(key)) return this.derived.get(key);
    const rule = this.identifier(key) || verbRule(key, key) ? undefined : this.fromNeighbours(key);
    this.derived.set(key, rule);
    return rule;
  }

  private fromNeighbours(key: string): CompiledSynonym[] | undefined {
    const terms = new Map<string, number>();
    let methods: readonly HttpMethod[] | undefined;
    for (const [word, similarity] of neighboursOf(key)) {
      const factor = NEIGHBOUR_WEIGHT * similarity;
      const own = stem(word);
      const rule = this.rules.get(own)?.find((r) => r.tokens.length === 1);
      const verb = verbRule(word, own);
      const meaning: ReadonlyMap<string, number> = rule
        ? rule.terms
        : verb
          ? new Map(Object.entries(verb.terms).map(([w, v]): [string, number] => [stem(w), v]))
          : this.identifier(own)
            ? new Map([[own, 1]])
            : new Map();
      for (const [term, weight] of meaning) terms.set(term, Math.max(terms.get(term) ?? 0, weight * factor));
      methods ??= rule?.methods ?? verb?.methods;
    }
    if (terms.size === 0) return undefined;
    return [{ tokens: [key], terms, weight: 1, ...(methods ? { methods } : {}) }];
  }
}
