/**
 * The type-check process with real child processes: the built entry (dist/, from `npm run build`)
 * for behaviour, and small hand-written entries for a child that hangs or talks garbage.
 */
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { miniModel, miniSdkFiles } from '../sandbox/fixtures/mini-sdk.js';
import { writeFakeTypecheckChild } from '../support/fake-typecheck-child.js';
import { locateTypeCheckEntry } from '../../src/script/typecheck-process.js';
import { checkerToHostSchema } from '../../src/script/typecheck-protocol.js';
import { TypeCheckService } from '../../src/script/typecheck-service.js';
import { transpileToText } from '../../src/script/transpile.js';
import { ScriptChecker } from '../../src/script/typecheck.js';
import { type CheckResult } from '../../src/script/checker.js';

const SCRIPTS = [
  "const vms = await pve.get('/nodes/{node}/qemu', { node: 'pve1' });\nreturn vms.filter((v) => v.status === 'running').map((v) => v.vmid);",
  "await pve.get('/nodes/{node}/qemu', { node: 'pve1', fulll: true });",
  "await pve.gett('/version');\nawait pve.get('/nodes/pve1/qemuu');",
  "await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 'one' });",
  'const x: number = JSON.parse("1");\nlet y = x.toFixedd(2);\nsetTimeout(() => 1, 5);',
  'const a = ;',
];
const OK_SCRIPT = SCRIPTS[0] as string;

const withoutTime = ({ ms: _ms, ...rest }: CheckResult) => rest;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Direct children of this process (Linux), to prove none is left behind. */
function childPids(): number[] {
  const dir = `/proc/${process.pid}/task`;
  return readdirSync(dir).flatMap((task) => {
    const file = path.join(dir, task, 'children');
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
  });
}

async function gone(pids: number[]): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (!childPids().some((p) => pids.includes(p))) return true;
    await sleep(25);
  }
  return false;
}

