import { beforeAll, describe, expect, it } from 'vitest';
import { showsEvidence } from './evidence.js';
import { loadSchemaFromFile } from './loader.js';
import type { ApiModel } from './model.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from './official-schemas.js';
import { EGRESS_OPERATIONS } from './risk-egress.js';
import { explainRisk } from './risk.js';

describe('egress operations are privileged as a whole', () => {
  it('classifies creation, update and test of every outbound integration as privileged, and leaves their reads and deletes alone', () => {
    for (const [method, path] of [
      ['POST', '/cluster/notifications/endpoints/webhook'],
      ['PUT', '/cluster/notifications/endpoints/webhook/{name}'],
      ['POST', '/cluster/notifications/endpoints/gotify'],
      ['PUT', '/cluster/notifications/endpoints/smtp/{name}'],
      ['POST', '/cluster/notifications/endpoints/sendmail'],
      ['PUT', '/cluster/notifications/matchers/{name}'],
      ['POST', '/cluster/notifications/targets/{name}/test'],
      ['POST', '/cluster/metrics/server/{id}'],
      ['PUT', '/cluster/metrics/server/{id}'],
      ['POST', '/cluster/sdn/ipams'],
      ['PUT', '/cluster/sdn/dns/{dns}'],
    ] as const) {
      expect(explainRisk({ method, path }), `${method} ${path}`).toMatchObject({ risk: 'privileged' });
    }
    expect(explainRisk({ method: 'GET', path: '/cluster/notifications/endpoints/webhook' }).risk).toBe('read');
    expect(explainRisk({ method: 'DELETE', path: '/cluster/metrics/server/{id}' }).risk).toBe('destructive');
    expect(explainRisk({ method: 'POST', path: '/cluster/notifications/endpoints/webhookx' }).risk).toBe('write');
  });
});

describe.skipIf(!hasOfficialSchema('9.1'))(`egress operations against the PVE 9.1 schema (skipped when absent: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`, () => {
  let model: ApiModel;
  beforeAll(async () => {
    model = await loadSchemaFromFile(officialSchemaFile('9.1'));
  });

  // An entry whose operations are gone, or whose evidence no longer shows, has rotted: this fails.
  for (const entry of EGRESS_OPERATIONS) {
    it(`${entry.id}: decides its operations and shows its evidence`, () => {
      const ops = model.operations.filter((o) => explainRisk(o).source === `rule:${entry.id}`);
      expect(ops.length, `${entry.id} decides no operation`).toBeGreaterThan(0);
      for (const method of entry.methods)
        expect(
          ops.some((o) => o.method === method),
          `${entry.id}: no ${method}`,
        ).toBe(true);
      const evidence = entry.evidence;
      const shown =
        'operation' in evidence ? ops.some((o) => evidence.operation.test(o.description ?? '')) : ops.some((o) => o.params.some((p) => p.name === evidence.param && showsEvidence(p, evidence.shows)));
      expect(shown, `${entry.id}: evidence ${JSON.stringify(evidence, (_, v: unknown) => (v instanceof RegExp ? String(v) : v))} not shown`).toBe(true);
    });
  }
});

describe('docs/risk-classes.md', () => {
  it('lists every egress operation with its evidence', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(new URL('../../docs/risk-classes.md', import.meta.url), 'utf8');
    for (const entry of EGRESS_OPERATIONS) expect(doc, entry.id).toContain(`| \`${entry.id}\` | privileged |`);
  });
});
