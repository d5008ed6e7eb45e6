/**
 * The synonym table (synonyms.ts) compiled for the query parser: triggers and terms stemmed by the
 * same analyzer as the index, keyed by a trigger's first token, longest triggers first.
 */
import type { HttpMethod } from '../schema/model.js';
import { analyze, stem, tokenize } from './analyzer.js';
import { SYNONYM_RULES, type SynonymRule } from './synonyms.js';

/** A compiled rule: the stemmed trigger tokens and the stemmed, weighted terms to search. */
export interface CompiledSynonym {
  tokens: string[];
  terms: Map<string, number>;
  weight: number;
  methods?: readonly HttpMethod[];
  collection?: true;
  ranking?: true;
  placement?: true;
  when?: true;
  recreates?: true;
  pluralTerms?: Map<string, number>;
  stateTerms?: Map<string, number>;
  power?: { terms: Map<string, number>; methods: readonly HttpMethod[] };
}

function compileTerms(words: Readonly<Record<string, number>>): Map<string, number> {
  const terms = new Map<string, number>();
  for (const [word, weight] of Object.entries(words)) {
    for (const term of analyze(word)) terms.set(term, Math.max(terms.get(term) ?? 0, weight));
  }
  return terms;
}

/** Analyze a trigger without dropping stopwords, since they can be part of a phrase ("back up"). */
function triggerTokens(trigger: string): string[] {
  return tokenize(trigger).map(stem);
}

/**
 * Compile the table into a lookup keyed by the first trigger token, longest triggers first, so the
 * query parser can match greedily in one pass.
 */
export function compileSynonyms(rules: readonly SynonymRule[] = SYNONYM_RULES): Map<string, CompiledSynonym[]> {
  const byFirst = new Map<string, CompiledSynonym[]>();
  for (const rule of rules) {
    const terms = compileTerms(rule.terms);
    const pluralTerms = rule.plural ? compileTerms(rule.plural) : undefined;
    const stateTerms = rule.state ? compileTerms(rule.state) : undefined;
    const power = rule.power ? { terms: compileTerms(rule.power.terms), methods: rule.power.methods } : undefined;
    const weight = rule.weight ?? 1;
    for (const trigger of rule.triggers) {
      const tokens = triggerTokens(trigger);
      const first = tokens[0];
      if (first === undefined) continue;
      const list = byFirst.get(first) ?? [];
      list.push({
        tokens,
        terms,
        weight,
        ...(rule.methods ? { methods: rule.methods } : {}),
        ...(rule.collection ? { collection: rule.collection } : {}),
        ...(rule.ranking ? { ranking: rule.ranking } : {}),
        ...(rule.placement ? { placement: rule.placement } : {}),
        ...(rule.when ? { when: rule.when } : {}),
        ...(rule.recreates ? { recreates: rule.recreates } : {}),
        ...(pluralTerms ? { pluralTerms } : {}),
        ...(stateTerms ? { stateTerms } : {}),
        ...(power ? { power } : {}),
      });
      byFirst.set(first, list);
    }
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.tokens.length - a.tokens.length);
  return byFirst;
}