describe('TypeCheckService with the built entry', () => {
  let local: ScriptChecker;
  beforeAll(() => {
    local = new ScriptChecker({ files: miniSdkFiles, model: miniModel() });
    local.warm();
  });

  it('leaves when idle and comes back for the next check', async () => {
    const checkers = new TypeCheckService({ idleMs: 100 });
    try {
      const remote = checkers.checker(miniSdkFiles, miniModel());
      expect((await remote.check(OK_SCRIPT)).ok).toBe(true);
      const first = checkers.pid as number;
      expect(childPids()).toContain(first);
      await vi.waitFor(() => expect(checkers.stats.idleStops).toBe(1), { timeout: 10_000, interval: 20 });
      expect(checkers.pid).toBeUndefined();
      expect(await gone([first])).toBe(true);
      const again = await remote.checkAndTranspile(OK_SCRIPT);
      expect(again.result.ok).toBe(true);
      expect(again.transpiled).toBeDefined();
      expect(checkers.stats).toMatchObject({ processesStarted: 2, failures: 0, skipped: 0 });
    } finally {
      await checkers.close();
    }
  });

  it('checks in another process and says exactly what the in-process checker says', async () => {
    const checkers = new TypeCheckService();
    try {
      const remote = checkers.checker(miniSdkFiles, miniModel());
      expect(remote.hash).toBe(local.hash);
      await checkers.warm();
      expect(checkers.pid).toBeDefined();
      expect(checkers.pid).not.toBe(process.pid);
      for (const code of SCRIPTS) expect(withoutTime(await remote.check(code))).toEqual(withoutTime(local.check(code)));
      // The budget travels too (JSON has no Infinity: the unbounded budget must survive the trip).
      expect(withoutTime(await remote.check(SCRIPTS[1] as string, { budgetMs: Number.POSITIVE_INFINITY }))).toEqual(withoutTime(local.check(SCRIPTS[1] as string)));
      const starved = await remote.check(SCRIPTS[3] as string, { budgetMs: -1 });
      expect(starved.timedOut).toBe(true);
      expect(starved.warnings.map((w) => w.message).join()).toMatch(/type-check skipped: it needed more than/);
      expect(checkers.stats).toMatchObject({ processesStarted: 1, checks: SCRIPTS.length + 2, skipped: 0, coldWaits: 0, failures: 0 });
    } finally {
      await checkers.close();
    }
  });

  it('transpiles for the sandbox with the check: the same JavaScript and map as here; a syntax error answers without a check', async () => {
    const checkers = new TypeCheckService();
    try {
      const remote = checkers.checker(miniSdkFiles, miniModel());
      for (const code of SCRIPTS) {
        const answer = await remote.checkAndTranspile(code);
        const here = transpileToText(code);
        // With the calls the preflight reads: the server parses nothing.
        expect(answer.transpiled).toEqual(here);
        if (here.ok) expect(withoutTime(answer.result)).toEqual(withoutTime(local.check(code)));
        else expect(withoutTime(answer.result)).toEqual({ ok: true, errors: [], warnings: [], timedOut: false });
      }
      // A plain check does not pay for a transpilation.
      expect((await checkers.check(remote['set'], OK_SCRIPT)).transpiled).toBeUndefined();
    } finally {
      await checkers.close();
    }
    // A skipped check carries no transpilation: the caller transpiles itself.
    expect((await checkers.checker(miniSdkFiles, miniModel()).checkAndTranspile(OK_SCRIPT)).transpiled).toBeUndefined();
  });

  it('starts on demand and serves several declaration sets, one registered after the start', async () => {
    const checkers = new TypeCheckService();
    try {
      const mini = checkers.checker(miniSdkFiles, miniModel());
      expect((await mini.check("await pve.get('/nodes/pve1/qemuu');")).ok).toBe(false);
      const loose = checkers.checker([{ fileName: 'pve.d.ts', text: 'declare const pve: { get(path: string): Promise<unknown> };' }]);
      expect((await loose.check("await pve.get('/nodes/pve1/qemuu');")).ok).toBe(true);
      expect((await loose.check("await pve.gett('/x');")).ok).toBe(false);
      expect(checkers.stats).toMatchObject({ processesStarted: 1, coldWaits: 1, skipped: 0 });
    } finally {
      await checkers.close();
    }
  });

  it('recycles after N checks without any check waiting for a cold start', async () => {
    const checkers = new TypeCheckService({ recycleAfterChecks: 3 });
    try {
      const remote = checkers.checker(miniSdkFiles, miniModel());
      await checkers.warm();
      const pids = new Set<number | undefined>();
      const expected = withoutTime(local.check(OK_SCRIPT));
      for (let i = 0; checkers.stats.recycled < 1; i++) {
        pids.add(checkers.pid);
        expect(withoutTime(await remote.check(OK_SCRIPT))).toEqual(expected);
        expect(i).toBeLessThan(5_000);
      }
      expect(pids.size).toBe(1);
      expect((await remote.check(OK_SCRIPT)).ok).toBe(true);
      expect(checkers.pid).not.toBe([...pids][0]);
      // The old process kept answering while its replacement warmed up.
      expect(checkers.stats).toMatchObject({ coldWaits: 0, skipped: 0, failures: 0 });
      expect(checkers.stats.checks).toBeGreaterThan(3);
    } finally {
      await checkers.close();
    }
  });

  it('recycles once the process passes its RSS limit', async () => {
    const checkers = new TypeCheckService({ maxRssMb: 1 });
    try {
      const remote = checkers.checker(miniSdkFiles, miniModel());
      await checkers.warm();
      while (checkers.stats.recycled < 1) expect((await remote.check(OK_SCRIPT)).ok).toBe(true);
      expect(checkers.stats).toMatchObject({ coldWaits: 0, skipped: 0 });
    } finally {
      await checkers.close();
    }
  });

  it('a killed process skips that check with a warning, and the next check works', async () => {
    const lines: string[] = [];
    const checkers = new TypeCheckService({ log: (line) => lines.push(line) });
    try {
      const remote = checkers.checker(miniSdkFiles, miniModel());
      await checkers.warm();
      const pid = checkers.pid as number;
      const pending = remote.check("await pve.gett('/version');");
      process.kill(pid, 'SIGKILL');
      const skipped = await pending;
      expect(skipped.ok).toBe(true);
      expect(skipped.errors).toEqual([]);
      expect(skipped.warnings).toHaveLength(1);
      expect(skipped.warnings[0]?.message).toMatch(/^type-check failed and was skipped: .*type-check process/);
      const next = await remote.check("await pve.gett('/version');");
      expect(next.ok).toBe(false);
      expect(next.errors[0]?.hint).toBe("did you mean 'get'?");
      expect(checkers.pid).not.toBe(pid);
      expect(checkers.stats).toMatchObject({ failures: 1, skipped: 1, processesStarted: 2 });
      // Exited, or the pipe broke first when the check was sent: the same loss either way.
      expect(lines).toEqual([expect.stringMatching(/^(the type-check process exited \(SIGKILL\)|cannot send to the type-check process: .*); starting a new one$/)]);
    } finally {
      await checkers.close();
    }
  });

  it('skips checks beyond the queue bound at once', async () => {
    const checkers = new TypeCheckService({ maxQueue: 1 });
    try {
      const remote = checkers.checker(miniSdkFiles, miniModel());
      await checkers.warm();
      const [a, b, c] = await Promise.all([remote.check(OK_SCRIPT), remote.check(OK_SCRIPT), remote.check(OK_SCRIPT)]);
      expect([a?.warnings, b?.warnings]).toEqual([[], []]);
      expect(c?.warnings[0]?.message).toMatch(/skipped: 1 checks are already waiting/);
    } finally {
      await checkers.close();
    }
  });

  it('close() leaves no process behind, a replacement being warmed included', async () => {
    const checkers = new TypeCheckService({ recycleAfterChecks: 1 });
    const remote = checkers.checker(miniSdkFiles, miniModel());
    await checkers.warm();
    await remote.check(OK_SCRIPT);
    const before = childPids();
    expect(before.length).toBeGreaterThanOrEqual(1);
    await checkers.close();
    expect(await gone(before)).toBe(true);
    expect((await remote.check(OK_SCRIPT)).warnings[0]?.message).toMatch(/skipped: the type-check process is closed/);
  });

  it('the child refuses a malformed request and says so', async () => {
    const child = fork(locateTypeCheckEntry(), [], { env: {}, execArgv: [], stdio: ['ignore', 'ignore', 'ignore', 'ipc'], serialization: 'json' });
    try {
      const messages: unknown[] = [];
      child.on('message', (m) => messages.push(m));
      while (messages.length < 1) await sleep(10);
      child.send({ type: 'check', id: 1, setId: 'x', code: 1 });
      while (messages.length < 2) await sleep(10);
      expect(checkerToHostSchema.parse(messages[1])).toMatchObject({ type: 'fatal', message: expect.stringMatching(/malformed message/) });
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('TypeCheckService with a misbehaving child', () => {
  let dir: string;
  /** A child that starts and loads like the real one, then answers checks as `onCheck` says. */
  const entry = (name: string, onCheck: string): string => writeFakeTypecheckChild(dir, name, onCheck);
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'typecheck-service-test-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function firstCheck(file: string, options: { budgetMs?: number; graceMs?: number } = {}): Promise<{ result: CheckResult; pid: number; checkers: TypeCheckService; lines: string[] }> {
    const lines: string[] = [];
    const checkers = new TypeCheckService({ entry: file, log: (line) => lines.push(line), ...options });
    const remote = checkers.checker(miniSdkFiles);
    await checkers.warm();
    const pid = checkers.pid as number;
    return { result: await remote.check(OK_SCRIPT), pid, checkers, lines };
  }

  it('rejects a malformed answer: the check is skipped and the process killed', async () => {
    const { result, pid, checkers, lines } = await firstCheck(entry('garbage', "process.send({ type: 'result', id: m.id, result: { ok: 'yes' }, rssMb: 1 });"));
    try {
      expect(result.ok).toBe(true);
      expect(result.warnings[0]?.message).toMatch(/^type-check failed and was skipped: the type-check process sent a malformed message \(result/);
      expect(await gone([pid])).toBe(true);
      expect(checkers.stats.failures).toBe(1);
      expect(lines).toEqual([expect.stringMatching(/malformed message .*; it was killed; starting a new one$/)]);
    } finally {
      await checkers.close();
    }
  });

  it('rejects an answer to a request it never made, or of the wrong kind', async () => {
    const answers = {
      stray: "process.send({ type: 'result', id: m.id + 7, result: { ok: true, errors: [], warnings: [], timedOut: false, ms: 1 }, rssMb: 1 });",
      wrongKind: "process.send({ type: 'loaded', id: m.id, ms: 1, rssMb: 1 });",
    };
    for (const [name, answer] of Object.entries(answers)) {
      const { result, pid, checkers } = await firstCheck(entry(name, answer));
      try {
        expect(result.warnings[0]?.message).toMatch(/answered a request it was not asked \((result|loaded)\); it was killed/);
        expect(await gone([pid])).toBe(true);
        expect(checkers.stats.failures).toBe(1);
      } finally {
        await checkers.close();
      }
    }
  });

  it('kills a process that misses budget + grace; the check reports skipped and timed out', async () => {
    const { result, pid, checkers } = await firstCheck(entry('hang', '/* never answers */'), { budgetMs: 20, graceMs: 50 });
    try {
      expect(result).toMatchObject({ ok: true, timedOut: true, errors: [] });
      expect(result.warnings[0]?.message).toMatch(/^type-check failed and was skipped: the check took more than 70 ms; the type-check process was killed/);
      expect(await gone([pid])).toBe(true);
    } finally {
      await checkers.close();
    }
  });

  it('a set that cannot be built is skipped alone; the other sets keep working', async () => {
    const file = path.join(dir, 'picky.mjs');
    writeFileSync(
      file,
      `process.send({ type: 'ready', pid: process.pid });
process.on('message', (m) => {
  if (m.type === 'load' && m.set.files[0].fileName === 'broken.d.ts') process.send({ type: 'failed', id: m.id, message: 'the declarations broke the compiler' });
  else if (m.type === 'load') process.send({ type: 'loaded', id: m.id, ms: 1, rssMb: 1 });
  else process.send({ type: 'result', id: m.id, result: { ok: false, errors: [{ line: 1, col: 1, severity: 'error', message: 'checked in ' + m.setId }], warnings: [], timedOut: false, ms: 1 }, rssMb: 1 });
});
process.on('disconnect', () => process.exit(0));
`,
    );
    const lines: string[] = [];
    const checkers = new TypeCheckService({ entry: file, log: (line) => lines.push(line) });
    try {
      const good = checkers.checker(miniSdkFiles);
      const broken = checkers.checker([{ fileName: 'broken.d.ts', text: 'declare const pve: unknown;' }]);
      await checkers.warm();
      expect(lines.join('\n')).toMatch(/declaration set .* could not be built: .*broke the compiler/);
      expect((await good.check(OK_SCRIPT)).errors[0]?.message).toBe(`checked in ${good.hash}`);
      expect((await broken.check(OK_SCRIPT)).warnings[0]?.message).toMatch(/skipped: loading declaration set .* failed in the type-check process: the declarations broke the compiler/);
      expect((await good.check(OK_SCRIPT)).ok).toBe(false);
      expect(checkers.stats).toMatchObject({ processesStarted: 1, failures: 0 });
    } finally {
      await checkers.close();
    }
  });

  it('anticipate() starts the process in the background once: not while one serves or starts, nor after close or a failed start', async () => {
    const checkers = new TypeCheckService({ entry: entry('quiet', ''), log: () => undefined });
    try {
      checkers.checker(miniSdkFiles);
      checkers.anticipate();
      // On its way: nothing more starts.
      checkers.anticipate();
      await vi.waitFor(() => expect(checkers.pid).toBeDefined(), { timeout: 10_000, interval: 20 });
      checkers.anticipate();
      expect(checkers.stats.processesStarted).toBe(1);
    } finally {
      await checkers.close();
    }
    checkers.anticipate();
    expect(checkers.stats.processesStarted).toBe(1);

    const lines: string[] = [];
    const failing = new TypeCheckService({ entry: path.join(dir, 'missing.mjs'), log: (line) => lines.push(line) });
    try {
      failing.anticipate();
      await vi.waitFor(() => expect(lines.join('\n')).toMatch(/could not be warmed/), { timeout: 10_000, interval: 20 });
      const started = failing.stats.processesStarted;
      // The start failed a moment ago (logged once): a get_schema now does not fork again.
      failing.anticipate();
      expect(failing.stats.processesStarted).toBe(started);
      expect(lines.filter((l) => /could not be warmed/.test(l))).toHaveLength(1);
    } finally {
      await failing.close();
    }
  });

  it('a process that cannot start makes checks skip instead of hang', async () => {
    const checkers = new TypeCheckService({ entry: path.join(dir, 'missing.mjs'), log: () => undefined });
    try {
      const remote = checkers.checker(miniSdkFiles);
      const first = await remote.check(OK_SCRIPT);
      expect(first.warnings[0]?.message).toMatch(/skipped: the type-check process exited \(code 1\)/);
      const second = await remote.check(OK_SCRIPT);
      expect(second.warnings[0]?.message).toMatch(/could not start .*retrying/);
    } finally {
      await checkers.close();
    }
  });
});
