/**
 * Three processes on one state directory at once, as a user's machine runs them: two `serve`
 * processes (one whose client accepts elicitations, one that cannot elicit and gets its writes
 * approved with `pve-code-mcp approve` from a shell) and a stream of CLI `run` processes, all doing
 * scripts, dry-runs and approved destructive writes against the simulator. Afterwards `audit
 * verify` passes, every run is in the log exactly once, and every approval was consumed at most
 * once. The duration is PVE_PARALLEL_TEST_SECONDS (default 20 s, to fit CI; 60 s was run by hand).
 * Needs the built CLI (`npm run build`, which `npm test` does).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotatedFiles } from '../../src/audit/file-scan.js';
import { runCli, startE2eEnv, type E2eEnv } from '../e2e/helpers/harness.js';
import { callTool, connectStdio, runAnswer, type Connected } from '../e2e/helpers/mcp.js';

const SECONDS = Number(process.env.PVE_PARALLEL_TEST_SECONDS ?? 20);

interface Tally {
  markers: string[];
  approvedRuns: number;
  elicited: number;
}

function stopCode(marker: string, node: string, vmid: number): string {
  return `// ${marker}\nconst upid = await pve.post('/nodes/{node}/qemu/{vmid}/status/stop', { node: '${node}', vmid: ${vmid} });\nreturn (await pve.waitTask(upid)).exitstatus;`;
}
/**
 * Wait until the guest runs again, so the next plan shows the power state the approved run will
 * find (a plan binds to the state it showed). The guests used here are not HA-managed: an HA
 * guest's state follows the HA manager's own clock, as on PVE, not the task's end.
 */
