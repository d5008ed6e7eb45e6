/**
 * The search_api query set (bench/search-queries.json) and recall@k over it. Shared by the `schema`
 * benchmark and the recall test so both measure the same thing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ApiSearch } from '../src/search/engine.js';
import { repoRoot } from './lib/repo.js';

const OperationKeySchema = z.string().regex(/^(GET|POST|PUT|DELETE) \/\S*$/, 'an operation key such as "GET /nodes/{node}/qemu"');

const QueryCaseSchema = z
  .object({
    query: z.string().min(1),
    /** One key, or every key that answers the query equally well. */
    expect: z.union([OperationKeySchema, z.array(OperationKeySchema).min(1)]),
  })
  .transform((c) => ({ query: c.query, expect: Array.isArray(c.expect) ? c.expect : [c.expect] }));

const QuerySetSchema = z.object({
  schema: z.string(),
  queries: z.array(QueryCaseSchema).min(1),
  /** Written after the first tuning round, reported separately: shows whether the vocabulary generalizes. */
  holdout: z.array(QueryCaseSchema).default([]),
  /** Operator questions ("which node has the most free memory") tuned on, measured on 9.1 and on the demo's own schema. */
  questions: z.array(QueryCaseSchema).default([]),
  /** Questions written before the question rules and never tuned on. */
  questionHoldout: z.array(QueryCaseSchema).default([]),
  /** A second held-out set of questions, written in round 3 before that round's ranking changes and never tuned on. */
  questionHoldout2: z.array(QueryCaseSchema).default([]),
  /** A third held-out set, written in round 4 before that round's ranking changes and never tuned on: the honest figure. */
  questionHoldout3: z.array(QueryCaseSchema).default([]),
  /** A fourth held-out set, written in round 5 before that round's ranking changes and never tuned on: the honest figure. */
  questionHoldout4: z.array(QueryCaseSchema).default([]),
  /** A fifth held-out set, written in round 6 before that round's ranking changes and never tuned on: the honest figure. */
  questionHoldout5: z.array(QueryCaseSchema).default([]),
  /** A sixth held-out set, written in round 7 before that round's ranking changes in styles unlike the earlier sets, never tuned on: the honest figure. */
  questionHoldout6: z.array(QueryCaseSchema).default([]),
  /** A seventh, written blind by someone who never read the search code (session 12); tuned on after round 8 merged. */
  questionHoldout7: z.array(QueryCaseSchema).default([]),
  /** An eighth, written blind the same way during round 8 and never tuned on: the honest figure. */
  questionHoldout8: z.array(QueryCaseSchema).default([]),
  /** A ninth, written blind during round 10 (session 13); measured blind, then tuned on (the common names). */
  questionHoldout9: z.array(QueryCaseSchema).default([]),
  /** A tenth, written blind after the common names and never tuned on: round 10's honest figure. */
  questionHoldout10: z.array(QueryCaseSchema).default([]),
});

export type QueryCase = z.output<typeof QueryCaseSchema>;
export type QuerySet = z.output<typeof QuerySetSchema>;

export const QUERY_SET_FILE = 'bench/search-queries.json';

export function readQuerySet(): QuerySet {
  const path = join(repoRoot(), QUERY_SET_FILE);
  const parsed = QuerySetSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path} is not a valid query set: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

export interface RecallResult {
  recall1: number;
  recall5: number;
  /** 1-based rank of the first expected key within the top 5, undefined when absent. */
  cases: Array<{ query: string; rank: number | undefined }>;
}

const RECALL_DEPTH = 5;

export function recallAt(search: ApiSearch, cases: readonly QueryCase[]): RecallResult {
  let at1 = 0;
  let at5 = 0;
  const results = cases.map((c) => {
    const hits = search.search(c.query, { limit: RECALL_DEPTH });
    const index = hits.findIndex((h) => c.expect.includes(h.key));
    const rank = index === -1 ? undefined : index + 1;
    if (rank === 1) at1 += 1;
    if (rank !== undefined) at5 += 1;
    return { query: c.query, rank };
  });
  return { recall1: at1 / cases.length, recall5: at5 / cases.length, cases: results };
}

/**
 * The cases a schema can answer: expected keys it lacks are dropped, and a case with none left is
 * left out (the demo simulator's own schema has no Ceph pool writes, for instance).
 */
export function casesFor(keys: ReadonlySet<string>, cases: readonly QueryCase[]): QueryCase[] {
  return cases.flatMap((c) => {
    const expect = c.expect.filter((k) => keys.has(k));
    return expect.length > 0 ? [{ query: c.query, expect }] : [];
  });
}
