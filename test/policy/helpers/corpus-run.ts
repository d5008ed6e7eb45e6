/**
 * The adversarial corpus as tests, whatever carries the runs (stdio with a cluster per policy,
 * or HTTP with a principal per policy): every case runs twice — with the call literal in the
 * source (the preflight sees it) and with the call built at run time (only the live bridge sees
 * it) — and must be contained both times: refused or sent for approval with a message that says
 * why, and the simulator's counters show that the call did not reach it. Every case's harmless
 * twin must reach the simulator, so a policy that refuses everything fails too.
 */
import { expect, it } from 'vitest';
import type { RunningSimulator } from '../../../src/simulator/index.js';
import type { RunAnswer } from '../../e2e/helpers/mcp.js';
import { CORPUS as MAIN_CORPUS, CORPUS_POLICIES as MAIN_POLICIES, type CorpusCall, type CorpusCase } from '../corpus.js';
import { PATH_RULE_CORPUS, PATH_RULE_POLICIES } from '../corpus-path-rules.js';

export const CORPUS: CorpusCase[] = [...MAIN_CORPUS, ...PATH_RULE_CORPUS];
export const CORPUS_POLICIES: Record<string, Record<string, unknown>> = { ...MAIN_POLICIES, ...PATH_RULE_POLICIES };

/** Where a case's script runs: the case's (or twin's) cluster, and the cluster it calls through. */
export interface CaseTarget {
  cluster: string;
  via?: string;
  /** The twin's run, not the case's (a transport may run it as someone else). */
  twin: boolean;
}

export type CaseRunner = (target: CaseTarget, code: string) => Promise<RunAnswer>;

function sdk(via: string | undefined): string {
  return via ? `pve.cluster(${JSON.stringify(via)})` : 'pve';
}

/** The script: the call literal in the source, or assembled at run time where no preflight can read it. */
export function caseScript(c: CorpusCase | CorpusCase['twin'], form: 'literal' | 'runtime'): string {
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

/** The reason an answer gives: the refusal's message, or why the planned call needs approval. */
export function reasonOf(answer: RunAnswer): string {
  const plan = answer.plan as { writes?: Array<{ why?: string; needsApproval?: boolean }> } | undefined;
  const whys = (plan?.writes ?? []).filter((w) => w.needsApproval).map((w) => w.why ?? '');
  return [answer.error?.message ?? '', ...whys].join('\n');
}

/** Declares one test per corpus case (call this inside a `describe`); `sim` is read when the tests run. */
export function corpusTests(sim: () => RunningSimulator, run: CaseRunner): void {
  const opKey = (c: CorpusCall): string | undefined => sim().model.matchPath(c.method, c.path.replace('/nodes/localhost/', '/nodes/pve1/'))?.operation?.key;

  it('has at least 80 cases across every class, each with a harmless twin', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(80);
    const classes = new Set(CORPUS.map((c) => c.class));
    for (const cls of [
      'hard-stop',
      'physical-removal',
      'overwrite',
      'host-exec',
      'credential',
      'host-resource',
      'data-egress',
      'bulk',
      'lock-bypass',
      'root-only',
      'targets',
      'path-rules',
      'tasks',
      'clusters',
      'read-only',
    ]) {
      expect(classes, cls).toContain(cls);
    }
    expect(new Set(CORPUS.map((c) => c.id)).size).toBe(CORPUS.length);
  });

  for (const c of CORPUS) {
    it(`${c.class} / ${c.id}: contained (${c.expect}) in both forms, its twin runs`, async () => {
      const contained = c.call === 'waitTask' ? `GET /nodes/{node}/tasks/{upid}/status` : opKey(c.call);
      expect(contained, `${c.id}: the call names no operation of the 9.1 schema`).toBeDefined();
      for (const form of ['literal', 'runtime'] as const) {
        const before = sim().counters.snapshot();
        const answer = await run({ cluster: c.cluster, ...(c.via ? { via: c.via } : {}), twin: false }, caseScript(c, form));
        const after = sim().counters.snapshot();
        const where = `${c.id} (${form}): ${JSON.stringify(answer).slice(0, 600)}`;
        expect(answer.ok, where).toBe(false);
        expect(answer.error?.kind, where).toBe(c.expect);
        expect(reasonOf(answer), where).toMatch(c.why);
        expect((after.byOperation[contained as string] ?? 0) - (before.byOperation[contained as string] ?? 0), `${where}: the call reached the simulator`).toBe(0);
        expect(after.writes - before.writes, `${where}: writes reached the simulator`).toBe(c.setup ? 1 : 0);
      }
      const twinKey = opKey(c.twin.call);
      const before = sim().counters.get(twinKey as string);
      const twin = await run({ cluster: c.twin.cluster ?? c.cluster, ...(c.twin.via ? { via: c.twin.via } : {}), twin: true }, caseScript(c.twin, 'literal'));
      const where = `${c.id} twin: ${JSON.stringify(twin).slice(0, 600)}`;
      expect(['denied', 'approval', 'budget', 'invalid'], where).not.toContain(twin.error?.kind ?? 'none');
      expect(sim().counters.get(twinKey as string) - before, `${where}: the twin did not reach the simulator`).toBeGreaterThan(0);
    });
  }
}
