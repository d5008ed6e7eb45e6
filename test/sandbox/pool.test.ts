/**
 * The sandbox worker pool as a desktop and a team server meet it: a fair share of workers per
 * principal (a flooding or hung principal leaves the others a worker; waiting principals take
 * turns), and workers that leave when idle down to the kept one, which sheds TypeScript. Nothing
 * here depends on timing: idle behaviour is polled for with a short idle setting.
 */
import { describe, expect, it, vi } from 'vitest';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import { fakeBridge } from './fake-bridge.js';

const HANG = "await pve.get('/hang'); return 'never';";

describe('fair share of workers', () => {
  it('a principal flooding the sandbox with hung runs does not hold up another principal', async () => {
    const engine = new SandboxEngine({ workers: 2 });
    const bridge = fakeBridge({ hangPaths: ['/hang'] });
    const stop = new AbortController();
    try {
      const flood = Array.from({ length: 6 }, () => engine.run({ code: HANG, typecheck: false, principal: 'alice', signal: stop.signal }, bridge.handler));
      let floodEnded = false;
      void Promise.all(flood).then(() => (floodEnded = true));
      await vi.waitFor(() => expect(bridge.inFlight()).toBe(1), { timeout: 20_000, interval: 20 });
      const one = await engine.run({ code: 'return 1;', typecheck: false, principal: 'bob' }, fakeBridge().handler);
      expect(one).toMatchObject({ ok: true, result: 1 });
      // alice holds one worker (her cap), the rest of her runs wait; none of them ended.
      expect(bridge.inFlight()).toBe(1);
      expect(floodEnded).toBe(false);
      expect(engine.stats.queued).toBe(5);
      stop.abort();
      expect((await Promise.all(flood)).every((o) => o.error?.kind === 'cancelled')).toBe(true);
    } finally {
      stop.abort();
      await engine.close();
    }
  });

  it('waiting principals take turns: a run queued behind another principal`s backlog goes next', async () => {
    const engine = new SandboxEngine({ workers: 1, perPrincipal: 1 });
    const hung = fakeBridge({ hangPaths: ['/hang'] });
    const stop = new AbortController();
    try {
      const compile = async (code: string) => {
        const c = await engine.compile({ code, typecheck: false });
        if (!c.ok) throw new Error(c.outcome.error?.message);
        return c.script;
      };
      const [hang, short] = await Promise.all([compile(HANG), compile("return 'x';")]);
      const order: string[] = [];
      const first = engine.execute(hang, hung.handler, { principal: 'alice', signal: stop.signal });
      await vi.waitFor(() => expect(hung.inFlight()).toBe(1), { timeout: 20_000, interval: 20 });
      const queued = [
        ['alice-2', 'alice'],
        ['alice-3', 'alice'],
        ['bob-1', 'bob'],
      ].map(([label, principal]) => engine.execute(short, fakeBridge().handler, { principal: principal as string }).then(() => order.push(label as string)));
      expect(engine.stats.queued).toBe(3);
      stop.abort();
      await first;
      await Promise.all(queued);
      expect(order).toEqual(['bob-1', 'alice-2', 'alice-3']);
    } finally {
      stop.abort();
      await engine.close();
    }
  });

  it('refuses a principal past its own queue, not the others', async () => {
    const engine = new SandboxEngine({ workers: 2, maxQueue: 1 });
    const bridge = fakeBridge({ hangPaths: ['/hang'] });
    const stop = new AbortController();
    try {
      const c = await engine.compile({ code: HANG, typecheck: false });
      if (!c.ok) throw new Error('compile failed');
      const held = engine.execute(c.script, bridge.handler, { principal: 'alice', signal: stop.signal });
      const waiting = engine.execute(c.script, bridge.handler, { principal: 'alice', signal: stop.signal });
      const refused = await engine.execute(c.script, bridge.handler, { principal: 'alice', signal: stop.signal });
      expect(refused.error).toMatchObject({ kind: 'budget', message: expect.stringContaining('1 of your runs already wait') });
      expect((await engine.run({ code: 'return 2;', typecheck: false, principal: 'bob' }, fakeBridge().handler)).result).toBe(2);
      stop.abort();
      await Promise.all([held, waiting]);
    } finally {
      stop.abort();
      await engine.close();
    }
  });
});

describe('idle workers', () => {
  it('workers start on demand, idle ones leave down to the kept one, and the kept one sheds TypeScript', async () => {
    const engine = new SandboxEngine({ workers: 2, perPrincipal: 2, warmWorkers: 1, idleMs: 200 });
    try {
      expect(engine.stats.workersAlive).toBe(0);
      const bridge = fakeBridge({ hangPaths: ['/hang'] });
      const stop = new AbortController();
      // Two at once: both workers start (each compiled a script, so each loaded TypeScript).
      const runs = [engine.run({ code: HANG, typecheck: false, signal: stop.signal }, bridge.handler), engine.run({ code: HANG, typecheck: false, signal: stop.signal }, bridge.handler)];
      await vi.waitFor(() => expect(bridge.inFlight()).toBe(2), { timeout: 20_000, interval: 20 });
      expect(engine.stats.workersAlive).toBe(2);
      stop.abort();
      await Promise.all(runs);
      const recycledBefore = engine.stats.workersRecycled;
      await vi.waitFor(
        () => {
          expect(engine.stats.workersIdled).toBe(1);
          // The kept worker had loaded the compiler: it was swapped for a fresh one.
          expect(engine.stats.workersRecycled).toBe(recycledBefore + 1);
        },
        { timeout: 20_000, interval: 50 },
      );
      expect(engine.stats.workersAlive).toBe(1);
      // Back on demand.
      expect((await engine.run({ code: 'return 3;', typecheck: false }, fakeBridge().handler)).result).toBe(3);
    } finally {
      await engine.close();
    }
  });
});
