import { encode } from 'gpt-tokenizer';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from '../../src/schema/loader.js';
import type { ApiModel } from '../../src/schema/model.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, OFFICIAL_VERSIONS, hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { ApiSearch } from '../../src/search/engine.js';
import { LINE_TOKEN_BUDGET, formatHit } from '../../src/search/hit.js';
import { readQuerySet, recallAt, type QueryCase } from '../../bench/search-queries.js';

const querySet = readQuerySet();

const RECALL_AT_5 = 0.95;
const RECALL_AT_1 = 0.75;

if (!hasOfficialSchema('9.1')) console.warn(`search recall tests skipped: ${OFFICIAL_SCHEMA_SKIP_MESSAGE}`);

describe.skipIf(!hasOfficialSchema('9.1'))('search_api on the official PVE 9.1 schema', () => {
  let model: ApiModel;
  let search: ApiSearch;
  beforeAll(async () => {
    model = await loadSchemaFromFile(officialSchemaFile('9.1'));
    search = new ApiSearch(model);
  });

  it('query set: at least 80 queries, and every expected key is a real 9.1 operation', () => {
    expect(querySet.queries.length).toBeGreaterThanOrEqual(80);
    expect(querySet.questionHoldout3.length).toBeGreaterThanOrEqual(60);
    expect(querySet.questionHoldout4.length).toBeGreaterThanOrEqual(80);
    expect(querySet.questionHoldout5.length).toBeGreaterThanOrEqual(150);
    expect(querySet.questionHoldout6.length).toBeGreaterThanOrEqual(150);
    const everySet = [
      querySet.queries,
      querySet.holdout,
      querySet.questions,
      querySet.questionHoldout,
      querySet.questionHoldout2,
      querySet.questionHoldout3,
      querySet.questionHoldout4,
      querySet.questionHoldout5,
      querySet.questionHoldout6,
    ];
    const unknown = everySet.flat().flatMap((q: QueryCase) => q.expect.filter((key) => !model.operations.some((op) => op.key === key)));
    expect(unknown).toEqual([]);
  });

  it('the fourth holdout repeats no question of the other sets', () => {
    const others = new Set(
      [querySet.queries, querySet.holdout, querySet.questions, querySet.questionHoldout, querySet.questionHoldout2, querySet.questionHoldout3].flat().map((q) => q.query.toLowerCase()),
    );
    expect(querySet.questionHoldout4.filter((q) => others.has(q.query.toLowerCase())).map((q) => q.query)).toEqual([]);
  });

  it('the fifth holdout repeats no question of the other sets', () => {
    const others = new Set(
      [querySet.queries, querySet.holdout, querySet.questions, querySet.questionHoldout, querySet.questionHoldout2, querySet.questionHoldout3, querySet.questionHoldout4]
        .flat()
        .map((q) => q.query.toLowerCase()),
    );
    expect(querySet.questionHoldout5.filter((q) => others.has(q.query.toLowerCase())).map((q) => q.query)).toEqual([]);
  });

  it('the sixth holdout repeats no question of the other sets', () => {
    const others = new Set(
      [querySet.queries, querySet.holdout, querySet.questions, querySet.questionHoldout, querySet.questionHoldout2, querySet.questionHoldout3, querySet.questionHoldout4, querySet.questionHoldout5]
        .flat()
        .map((q) => q.query.toLowerCase()),
    );
    expect(querySet.questionHoldout6.filter((q) => others.has(q.query.toLowerCase())).map((q) => q.query)).toEqual([]);
  });

  it(`reaches recall@5 >= ${RECALL_AT_5} and recall@1 >= ${RECALL_AT_1} on the query set`, () => {
    const result = recallAt(search, querySet.queries);
    const misses = result.cases.filter((c) => c.rank === undefined || c.rank > 5).map((c) => c.query);
    expect(result.recall5, `not in the top 5: ${misses.join(' | ')}`).toBeGreaterThanOrEqual(RECALL_AT_5);
    expect(result.recall1).toBeGreaterThanOrEqual(RECALL_AT_1);
  });

  it('method, risk and path-prefix filters only return matching operations', () => {
    const deletes = search.search('snapshot', { method: 'DELETE', limit: 20 });
    expect(deletes.map((h) => h.key).sort()).toEqual(['DELETE /nodes/{node}/lxc/{vmid}/snapshot/{snapname}', 'DELETE /nodes/{node}/qemu/{vmid}/snapshot/{snapname}']);
    const destructive = search.search('vm', { risk: 'destructive', limit: 50 });
    expect(destructive.length).toBeGreaterThan(3);
    expect(destructive.every((h) => h.risk === 'destructive')).toBe(true);
    const lxc = search.search('start', { pathPrefix: '/nodes/{node}/lxc' });
    expect(lxc[0]?.key).toBe('POST /nodes/{node}/lxc/{vmid}/status/start');
    expect(lxc.every((h) => h.path === '/nodes/{node}/lxc' || h.path.startsWith('/nodes/{node}/lxc/'))).toBe(true);
    const readsUnderAccess = search.search('users', { method: 'GET', risk: 'read', pathPrefix: '/access' });
    expect(readsUnderAccess[0]?.key).toBe('GET /access/users');
    expect(readsUnderAccess.every((h) => h.method === 'GET' && h.risk === 'read' && h.path.startsWith('/access/'))).toBe(true);
  });
});

describe.skipIf(!OFFICIAL_VERSIONS.some(hasOfficialSchema))('search hit lines on the official schemas', () => {
  for (const version of OFFICIAL_VERSIONS) {
    it.skipIf(!hasOfficialSchema(version))(`every ${version} operation renders as one line within ${LINE_TOKEN_BUDGET} tokens`, async () => {
      const model = await loadSchemaFromFile(officialSchemaFile(version));
      const over = model.operations
        .map((op) => formatHit({ key: op.key, method: op.method, path: op.path, summary: op.summary, risk: op.risk, score: 1 }))
        .filter((line) => line.includes('\n') || encode(line).length > LINE_TOKEN_BUDGET);
      expect(over).toEqual([]);
    });
  }
});