async function untilRunning(sim: E2eEnv['sim'], vmid: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (sim.cluster.guests().find((g) => g.vmid === vmid)?.status !== 'running') {
    if (Date.now() > until) throw new Error(`VM ${vmid} did not reach running within 10 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function startCode(marker: string, node: string, vmid: number): string {
  return `// ${marker}\nconst upid = await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: '${node}', vmid: ${vmid} });\nreturn (await pve.waitTask(upid)).exitstatus;`;
}
function readCode(marker: string): string {
  return `// ${marker}\nconst vms = await pve.get('/cluster/resources', { type: 'vm' });\nreturn vms.filter((v) => v.status === 'running').length;`;
}

describe('three processes on one state directory', () => {
  let env: E2eEnv;
  let elicit: Connected;
  let plain: Connected;

  beforeAll(async () => {
    env = await startE2eEnv({ sandbox: { workers: 1 } });
    [elicit, plain] = await Promise.all([connectStdio(env, { name: 'elicit', elicit: () => ({ action: 'accept', content: { approve: true } }) }), connectStdio(env, { name: 'plain' })]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([elicit, plain].map((c) => c?.close()));
    await env?.close();
  });

  it(
    `runs scripts, dry-runs and approvals for ${SECONDS} s: one verifiable audit, every run once, every approval used at most once`,
    async () => {
      const deadline = Date.now() + SECONDS * 1000;
      const started = Date.now();

      // serve #1: reads, dry-runs, and stops approved by the human through elicitation.
      const viaElicitation = async (): Promise<Tally> => {
        const t: Tally = { markers: [], approvedRuns: 0, elicited: 0 };
        for (let i = 0; Date.now() < deadline; i++) {
          const m = (kind: string) => `elicit-${kind}-${i}`;
          t.markers.push(m('read'));
          expect(runAnswer((await callTool(elicit, 'run_script', { code: readCode(m('read')) })).result).error).toBeUndefined();
          t.markers.push(m('dry'));
          expect(runAnswer((await callTool(elicit, 'run_script', { code: stopCode(m('dry'), 'pve2', 110), dryRun: true })).result).plan?.planId).toMatch(/^[0-9a-f]{64}$/);
          t.markers.push(m('stop'));
          const stop = runAnswer((await callTool(elicit, 'run_script', { code: stopCode(m('stop'), 'pve2', 110) })).result);
          expect(stop.error, JSON.stringify(stop.error)).toBeUndefined();
          expect(stop.approval).toMatchObject({ via: 'elicitation', answer: 'accept' });
          t.elicited++;
          t.markers.push(m('start'));
          expect(runAnswer((await callTool(elicit, 'run_script', { code: startCode(m('start'), 'pve2', 110) })).result).error).toBeUndefined();
          await untilRunning(env.sim, 110);
        }
        return t;
      };

      // serve #2: no elicitation; each stop is refused, approved from a shell, then run.
      const viaOperator = async (): Promise<Tally> => {
        const t: Tally = { markers: [], approvedRuns: 0, elicited: 0 };
        for (let i = 0; Date.now() < deadline; i++) {
          const m = (kind: string) => `operator-${kind}-${i}`;
          t.markers.push(m('refused'));
          const code = stopCode(m('refused'), 'pve3', 120);
          const refused = runAnswer((await callTool(plain, 'run_script', { code })).result);
          expect(refused.error?.kind).toBe('approval');
          const planId = /pve-code-mcp approve ([0-9a-f]{64})/.exec(refused.error?.message ?? '')?.[1];
          expect(planId, refused.error?.message).toBeDefined();
          const approved = await runCli(['approve', planId as string, '--yes', '--config', env.configFile], { env: env.env });
          expect(approved.code, approved.stderr).toBe(0);
          const run = runAnswer((await callTool(plain, 'run_script', { code })).result);
          expect(run.error, JSON.stringify(run.error)).toBeUndefined();
          expect(run.approval).toMatchObject({ via: 'operator', planId });
          t.approvedRuns++;
          t.markers.push(m('refused')); // the same script ran twice: refused, then approved
          const again = runAnswer((await callTool(plain, 'run_script', { code })).result);
          expect(again.error?.kind).toBe('approval'); // used once
          t.markers.push(m('refused'));
          t.markers.push(m('start'));
          expect(runAnswer((await callTool(plain, 'run_script', { code: startCode(m('start'), 'pve3', 120) })).result).error).toBeUndefined();
          await untilRunning(env.sim, 120);
        }
        return t;
      };

      // CLI runs, each its own process: reads and dry-runs.
      const viaCli = async (): Promise<Tally> => {
        const t: Tally = { markers: [], approvedRuns: 0, elicited: 0 };
        for (let i = 0; Date.now() < deadline; i++) {
          const marker = `cli-${i % 2 === 0 ? 'read' : 'dry'}-${i}`;
          const file = join(env.dir, `${marker}.ts`);
          writeFileSync(file, i % 2 === 0 ? readCode(marker) : stopCode(marker, 'pve1', 112));
          const r = await runCli(['run', file, '--config', env.configFile, ...(i % 2 === 0 ? [] : ['--dry-run'])], { env: env.env });
          expect(r.code, r.stdout + r.stderr).toBe(0);
          t.markers.push(marker);
        }
        return t;
      };

      const tallies = await Promise.all([viaElicitation(), viaOperator(), viaCli()]);
      const elapsed = (Date.now() - started) / 1000;

      const verify = await runCli(['audit', 'verify', '--config', env.configFile], { env: env.env });
      expect(verify.code, verify.stdout).toBe(0);
      expect(verify.stdout).toMatch(/audit OK/);

      const log = join(env.stateDir, 'audit.jsonl');
      const entries = [...rotatedFiles(log).map((f) => f.path), log].flatMap((p) =>
        readFileSync(p, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> }),
      );
      expect(entries.filter((e) => e.type === 'alert')).toEqual([]);
      const starts = entries.filter((e) => e.type === 'run-start');
      const runIds = starts.map((e) => String(e.data.runId));
      expect(new Set(runIds).size).toBe(runIds.length);
      const ended = new Set(entries.filter((e) => e.type === 'run-end').map((e) => String(e.data.runId)));
      expect(runIds.filter((id) => !ended.has(id))).toEqual([]);
      // Every run we made is in the log exactly as often as we made it (the marker is in its source).
      const expected = new Map<string, number>();
      for (const m of tallies.flatMap((t) => t.markers)) expected.set(m, (expected.get(m) ?? 0) + 1);
      const logged = new Map<string, number>();
      for (const e of starts) {
        const marker = /^\/\/ (\S+)/.exec(String(e.data.source))?.[1];
        if (marker) logged.set(marker, (logged.get(marker) ?? 0) + 1);
      }
      expect(Object.fromEntries(logged)).toEqual(Object.fromEntries(expected));

      // Every approval consumed at most once; every operator-approved run consumed one.
      const records = readFileSync(join(env.stateDir, 'approvals.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; planId: string; id?: string; approvalId?: string; via?: string });
      const approvals = records.filter((r) => r.type === 'approve');
      // Runs the human accepted through elicitation are recorded as used too (so the plan cannot be
      // approved again out of band); they consume no operator approval.
      const consumes = records.filter((r) => r.type === 'consume' && r.via !== 'elicitation');
      const perPlan = new Map<string, number>();
      for (const c of consumes) perPlan.set(c.planId, (perPlan.get(c.planId) ?? 0) + 1);
      for (const [planId, n] of perPlan) expect({ planId, n }).toEqual({ planId, n: approvals.filter((a) => a.planId === planId).length });
      const operatorRuns = tallies[1]?.approvedRuns ?? 0;
      expect(consumes.length).toBeGreaterThanOrEqual(operatorRuns);
      expect(operatorRuns).toBeGreaterThan(0);
      expect(tallies[0]?.elicited).toBeGreaterThan(0);

      console.log(
        `parallel: ${elapsed.toFixed(1)} s, ${starts.length} runs (${tallies.map((t) => t.markers.length).join(' + ')}), ` +
          `${tallies[0]?.elicited} elicited and ${operatorRuns} operator-approved destructive runs, ${entries.length} audit entries`,
      );
    },
    (SECONDS + 150) * 1000,
  );
});
