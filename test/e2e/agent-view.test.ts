/**
 * What an agent sees before and after it acts, through a real MCP client against the built server
 * and the simulator: the policy of each cluster up front (instructions, search_api and get_schema
 * verdicts, the parameters that raise a call), run_script annotations that follow the most
 * permissive cluster, and a cut result that says so in the text the model reads.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { callTool, connectStdio, runAnswer, textOf, type Connected } from './helpers/mcp.js';

describe('the agent view: policy up front, results that say what they are', () => {
  let env: E2eEnv;
  let agent: Connected;

  beforeAll(async () => {
    env = await startE2eEnv({ sandbox: { workers: 1 } });
    // Two clusters on the same simulator: the default one read-only, the other an operator.
    const file = join(env.dir, 'two-clusters.json');
    const cluster = (policy: string) => ({
      url: env.sim.url,
      auth: { tokenId: env.sim.token.id, secret: env.sim.token.secret },
      tls: { fingerprint: env.sim.fingerprint },
      policy,
    });
    writeFileSync(
      file,
      JSON.stringify({
        defaultCluster: 'audit',
        clusters: { audit: cluster('read-only'), ops: cluster('ops') },
        policies: { ops: { preset: 'operator', approval: { require: ['destructive', 'privileged'] }, budget: { guests: 2 } } },
        cacheDir: join(env.dir, 'cache'),
        stateDir: env.stateDir,
        sandbox: { workers: 1 },
      }),
      { mode: 0o600 },
    );
    agent = await connectStdio(env, { name: 'agent' }, file);
  }, 180_000);

  afterAll(async () => {
    await agent?.close();
    await env?.close();
  });

  it('points to each cluster policy in the instructions, and annotates run_script by the most permissive cluster', async () => {
    const instructions = agent.client.getInstructions() ?? '';
    expect(instructions).toContain("audit (default): policy 'read-only'");
    expect(instructions).toContain('pve://audit/policy');
    expect(instructions).toContain("ops: policy 'ops'");
    expect(instructions).toContain('pve://ops/policy');
    // The effect and the per-run budgets with their numbers, not only the policy's name.
    expect(instructions).toContain(
      "audit (default): policy 'read-only'. Allows reads only; refuses every change; per run: read 500, write 20, destructive 5, privileged 2, calls 1000, guests 10, task wait 15 min.",
    );
    expect(instructions).toMatch(
      /ops: policy 'ops' \(operator\)\. Allows reads, guest power, snapshots, backups and guest config; asks approval for destructive and privileged calls; refuses every other write and privileged operations; per run: .*guests 2/,
    );
    const read = await agent.client.readResource({ uri: 'pve://ops/policy' });
    const policy = JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown>;
    expect(policy).toMatchObject({
      cluster: 'ops',
      policy: 'ops',
      preset: 'operator',
      canChange: true,
      approval: ['destructive', 'privileged'],
      budgetPerRun: { write: 20, guests: 2 },
      configured: { preset: 'operator' },
    });
    const { tools } = await agent.client.listTools();
    const run = tools.find((t) => t.name === 'run_script');
    // The default cluster is read-only, but `ops` can write: clients must not auto-approve.
    expect(run?.annotations?.readOnlyHint).toBe(false);
    expect(run?.annotations?.destructiveHint).toBe(true);
    for (const t of tools) expect(t.title).toMatch(/\S/);
  });

  it('search_api marks each hit under the chosen cluster policy and names the raising parameters', async () => {
    const onOps = await callTool(agent, 'search_api', { query: 'shut down a vm', limit: 5, cluster: 'ops' });
    const line = textOf(onOps.result)
      .split('\n')
      .find((l) => l.startsWith('POST /nodes/{node}/qemu/{vmid}/status/shutdown '));
    expect(line).toMatch(/\[write, allowed; raised by forceStop/);
    const clone = await callTool(agent, 'search_api', { query: 'clone a vm', limit: 3, cluster: 'ops' });
    const cloned = (clone.result.structuredContent as { results: Array<{ path: string; verdict: string }> }).results;
    expect(cloned).toContainEqual(expect.objectContaining({ path: '/nodes/{node}/qemu/{vmid}/clone', verdict: 'refused' }));
    // The default cluster is read-only: the same shutdown is refused there.
    const onAudit = await callTool(agent, 'search_api', { query: 'shut down a vm', limit: 5 });
    expect(textOf(onAudit.result)).toMatch(/POST \/nodes\/\{node\}\/qemu\/\{vmid\}\/status\/shutdown .*\[write, refused/);
    const unknown = await callTool(agent, 'search_api', { query: 'vm', cluster: 'nope' });
    expect(unknown.result.isError).toBe(true);
    expect(textOf(unknown.result)).toMatch(/nope/);
  });

  it('search_api lists operations by verdict in one call, and clamps limit instead of failing', async () => {
    type Results = { results: Array<{ method: string; path: string; verdict: string }> };
    const approval = await callTool(agent, 'search_api', { verdict: 'approval', cluster: 'ops', limit: 50 });
    const needing = (approval.result.structuredContent as Results).results;
    expect(approval.result.isError).toBeFalsy();
    expect(needing.length).toBeGreaterThan(0);
    expect(needing.every((r) => r.verdict.startsWith('needs approval'))).toBe(true);
    const many = await callTool(agent, 'search_api', { verdict: 'allowed', cluster: 'ops', limit: 100 });
    expect(many.result.isError).toBeFalsy();
    expect((many.result.structuredContent as Results).results.length).toBe(50);
    expect(textOf(many.result)).toContain('(limit 100 is over the maximum: showing at most 50)');
    expect(textOf(many.result)).toContain('(more may match: narrow with pathPrefix, method, risk or a query)');
    // With words, the same filter ranks within the verdict; under read-only every write is refused.
    const refused = await callTool(agent, 'search_api', { query: 'snapshot a vm', verdict: 'refused', limit: 5 });
    const found = (refused.result.structuredContent as Results).results;
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((r) => r.verdict.startsWith('refused') || r.verdict.startsWith('in scope only'))).toBe(true);
    expect(found[0]?.path).toBe('/nodes/{node}/qemu/{vmid}/snapshot');
    const allowed = await callTool(agent, 'search_api', { verdict: 'allowed', method: 'post', limit: 5 });
    expect((allowed.result.structuredContent as Results).results.every((r) => r.method === 'POST' && r.verdict.startsWith('allowed'))).toBe(true);
    const badMethod = await callTool(agent, 'search_api', { query: 'vm', method: 'PATCH' });
    expect(badMethod.result.isError).toBe(true);
    expect(textOf(badMethod.result)).toMatch(/method "PATCH" is not one of GET, POST, PUT, DELETE/);
  });

  it('get_schema gives the verdict, the parameters that raise it and their verdicts', async () => {
    const { result } = await callTool(agent, 'get_schema', { operations: ['POST /nodes/{node}/qemu/{vmid}/status/shutdown'], cluster: 'ops' });
    const [op] = (result.structuredContent as { operations: Array<{ verdict: string; signature: string }> }).operations;
    expect(op?.verdict).toBe('allowed');
    expect(op?.signature).toContain("// policy 'ops' on ops: allowed");
    expect(op?.signature).toMatch(/\/\/ raises: forceStop → destructive, needs approval/);
    const audit = await callTool(agent, 'get_schema', { operations: ['POST /nodes/{node}/qemu/{vmid}/status/shutdown'] });
    expect(textOf(audit.result)).toMatch(/\/\/ policy 'read-only' on audit: refused — .*read-only/);
  });

  it('a budget stop in a dry run says which limit was hit and how to stay within it, and following that works', async () => {
    const script = (n: number) =>
      `const vms = (await pve.get('/cluster/resources', { type: 'vm' })).filter((g) => g.type === 'qemu').slice(0, ${n});\n` +
      "for (const g of vms) await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: g.node, vmid: g.vmid, snapname: 'budgetcheck' });\n" +
      'return vms.length;';
    const three = await callTool(agent, 'run_script', { code: script(3), cluster: 'ops', dryRun: true });
    const answer = runAnswer(three.result);
    expect(answer.error?.kind).toBe('budget');
    const next = textOf(three.result)
      .split('\n')
      .find((l) => l.startsWith('Next:'));
    expect(next).toMatch(/^Next: the run stopped at a per-run budget \(guest budget used up.*limit 2 per run\).*act on at most 2 guests per run: run the script once per slice/);
    expect(next).not.toContain('run the same script without dryRun');
    // Followed: two guests per run plan, then run.
    const two = await callTool(agent, 'run_script', { code: script(2), cluster: 'ops', dryRun: true });
    expect(runAnswer(two.result).ok).toBe(true);
    expect(textOf(two.result)).toContain('Next: every write runs directly: run the same script without dryRun.');
    const live = await callTool(agent, 'run_script', { code: script(2), cluster: 'ops' });
    expect(runAnswer(live.result)).toMatchObject({ ok: true, result: 2 });
  });

  it('a result cut to fit says so first in its text, and in structuredContent.truncated.note', async () => {
    const code = "return Array.from({ length: 4000 }, (_, i) => ({ i, name: 'guest-' + i, note: 'x'.repeat(40) }));";
    const { result } = await callTool(agent, 'run_script', { code });
    const answer = runAnswer(result) as ReturnType<typeof runAnswer> & { truncated?: { note: string; result?: { originalBytes: number } } };
    expect(answer.ok).toBe(true);
    expect(answer.truncated?.note).toMatch(/the result was cut to fit .* KiB \(it was .* KiB\): \$ 4000 → \d+ items/);
    expect((answer.result as unknown[]).length).toBeLessThan(4000);
    const text = textOf(result);
    expect(text.split('\n')[0]).toMatch(/^TRUNCATED: the result was cut .*incomplete.*return less/);
    // A result that fits carries no such word.
    const small = await callTool(agent, 'run_script', { code: 'return [1, 2, 3];' });
    expect(textOf(small.result)).not.toMatch(/TRUNCATED/);
    expect(runAnswer(small.result)).not.toHaveProperty('truncated');
  });
});
