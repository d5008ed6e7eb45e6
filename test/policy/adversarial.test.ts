/**
 * The adversarial policy corpus end to end: a real MCP client (the SDK's Client over stdio) drives
 * `serve`, which talks over HTTPS to the simulator serving the official PVE 9.1 schema. Every case
 * runs twice — with the call literal in the source (the preflight sees it) and with the call built
 * at run time (only the live bridge sees it) — and must be contained both times: refused or sent
 * for approval with a message that says why, and the simulator's counters show that the call did
 * not reach it. Every case's harmless twin must reach the simulator, so a policy that refuses
 * everything fails here too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import type { RunAnswer } from '../e2e/helpers/mcp.js';
import { CORPUS as MAIN_CORPUS, CORPUS_POLICIES as MAIN_POLICIES, type CorpusCall, type CorpusCase } from './corpus.js';
import { PATH_RULE_CORPUS, PATH_RULE_POLICIES } from './corpus-path-rules.js';

const CORPUS = [...MAIN_CORPUS, ...PATH_RULE_CORPUS];
const CORPUS_POLICIES = { ...MAIN_POLICIES, ...PATH_RULE_POLICIES };
import { startPolicyEnv, type PolicyEnv } from './helpers/env.js';

let env: PolicyEnv;

beforeAll(async () => {
  env = await startPolicyEnv({ policies: CORPUS_POLICIES, defaultCluster: 'ro', simulator: { schemaFile: officialSchemaFile('9.1') }, name: 'corpus' });
}, 180_000);

afterAll(async () => {
  await env?.close();
});

function opKey(c: CorpusCall): string | undefined {
  return env.sim.model.matchPath(c.method, c.path.replace('/nodes/localhost/', '/nodes/pve1/'))?.operation?.key;
}

function sdk(via: string | undefined): string {
  return via ? `pve.cluster(${JSON.stringify(via)})` : 'pve';
}

/** The script: the call literal in the source, or assembled at run time where no preflight can read it. */
function script(c: CorpusCase | CorpusCase['twin'], form: 'literal' | 'runtime'): string {
  const target = sdk(c.via);
  const lines: string[] = [];
  const setup = 'setup' in c ? c.setup : undefined;
  if (setup) lines.push(`const upid = await ${target}.${setup.method.toLowerCase()}(${JSON.stringify(setup.path)}, ${JSON.stringify(setup.params ?? {})});`);
  const call = c.call;
  if (call === 'waitTask') {
    lines.push(`return await ${target}.waitTask(upid${form === 'runtime' ? ' + ""' : ''});`);
  } else if (form === 'literal') {
    lines.push(`return await ${target}.${call.method.toLowerCase()}(${JSON.stringify(call.path)}, ${JSON.stringify(call.params ?? {})});`);
  } else {
    lines.push(`const c = JSON.parse(${JSON.stringify(JSON.stringify({ m: call.method.toLowerCase(), path: call.path, params: call.params ?? {} }))});`);
    lines.push(`return await (${target} as any)[c.m](c.path, c.params);`);
  }
  return lines.join('\n');
}

function run(cluster: string, code: string): Promise<RunAnswer> {
  return env.run(code, { cluster });
}

/** The reason an answer gives: the refusal's message, or why the planned call needs approval. */
function reasonOf(answer: RunAnswer): string {
  const plan = answer.plan as { writes?: Array<{ why?: string; needsApproval?: boolean }> } | undefined;
  const whys = (plan?.writes ?? []).filter((w) => w.needsApproval).map((w) => w.why ?? '');
  return [answer.error?.message ?? '', ...whys].join('\n');
}

const official = hasOfficialSchema('9.1');

describe.skipIf(!official)('adversarial policy corpus through MCP against the simulator serving PVE 9.1', () => {
  it('has at least 80 cases across every class, each with a harmless twin', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(80);
    const classes = new Set(CORPUS.map((c) => c.class));
    for (const cls of ['hard-stop', 'physical-removal', 'overwrite', 'host-exec', 'credential', 'host-resource', 'data-egress', 'bulk', 'lock-bypass', 'root-only', 'targets', 'path-rules', 'tasks', 'clusters', 'read-only']) {
      expect(classes, cls).toContain(cls);
    }
    expect(new Set(CORPUS.map((c) => c.id)).size).toBe(CORPUS.length);
  });

  for (const c of CORPUS) {
    it(`${c.class} / ${c.id}: contained (${c.expect}) in both forms, its twin runs`, async () => {
      const contained = c.call === 'waitTask' ? `GET /nodes/{node}/tasks/{upid}/status` : opKey(c.call);
      expect(contained, `${c.id}: the call names no operation of the 9.1 schema`).toBeDefined();
      for (const form of ['literal', 'runtime'] as const) {
        const before = env.sim.counters.snapshot();
        const answer = await run(c.cluster, script(c, form));
        const after = env.sim.counters.snapshot();
        const where = `${c.id} (${form}): ${JSON.stringify(answer).slice(0, 600)}`;
        expect(answer.ok, where).toBe(false);
        expect(answer.error?.kind, where).toBe(c.expect);
        expect(reasonOf(answer), where).toMatch(c.why);
        expect((after.byOperation[contained as string] ?? 0) - (before.byOperation[contained as string] ?? 0), `${where}: the call reached the simulator`).toBe(0);
        expect(after.writes - before.writes, `${where}: writes reached the simulator`).toBe(c.setup ? 1 : 0);
      }
      const twinKey = opKey(c.twin.call);
      const before = env.sim.counters.get(twinKey as string);
      const twin = await run(c.twin.cluster ?? c.cluster, script(c.twin, 'literal'));
      const where = `${c.id} twin: ${JSON.stringify(twin).slice(0, 600)}`;
      expect(['denied', 'approval', 'budget', 'invalid']).not.toContain(twin.error?.kind ?? 'none');
      expect(env.sim.counters.get(twinKey as string) - before, `${where}: the twin did not reach the simulator`).toBeGreaterThan(0);
    });
  }

  it('kept the server running throughout', async () => {
    const answer = await run('ro', 'return (await pve.get("/version")).version');
    expect(answer.ok).toBe(true);
  });
});
