/**
 * Runbooks with a standing approval (issue 32): the operator approves the example runbook for pool
 * `development`; an agent runs it twice through run_script without being asked; for pool
 * `production`, and after the file changes, it is asked again (and declined here, so nothing is
 * sent). Every use names the standing approval in the audit.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE, EXAMPLE_NAME } from '../../src/cli/script-folder.js';
import { runCli, startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { callTool, connectStdio, type Connected } from './helpers/mcp.js';

interface Answer {
  ok: boolean;
  result: Array<{ vmid: number; outcome: string; error?: string }> | null;
  approval?: { via?: string; standingId?: string; answer?: string; standing?: string };
  error?: { kind: string; message: string };
}

describe('runbooks and standing approvals', () => {
  let env: E2eEnv;
  let config: string;
  let c: Connected;
  let books: string;

  beforeAll(async () => {
    env = await startE2eEnv();
    books = join(env.dir, 'runbooks');
    mkdirSync(books);
    writeFileSync(join(books, EXAMPLE_NAME), EXAMPLE);
    const base = JSON.parse(readFileSync(env.configFile, 'utf8')) as Record<string, unknown> & { policies: Record<string, unknown> };
    // Every snapshot needs a person's approval, unless a standing approval covers it.
    base.policies.e2e = { preset: 'operator', approval: { require: ['write', 'destructive'] } };
    base.runbooks = { dir: books };
    // This test's own kill switch, never the host's.
    base.halt = { file: join(env.dir, 'halt') };
    config = join(env.dir, 'runbooks-config.json');
    writeFileSync(config, JSON.stringify(base), { mode: 0o600 });
    c = await connectStdio(env, { name: 'runbooks', elicit: () => ({ action: 'decline' }) }, config);
  }, 120_000);

  afterAll(async () => {
    await c?.close();
    await env?.close();
  });

  const run = async (args: Record<string, unknown>): Promise<Answer> => {
    const { result } = await callTool(c, 'run_script', { runbook: 'snapshot-pool', args }, { timeout: 90_000 });
    return result.structuredContent as unknown as Answer;
  };

  it('lists the runbook with its arguments to the agent', async () => {
    const prompt = await c.client.getPrompt({ name: 'runbook', arguments: {} });
    const text = (prompt.messages[0]?.content as { text: string }).text;
    expect(text).toContain('- snapshot-pool: Take a snapshot of every guest in a pool.');
    expect(text).toContain('args: pool: string — the pool whose guests get a snapshot; name: string matching /[A-Za-z][A-Za-z0-9_-]{1,39}/');
    expect(text).toContain('run_script { runbook: "<name>", args: { … } }');
  }, 60_000);

  it('passes run_script args to a body-form script as the global args, and refuses malformed ones', async () => {
    const { result } = await callTool(c, 'run_script', { code: 'return args.x + 1;', args: { x: 41 } });
    expect((result.structuredContent as { result: unknown }).result).toBe(42);
    const nested = await callTool(c, 'run_script', { code: 'return 1;', args: { x: { y: 1 } } });
    expect((nested.result.structuredContent as unknown as Answer).error?.message).toMatch(/malformed arguments/);
    const both = await callTool(c, 'run_script', { code: 'return 1;', runbook: 'snapshot-pool' });
    expect(both.result.isError).toBe(true);
    expect(JSON.stringify(both.result.content)).toContain('exactly one of them');
  }, 60_000);

  it('runs inside the approved bounds twice without asking, and asks outside them or after the file changed', async () => {
    const approve = await runCli(['runbook', 'approve', 'snapshot-pool', '--pool', 'development', '--risk', 'write', '--max-writes', '40', '--expires', '7d', '--yes', '-c', config], { env: env.env });
    expect(approve.code, approve.stderr).toBe(0);
    const id = /standing approval ([0-9a-f]{16})/.exec(approve.stdout)?.[1];
    expect(id).toBeDefined();

    for (const name of ['first', 'second']) {
      const answer = await run({ pool: 'development', name });
      expect(answer.ok, JSON.stringify(answer)).toBe(true);
      expect(answer.approval).toMatchObject({ via: 'standing', standingId: id, answer: 'approved' });
      expect(answer.result?.length).toBeGreaterThan(0);
      for (const r of answer.result ?? []) expect(r.outcome).toBe('done');
    }
    expect(c.elicitations).toHaveLength(0);

    // The kill switch wins over a standing approval: covered, and still nothing is sent.
    // The config's own switch file (in this test's directory), lifted whatever happens.
    expect((await runCli(['halt', '--reason', 'runbooks test', '-c', config], { env: env.env })).code).toBe(0);
    try {
      const halted = await run({ pool: 'development', name: 'halted' });
      expect(halted.approval?.via).toBe('standing');
      // waitTasks reports each write: the plan's first step refused by the switch, the rest then out of the
      // plan's order (the guests' writes race, so which entry holds which is not fixed); none sent.
      expect((halted.result ?? []).filter((r) => /halt/i.test(String(r.error)))).toHaveLength(1);
      for (const r of halted.result ?? []) expect(r.outcome).toBe('not-sent');
    } finally {
      expect((await runCli(['resume', '-c', config], { env: env.env })).code).toBe(0);
    }

    const production = await run({ pool: 'production', name: 'third' });
    expect(production.ok).toBe(false);
    expect(production.approval?.answer).toBe('decline');
    expect(production.approval?.standing).toMatch(new RegExp(`standing approval ${id}: write 1: guest \\d+ is in pool production, not development`));
    expect(c.elicitations).toHaveLength(1);

    appendFileSync(join(books, EXAMPLE_NAME), '// reviewed again?\n');
    const changed = await run({ pool: 'development', name: 'fourth' });
    expect(changed.ok).toBe(false);
    expect(changed.approval?.standing).toContain(`standing approval ${id}: the runbook 'snapshot-pool' changed since it was approved`);
    expect(c.elicitations).toHaveLength(2);

    // The audit names the standing approval each use ran under.
    const audit = readFileSync(join(env.stateDir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; data?: Record<string, unknown> } & Record<string, unknown>);
    const uses = audit.filter((e) => e.type === 'approval' && JSON.stringify(e).includes(`"standingId":"${id}"`) && JSON.stringify(e).includes('"via":"standing"'));
    expect(uses).toHaveLength(3);
  }, 300_000);
});
