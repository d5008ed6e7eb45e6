/**
 * Approvals, plans and the audit under adversarial scripts, end to end through a real MCP client
 * against the simulator: with elicitation (a test "human" that records each prompt and answers)
 * and without. The script can tell its approved run from its dry-run: the human changes a marker
 * (VM 127's description) while approving, and the scripts read it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/helpers/harness.js';
import type { RunAnswer } from '../e2e/helpers/mcp.js';
import { startPolicyEnv, type PolicyEnv } from './helpers/env.js';

const OPS = { preset: 'operator' };
const POLICIES = {
  ops: OPS,
  ops2: OPS,
  big: { preset: 'operator', budget: { write: 400, destructive: 10, guests: 10, calls: 2000 } },
  ro: { preset: 'read-only' },
  calls5: { preset: 'read-only', budget: { calls: 5 } },
};

let withHuman: PolicyEnv;
let noHuman: PolicyEnv;
const human = { answer: 'accept' as 'accept' | 'decline', prompts: [] as string[] };

async function elicit(request: ElicitRequest): Promise<ElicitResult> {
  human.prompts.push(String(request.params.message));
  if (human.answer === 'decline') return { action: 'decline' };
  await withHuman.admin.request('PUT', '/nodes/pve1/qemu/127/config', { description: 'second pass' });
  return { action: 'accept', content: { approve: true } };
}

beforeAll(async () => {
  [withHuman, noHuman] = await Promise.all([startPolicyEnv({ name: 'human', policies: POLICIES, elicit }), startPolicyEnv({ name: 'no-human', policies: POLICIES })]);
}, 180_000);

afterAll(async () => {
  await withHuman?.close();
  await noHuman?.close();
});

/** Tasks a case started (a snapshot) must not change the guest under the next case's plan. */
async function settled(env: PolicyEnv): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const tasks = (await env.admin.request('GET', '/cluster/tasks')) as Array<{ endtime?: number }>;
    if (tasks.every((t) => t.endtime !== undefined)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeEach(async () => {
  human.answer = 'accept';
  human.prompts.length = 0;
  await Promise.all([settled(withHuman), settled(noHuman)]);
  await withHuman.admin.request('PUT', '/nodes/pve1/qemu/127/config', { description: 'first pass' });
});

const SECOND = "const second = String((await pve.get('/nodes/pve1/qemu/127/config')).description ?? '').includes('second pass');";
const A = "await pve.post('/nodes/pve1/qemu/118/snapshot', { snapname: 'safety_net' })";
const B = "await pve.post('/nodes/pve1/qemu/118/status/stop', {})";
const KEY_A = 'POST /nodes/{node}/qemu/{vmid}/snapshot';
const KEY_B = 'POST /nodes/{node}/qemu/{vmid}/status/stop';

async function sentDuring(env: PolicyEnv, keys: string[], fn: () => Promise<RunAnswer>): Promise<{ answer: RunAnswer; sent: Record<string, number> }> {
  const before = env.sim.counters.snapshot().byOperation;
  const answer = await fn();
  const after = env.sim.counters.snapshot().byOperation;
  return { answer, sent: Object.fromEntries(keys.map((k) => [k, (after[k] ?? 0) - (before[k] ?? 0)])) };
}

describe('exact binding: an approved run makes exactly the approved writes, in order', () => {
  const cases: Array<{ id: string; code: string; error?: RegExp; sent: [number, number]; unused?: number[] }> = [
    { id: 'skips the approved first step', code: `${SECOND}\nif (!second) ${A};\n${B};`, error: /step 2 of the approved plan, but step 1/, sent: [0, 0], unused: [1, 2] },
    { id: 'reverses the order', code: `${SECOND}\nif (!second) { ${A}; ${B}; } else { ${B}; ${A}; }`, error: /step 2 of the approved plan, but step 1/, sent: [0, 0] },
    { id: 'adds a write', code: `${SECOND}\n${A};\n${B};\nif (second) await pve.post('/nodes/pve1/qemu/109/status/start', {});`, error: /not in the approved plan/, sent: [1, 1] },
    { id: 'repeats an approved write', code: `${SECOND}\n${A};\nif (second) ${A};\n${B};`, error: /already been made/, sent: [1, 0] },
    {
      id: 'changes the params of a step',
      code: `${SECOND}\nawait pve.post('/nodes/pve1/qemu/118/snapshot', { snapname: second ? 'other' : 'safety_net' });\n${B};`,
      error: /not in the approved plan/,
      sent: [0, 0],
    },
    { id: 'changes the target of a step', code: `${SECOND}\n${A};\nawait pve.post('/nodes/pve1/qemu/' + (second ? 109 : 118) + '/status/stop', {});`, error: /not in the approved plan/, sent: [1, 0] },
    {
      id: 'moves a step to another cluster',
      code: `${SECOND}\n${A};\nawait (second ? pve.cluster('ops2') : pve).post('/nodes/pve1/qemu/118/status/stop', {});`,
      error: /not in the approved plan/,
      sent: [1, 0],
    },
  ];
  for (const c of cases) {
    it(`a script that ${c.id} is stopped before the deviating write`, async () => {
      const { answer, sent } = await sentDuring(withHuman, [KEY_A, KEY_B], () => withHuman.run(c.code));
      expect(human.prompts, 'the human was asked once').toHaveLength(1);
      expect(answer.error?.kind, JSON.stringify(answer)).toBe('approval');
      expect(answer.error?.message).toMatch(c.error as RegExp);
      expect([sent[KEY_A], sent[KEY_B]]).toEqual(c.sent);
      if (c.unused) expect((answer.approval as { unusedSteps?: number[] }).unusedSteps).toEqual(c.unused);
    }, 60_000);
  }

  it('a parallel fan-out in the wrong textual order is released in plan order and runs', async () => {
    const code = `const a = () => pve.post('/nodes/pve1/qemu/118/snapshot', { snapname: 'fan_out' });\nconst b = () => pve.post('/nodes/pve1/qemu/118/status/stop', {});\nconst [x, y] = await Promise.all([(async () => { await Promise.resolve(); return b(); })(), a()]);\nreturn [typeof x, typeof y];`;
    const { answer, sent } = await sentDuring(withHuman, [KEY_A, KEY_B], () => withHuman.run(code));
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
    expect([sent[KEY_A], sent[KEY_B]]).toEqual([1, 1]);
    // Sent in plan order (the answers may come back in either order, and the audit records them as they do).
    expect(
      withHuman.sim.counters
        .recent()
        .filter((k) => k === KEY_A || k === KEY_B)
        .slice(-2),
    ).toEqual([KEY_A, KEY_B]);
    // The outcome records (an intent, written before each write, carries planSeq too but no status).
    const seqs = withHuman
      .auditEntries()
      .filter((e) => e.phase === 'approved' && typeof e.planSeq === 'number' && typeof e.status === 'string')
      .slice(-2)
      .map((e) => e.planSeq);
    expect(seqs.sort()).toEqual([1, 2]);
  }, 60_000);

  it('streams each console line once, not again from the approval probe', async () => {
    const before = withHuman.mcp.logs.length;
    const answer = await withHuman.run(
      `console.log('probe-once-marker');\nconst upid = await pve.post('/nodes/pve1/qemu/118/snapshot', { snapname: 'log_once' });\nawait pve.waitTask(upid);\n${B};\nreturn 'ok';`,
    );
    expect(answer.result, JSON.stringify(answer).slice(0, 600)).toBe('ok');
    const lines = withHuman.mcp.logs.slice(before).filter((l) => JSON.stringify(l).includes('probe-once-marker'));
    expect(lines).toHaveLength(1);
  }, 60_000);

  it('a run may stop early: the unmade steps are reported', async () => {
    const { answer, sent } = await sentDuring(withHuman, [KEY_A, KEY_B], () => withHuman.run(`${SECOND}\n${A};\nif (!second) ${B};\nreturn 'done';`));
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
    expect([sent[KEY_A], sent[KEY_B]]).toEqual([1, 0]);
    expect((answer.approval as { unusedSteps?: number[]; message: string }).unusedSteps).toEqual([2]);
    expect((answer.approval as { message: string }).message).toMatch(/step 2 of the plan was not made/);
  }, 60_000);

  it('a planId argument is a reference, never an approval', async () => {
    const dry = await noHuman.run(`${A};\n${B};`, { dryRun: true });
    const planId = (dry.plan as { planId: string }).planId;
    const { answer, sent } = await sentDuring(noHuman, [KEY_A, KEY_B], () => noHuman.run(`${A};\n${B};`, { planId } as never));
    expect(answer.ok).toBe(false);
    expect([sent[KEY_A], sent[KEY_B]]).toEqual([0, 0]);
  }, 60_000);
});

describe('honest human-facing text: nothing the script writes can hide or reorder a step', () => {
  const characters: Array<[string, string]> = [
    ['line separator', '\u2028'],
    ['paragraph separator', '\u2029'],
    ['right-to-left override', '\u202E'],
    ['left-to-right embedding', '\u202A'],
    ['first-strong isolate', '\u2068'],
    ['pop directional isolate', '\u2069'],
    ['zero-width space', '\u200B'],
    ['byte order mark', '\uFEFF'],
    ['next line (C1)', '\u0085'],
    ['escape (ANSI)', '\u001B[2K'],
  ];
  for (const [name, ch] of characters) {
    it(`shows a ${name} visibly and keeps the destructive step counted at the top`, async () => {
      human.answer = 'decline';
      const text = `routine${ch.repeat(40)}Nothing else is changed.`;
      const { sent } = await sentDuring(withHuman, [KEY_B], () => withHuman.run(`await pve.put('/nodes/pve1/qemu/118/config', { description: ${JSON.stringify(text)} });\n${B};`));
      expect(sent[KEY_B]).toBe(0);
      const prompt = human.prompts[0] as string;
      expect(prompt).not.toContain(ch);
      expect(prompt).toMatch(/\\u\{[0-9A-F]{4}\}|\\u00[0-9a-f]{2}/);
      const lines = prompt.split('\n');
      expect(lines.findIndex((l) => l === '!! 1 destructive step: 2')).toBeLessThan(4);
      expect(lines.some((l) => /^   call: POST \/nodes\/pve1\/qemu\/118\/status\/stop \[DESTRUCTIVE/.test(l))).toBe(true);
    }, 60_000);
  }

  it('cuts a long value to its start, size and hash', async () => {
    human.answer = 'decline';
    await withHuman.run(`await pve.put('/nodes/pve1/qemu/118/config', { description: 'y'.repeat(8_000) });\n${B};`);
    const prompt = human.prompts[0] as string;
    expect(prompt.length).toBeLessThan(2_000);
    expect(prompt).toMatch(/y…\[8000 chars, sha256 [0-9a-f]{16}\]/);
  }, 60_000);

  it('caps a 301-step plan and still counts every destructive step at the top', async () => {
    human.answer = 'decline';
    const code = `for (let i = 0; i < 300; i++) await pve.put('/nodes/pve1/qemu/118/config', { description: 'step ' + i });\n${B};`;
    await withHuman.run(code, { cluster: 'big' });
    const prompt = human.prompts[0] as string;
    expect(prompt.length).toBeLessThan(8_500);
    expect(prompt).toContain('!! 1 destructive step: 301');
    expect(prompt).toMatch(/more steps not shown here/);
  }, 120_000);
});

describe('caps: plans and the audit stay small whatever the script sends', () => {
  it('a dry-run with long parameters answers in a small message and stores a small plan', async () => {
    const code = `for (let i = 0; i < 15; i++) await pve.put('/nodes/pve1/qemu/118/config', { description: String(i % 10).repeat(8_000) });\n${B};`;
    const answer = await noHuman.run(code, { dryRun: true });
    expect((answer.plan as { writes: unknown[] }).writes, JSON.stringify(answer.error)).toHaveLength(16);
    expect(JSON.stringify(answer).length).toBeLessThan(64 * 1024);
    const planId = (answer.plan as { planId: string }).planId;
    const files = readdirSync(noHuman.stateDir, { recursive: true })
      .map(String)
      .filter((f) => f.includes(planId));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(statSync(join(noHuman.stateDir, f)).size).toBeLessThan(64 * 1024);
  }, 60_000);

  it('twenty refused calls with 900 KB parameters grow the audit by little', async () => {
    const before = noHuman.auditText().length;
    const answer = await noHuman.run(
      `const path = ['/nodes', 'pve1', 'qemu', '118', 'config'].join('/');\nfor (let i = 0; i < 20; i++) { try { await pve.put(path, { description: 'q'.repeat(900_000), tags: 'x'.repeat(900) }); } catch {} }\nreturn 1;`,
      { cluster: 'ro' },
    );
    expect(answer.ok, JSON.stringify(answer).slice(0, 1500)).toBe(true);
    expect(noHuman.auditText().length - before).toBeLessThan(400 * 1024);
  }, 60_000);
});

describe('every attempt is audited and counted, also those the sandbox channel refuses', () => {
  // The channel refuses only what it cannot read as a call; the rest request resolution refuses.
  const refusals: Array<[string, string, RegExp]> = [
    ['a traversal path', "await pve.get(['/nodes', '..', 'access', 'users'].join('/'))", /dot segment/],
    ['a percent-encoded path', "await pve.get(['/nodes', 'pve1%2F..%2Faccess'].join('/'))", /contains '\?', '#', '%'/],
    ['a prototype key', 'await pve.get(\'/version\', JSON.parse(\'{"__proto__":{"x":1}}\'))', /__proto__/],
    ['params nested too deep', "let p: any = {}; const root = p; for (let i = 0; i < 30; i++) { p.a = {}; p = p.a; } await pve.get('/version', root)", /nested deeper/],
    ['an oversized call', "await pve.get('/version', { x: 'w'.repeat(2_000_000) })", /2000069 bytes/],
  ];
  for (const [name, call, message] of refusals) {
    it(`${name} is in the audit, small, with its refusal`, async () => {
      const before = noHuman.auditEntries().length;
      const answer = await noHuman.run(`try { ${call}; } catch (e) { return (e as any).message; }`, { cluster: 'ro' });
      expect(String(answer.result)).toMatch(message);
      const added = noHuman.auditEntries().slice(before);
      const record = added.find((e) => e.type === 'call' && e.status === 'invalid');
      expect(record, JSON.stringify(added)).toMatchObject({ status: 'invalid', message: expect.stringMatching(message) });
      expect(JSON.stringify(record).length).toBeLessThan(2_000);
    }, 60_000);
  }

  it('refused attempts count against the call budget', async () => {
    const answer = await noHuman.run(
      `const kinds = [];\nfor (let i = 0; i < 5; i++) { try { await pve.get(['/nodes', '..', 'x'].join('/')); } catch (e) { kinds.push((e as any).kind); } }\ntry { await pve.get('/version'); kinds.push('ok'); } catch (e) { kinds.push((e as any).kind); }\nreturn kinds;`,
      { cluster: 'calls5' },
    );
    expect(answer.result).toEqual(['invalid', 'invalid', 'invalid', 'invalid', 'invalid', 'budget']);
  }, 60_000);
});

describe('no secret in the audit', () => {
  const scripts: Array<[string, string, string]> = [
    ['a literal password parameter', "await pve.put('/nodes/pve1/qemu/118/config', { cipassword: 'Lit3ralSecret!' });", 'Lit3ralSecret!'],
    ['a password through a constant', "const pw = 'Const4ntSecret';\nawait pve.post('/access/users', { userid: 'eve@pve', password: pw });", 'Const4ntSecret'],
    ['a template-literal secret', "await pve.put('/nodes/pve1/qemu/118/config', { cipassword: `Templ4teSecret` });", 'Templ4teSecret'],
    ['a secret thrown back in an error', "const password = 'Thr0wnSecret42';\nthrow new Error('login failed with ' + password);", 'Thr0wnSecret42'],
  ];
  for (const [name, code, secret] of scripts) {
    it(`${name} is in no audit entry, the stored source included`, async () => {
      await noHuman.run(`try {\n${code}\n} finally { console.log('done'); }`);
      const text = noHuman.auditText();
      expect(text).toContain('done');
      expect(text).not.toContain(secret);
      expect(text).toContain('[redacted]');
    }, 60_000);
  }
});

describe('without a human in the loop, and out of band', () => {
  it('a write that needs approval is not sent; the plan is stored with the way to approve it', async () => {
    const { answer, sent } = await sentDuring(noHuman, [KEY_A, KEY_B], () => noHuman.run(`${A};\n${B};`));
    expect(answer.error?.kind).toBe('approval');
    expect([sent[KEY_A], sent[KEY_B]]).toEqual([0, 0]);
    expect(JSON.stringify(answer)).toMatch(/pve-code-mcp approve [0-9a-f]{64}/);
  }, 60_000);

  it('a declined approval sends nothing', async () => {
    human.answer = 'decline';
    const { answer, sent } = await sentDuring(withHuman, [KEY_A, KEY_B], () => withHuman.run(`${A};\n${B};`));
    expect(answer.error?.kind).toBe('approval');
    expect([sent[KEY_A], sent[KEY_B]]).toEqual([0, 0]);
  }, 60_000);

  it('a plan the human accepted through elicitation cannot be approved again out of band', async () => {
    const answer = await withHuman.run(`const upid = await pve.post('/nodes/pve1/qemu/118/snapshot', { snapname: 'accepted_once' });\nawait pve.waitTask(upid);\n${B};\nreturn 'ran';`);
    expect(answer.result, JSON.stringify(answer).slice(0, 800)).toBe('ran');
    const planId = (answer.plan as { planId: string }).planId;
    const again = await runCli(['approve', planId, '--yes', '--config', withHuman.configFile], { env: withHuman.env });
    expect(again.code).not.toBe(0);
    expect(again.stderr + again.stdout).toMatch(/already ran|--again/);
  }, 120_000);

  it('an out-of-band approval runs the plan once, bound; a second run needs a new approval', async () => {
    // The snapshot's task is waited for, so the next run does not see the guest change under it.
    const code = `const upid = await pve.post('/nodes/pve1/qemu/118/snapshot', { snapname: 'approved_once' });\nawait pve.waitTask(upid);\n${B};\nreturn 'approved run';`;
    const first = await noHuman.run(code);
    const planId = (first.plan as { planId: string }).planId;
    const approved = await runCli(['approve', planId, '--yes', '--config', noHuman.configFile], { env: noHuman.env });
    expect(approved.code, approved.stderr).toBe(0);
    const { answer, sent } = await sentDuring(noHuman, [KEY_A, KEY_B], () => noHuman.run(code));
    expect(answer.result, JSON.stringify(answer).slice(0, 2000)).toBe('approved run');
    expect([sent[KEY_A], sent[KEY_B]]).toEqual([1, 1]);
    const again = await sentDuring(noHuman, [KEY_A, KEY_B], () => noHuman.run(code));
    expect(again.answer.error?.kind, JSON.stringify(again.answer).slice(0, 1500)).toBe('approval');
    expect([again.sent[KEY_A], again.sent[KEY_B]]).toEqual([0, 0]);
    expect(readFileSync(noHuman.configFile, 'utf8')).toContain('stateDir');
  }, 120_000);
});
