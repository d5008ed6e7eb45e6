/**
 * The built server over stdio, driven by the MCP SDK client exactly as an agent host runs it:
 * the whole flow from tools/list to approvals, progress and cancellation, checked against the
 * simulator's state over real HTTPS.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli, startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { checkDryRun, checkGetSchema, checkRead, checkSearch, checkToolList, checkWrite, startScript, statusOf, stopScript } from './helpers/flows.js';
import { callTool, connectStdio, runAnswer, textOf, type Connected } from './helpers/mcp.js';

function auditEntries(file: string): Array<{ type: string; data: Record<string, unknown> }> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
}

describe('MCP over stdio: the built server and the SDK client', () => {
  let env: E2eEnv;
  /** Accepts every approval question. */
  let approving: Connected;
  /** Declines every approval question. */
  let declining: Connected;
  /** Cannot elicit at all (like most agent hosts today). */
  let plain: Connected;

  beforeAll(async () => {
    // One sandbox worker, and limits far above the test's patience: only cancellation can free
    // the worker a `while (true) {}` occupies.
    env = await startE2eEnv({ sandbox: { workers: 1, limits: { entryTimeoutMs: 300_000, cpuMs: 300_000, wallMs: 300_000 } } });
    [approving, declining, plain] = await Promise.all([
      connectStdio(env, { name: 'approving', elicit: () => ({ action: 'accept', content: { approve: true } }) }),
      connectStdio(env, { name: 'declining', elicit: () => ({ action: 'decline' }) }),
      connectStdio(env, { name: 'plain' }),
    ]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([approving, declining, plain].map((c) => c?.close()));
    await env?.close();
  });

  it('lists the three tools with their annotations and schemas', async () => {
    await checkToolList(approving);
  });

  it('logs on stderr how scripts will run once its kept worker is up: workers, the isolated-vm loaded, confinement', async () => {
    // The kept worker starts after the server answers, so the line may follow the first answers.
    await vi.waitFor(() => expect(plain.stderr()).toMatch(/pve-code-mcp: sandbox: up to 1 worker \(1 kept warm\), isolated-vm \d+\.\d+\.\d+, confined by Node's permission model/), {
      timeout: 30_000,
      interval: 50,
    });
  });

  it('offers the SDK declarations, the PVE version and the effective policy as resources', async () => {
    const { resources } = await approving.client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['pve://sim/policy', 'pve://sim/sdk.d.ts', 'pve://sim/version']);
    const policy = await approving.client.readResource({ uri: 'pve://sim/policy' });
    const text = (policy.contents[0] as { text: string }).text;
    // The effective policy (what it does, with the per-run budgets), the configured object beside it.
    expect(JSON.parse(text)).toMatchObject({
      cluster: 'sim',
      preset: 'operator',
      approval: ['destructive'],
      budgetPerRun: { write: 20, guests: 10 },
      configured: { approval: { require: ['destructive'] } },
    });
    const sdk = await approving.client.readResource({ uri: 'pve://sim/sdk.d.ts' });
    expect(sdk.contents.map((c) => (c as { text: string }).text).join('\n')).toContain("'/nodes/{node}/qemu'");
  });

  it('search_api finds operations by intent, with filters', async () => {
    await checkSearch(approving);
  });

  it('get_schema gives the contract shape and the TypeScript signature', async () => {
    await checkGetSchema(approving);
  });

  it('run_script reads and returns only what the script filtered', async () => {
    await checkRead(approving, env.sim);
  });

  it('run_script reads an IP set entry whose CIDR is the rest of the path; the preflight refuses deleting it under the operator policy', async () => {
    const params = "{ name: 'blocklist', cidr: '203.0.113.0/24' }";
    const read = runAnswer((await callTool(approving, 'run_script', { code: `const e = await pve.get('/cluster/firewall/ipset/{name}/{cidr}', ${params});\nreturn [e.cidr, e.comment];` })).result);
    expect(read.error).toBeUndefined();
    expect(read.result).toEqual(['203.0.113.0/24', 'Scanner range']);

    const before = env.sim.counters.snapshot();
    const del = runAnswer(
      (
        await callTool(approving, 'run_script', {
          code: `const e = await pve.get('/cluster/firewall/ipset/{name}/{cidr}', ${params});\nawait pve.delete('/cluster/firewall/ipset/{name}/{cidr}', ${params});`,
        })
      ).result,
    );
    expect(del.error?.kind).toBe('denied');
    expect(del.error?.message).toContain('2:7 DELETE /cluster/firewall/ipset/blocklist/203.0.113.0/24 is a privileged operation');
    expect(del.error?.message).toContain("policy.privileged: ['DELETE /cluster/firewall/ipset/{name}/{cidr}']");
    // Refused before any call: not even the read went out.
    const after = env.sim.counters.snapshot();
    expect(after.writes).toBe(before.writes);
    expect(after.byOperation['GET /cluster/firewall/ipset/{name}/{cidr}']).toBe(1);
    expect(before.byOperation['GET /cluster/firewall/ipset/{name}/{cidr}']).toBe(1);
  });

  it('run_script writes under the operator policy: a stopped VM starts', async () => {
    await checkWrite(approving, env.sim, 'pve2', 107);
  });

  it('dryRun returns the plan and its planId and sends no write', async () => {
    await checkDryRun(approving, env.sim, 'pve3', 108);
  });

  it('a destructive write runs after the user accepts the elicitation', async () => {
    const before = env.sim.counters.snapshot().writes;
    const asked = approving.elicitations.length;
    const { result } = await callTool(approving, 'run_script', { code: stopScript('pve1', 100) });
    const answer = runAnswer(result);
    expect(answer.error).toBeUndefined();
    expect(answer.result).toBe('OK');
    expect(answer.approval).toMatchObject({ required: true, via: 'elicitation', answer: 'accept' });
    expect(approving.elicitations).toHaveLength(asked + 1);
    const question = approving.elicitations[asked]?.params as { message: string };
    expect(question.message).toContain('POST /nodes/pve1/qemu/100/status/stop');
    expect(statusOf(env.sim, 100)).toBe('stopped');
    expect(env.sim.counters.snapshot().writes).toBe(before + 1);
  });

  it('a declined elicitation sends nothing', async () => {
    const before = env.sim.counters.snapshot().writes;
    const { result } = await callTool(declining, 'run_script', { code: stopScript('pve2', 101) });
    const answer = runAnswer(result);
    expect(result.isError).toBe(true);
    expect(answer.ok).toBe(false);
    expect(answer.error?.kind).toBe('approval');
    expect(declining.elicitations).toHaveLength(1);
    expect(statusOf(env.sim, 101)).toBe('running');
    expect(env.sim.counters.snapshot().writes).toBe(before);
  });

  it('without elicitation the destructive write is refused with the next step, then runs after `pve-code-mcp approve`', async () => {
    const code = stopScript('pve3', 102);
    const before = env.sim.counters.snapshot().writes;
    const refused = await callTool(plain, 'run_script', { code });
    const refusal = runAnswer(refused.result);
    expect(refusal.ok).toBe(false);
    expect(refusal.error?.kind).toBe('approval');
    const offered = /pve-code-mcp approve ([0-9a-f]{64})/.exec(refusal.error?.message ?? '')?.[1];
    expect(offered, refusal.error?.message).toBeDefined();
    // Over stdio the host's ways: the command, and the local console with its one-time login link.
    expect(refusal.error?.message).toContain(`\`pve-code-mcp console --state-dir ${env.stateDir}\``);
    expect(refusal.error?.message).not.toContain('/approvals/');
    expect(textOf(refused.result)).toMatch(/error \[approval\]/);
    expect(statusOf(env.sim, 102)).toBe('running');

    // The explicit dry-run yields the same plan (same script, same targets).
    const dry = runAnswer((await callTool(plain, 'run_script', { code, dryRun: true })).result);
    const planId = dry.plan?.planId as string;
    expect(planId).toBe(offered);
    expect(dry.plan?.writes[0]).toMatchObject({ path: '/nodes/pve3/qemu/102/status/stop', risk: 'destructive' });
    expect(env.sim.counters.snapshot().writes).toBe(before);

    const approved = await runCli(['approve', planId, '--yes', '--config', env.configFile], { env: env.env });
    expect(approved.stderr).toBe('');
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`approved plan ${planId}`);

    const run = runAnswer((await callTool(plain, 'run_script', { code })).result);
    expect(run.error).toBeUndefined();
    expect(run.result).toBe('OK');
    expect(run.approval).toMatchObject({ via: 'operator', answer: 'approved' });
    expect(statusOf(env.sim, 102)).toBe('stopped');
    expect(env.sim.counters.snapshot().writes).toBe(before + 1);

    // The approval was for one run: the same script is refused again.
    const again = runAnswer((await callTool(plain, 'run_script', { code })).result);
    expect(again.error?.kind).toBe('approval');
  });

  it('reports progress (console lines, task waits) and logging messages during a run', async () => {
    const code = `
console.log('starting 109');
${startScript('pve1', 109).replace(/return[^;]*;\s*$/, '')}
console.log('task finished: ' + task.exitstatus);
return task.ok;`;
    const logsBefore = approving.logs.length;
    const { result, progress } = await callTool(approving, 'run_script', { code });
    const answer = runAnswer(result);
    expect(answer.error).toBeUndefined();
    expect(answer.result).toBe(true);
    expect(answer.logs).toEqual(['starting 109', 'task finished: OK']);
    const messages = progress.map((p) => p.message ?? '');
    expect(messages, JSON.stringify(messages)).toContain('log: starting 109');
    expect(
      messages.some((m) => /^task UPID:pve1:[^ ]+ (running|stopped)/.test(m)),
      JSON.stringify(messages),
    ).toBe(true);
    // Not asserted: the last line's progress. The SDK client dispatches notifications a microtask
    // late and drops the progress handler as soon as the response is read, so a notification that
    // shares a read with the response is lost on the client side (the logging message is not).
    for (let i = 1; i < progress.length; i++) expect((progress[i] as { progress: number }).progress).toBeGreaterThan((progress[i - 1] as { progress: number }).progress);
    await vi.waitFor(() => expect(approving.logs.slice(logsBefore)).toEqual(['starting 109', 'task finished: OK']));
  });

  it('a cancelled run stops and frees the sandbox; the next run works', async () => {
    const controller = new AbortController();
    const code = `
console.log('spinning');
await pve.get('/version');
while (true) {}`;
    const pending = callTool(
      approving,
      'run_script',
      { code },
      {
        signal: controller.signal,
        onProgress: (p) => {
          if (p.message === 'log: spinning') controller.abort('user pressed stop');
        },
        timeout: 120_000,
      },
    );
    // On a loaded machine the progress line can be late; by then the script spins either way.
    const fallback = setTimeout(() => controller.abort('user pressed stop (no progress seen)'), 8_000);
    await expect(pending).rejects.toThrow();
    clearTimeout(fallback);
    expect(controller.signal.aborted).toBe(true);
    // One worker only: if the spinning isolate were still running this would wait for minutes.
    const next = await callTool(approving, 'run_script', { code: 'return 6 * 7;' }, { timeout: 30_000 });
    expect(runAnswer(next.result)).toMatchObject({ ok: true, result: 42 });
    // The server recorded the cancelled run as cancelled.
    const entries = auditEntries(join(env.stateDir, 'audit.jsonl'));
    const start = entries.find((e) => e.type === 'run-start' && String(e.data.source).includes('spinning'));
    const end = entries.find((e) => e.type === 'run-end' && e.data.runId === start?.data.runId);
    expect(end?.data).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
  });

  it('a script that returns nothing still matches the output schema (result: null)', async () => {
    const { result } = await callTool(approving, 'run_script', { code: "console.log('side effect only');" });
    expect(runAnswer(result)).toMatchObject({ ok: true, result: null, logs: ['side effect only'] });
  });

  it('script errors come back as tool errors with the line, and the server stays usable', async () => {
    const { result } = await callTool(approving, 'run_script', { code: "const x = 1;\nthrow new Error('boom');" });
    expect(result.isError).toBe(true);
    const answer = runAnswer(result);
    expect(answer.ok).toBe(false);
    expect(answer.error?.message).toMatch(/boom/);
    const unknown = await callTool(approving, 'run_script', { code: 'return 1;', cluster: 'nope' });
    expect(unknown.result.isError).toBe(true);
    expect(textOf(unknown.result)).toMatch(/no cluster named 'nope'/);
    expect(runAnswer((await callTool(approving, 'run_script', { code: 'return "still here";' })).result).result).toBe('still here');
  });
});
