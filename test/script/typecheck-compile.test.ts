/**
 * `TypeCheckService.compileIfReady`: when the type-check process takes a run that skips the check
 * (ready, nothing queued; `servingProcess` says so), and that those compiles neither start it nor
 * keep it from leaving.
 * A hand-written child answers: checks hang, compiles answer at once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { miniSdkFiles } from '../sandbox/fixtures/mini-sdk.js';
import { TypeCheckService } from '../../src/script/typecheck-service.js';

const COMPILED = { transpiled: { ok: true, js: 'return 1;', lines: 1, calls: [] }, secrets: { literals: [], spans: [] } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('TypeCheckService.compileIfReady', () => {
  let dir: string;
  let entry: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'typecheck-compile-test-'));
    entry = path.join(dir, 'child.mjs');
    writeFileSync(
      entry,
      `process.send({ type: 'ready', pid: process.pid });
process.on('message', (m) => {
  if (m.type === 'load') process.send({ type: 'loaded', id: m.id, ms: 1, rssMb: 1 });
  else if (m.type === 'compile') process.send({ type: 'compiled', id: m.id, ...${JSON.stringify(COMPILED)}, rssMb: 1 });
});
process.on('disconnect', () => process.exit(0));
`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const service = (idleMs = 60_000) => {
    const checkers = new TypeCheckService({ entry, log: () => undefined, graceMs: 60_000, idleMs });
    checkers.checker(miniSdkFiles);
    return checkers;
  };

  it('compiles while the process is ready and nothing is queued', async () => {
    const checkers = service();
    try {
      await checkers.warm();
      expect(checkers.servingProcess()).toEqual({ pid: checkers.pid, ready: true });
      expect(await checkers.compileIfReady('return 1;', 5_000)).toEqual({ compiled: COMPILED });
      expect(checkers.stats).toMatchObject({ compiles: 1, processesStarted: 1 });
    } finally {
      await checkers.close();
    }
  });

  it('cold or closed: declines at once and starts nothing', async () => {
    const checkers = service();
    expect(checkers.servingProcess()).toBeUndefined();
    expect(await checkers.compileIfReady('return 1;', 5_000)).toBeUndefined();
    expect(checkers.stats.processesStarted).toBe(0);
    await checkers.warm();
    await checkers.close();
    expect(checkers.servingProcess()).toBeUndefined();
    expect(await checkers.compileIfReady('return 1;', 5_000)).toBeUndefined();
  });

  it('declines while checks wait in the queue: an unchecked run does not wait behind them', async () => {
    const checkers = service();
    try {
      await checkers.warm();
      const remote = checkers.checker(miniSdkFiles);
      // The first check is in flight (this child never answers checks), the second waits.
      void remote.check('return 1;');
      void remote.check('return 2;');
      await sleep(50);
      expect(checkers.stats.queued).toBe(1);
      expect(checkers.servingProcess()).toEqual({ pid: checkers.pid, ready: false });
      expect(await checkers.compileIfReady('return 1;', 5_000)).toBeUndefined();
      expect(checkers.stats.compiles).toBe(0);
    } finally {
      await checkers.close();
    }
  });

  it('compiles do not keep the process from leaving: its idle time counts from the last check', async () => {
    const checkers = service(400);
    try {
      await checkers.warm();
      const until = performance.now() + 1_500;
      while (performance.now() < until && checkers.stats.idleStops === 0) {
        await checkers.compileIfReady('return 1;', 5_000);
        await sleep(50);
      }
      expect(checkers.stats.idleStops).toBe(1);
      expect(checkers.stats.compiles).toBeGreaterThan(0);
      await vi.waitFor(() => expect(checkers.pid).toBeUndefined());
    } finally {
      await checkers.close();
    }
  });
});
