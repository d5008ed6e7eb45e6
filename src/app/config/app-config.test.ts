import { describe, it, expect } from 'vitest';
import { PveConfigError } from '../../client/errors.js';
import { parseAppConfig } from './app-config.js';

const cluster = { url: 'https://pve.example:8006', auth: { tokenId: 'root@pam!ci', secret: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee' } };
const parse = (extra: Record<string, unknown>) => parseAppConfig({ clusters: { lab: cluster }, ...extra }, { source: 'test', baseDir: '/tmp', env: {} });

describe('sandbox.typecheck settings', () => {
  it('default every knob of the type-check process', async () => {
    expect((await parse({})).sandbox.typecheck).toEqual({ budgetMs: 1_000, recycleAfterChecks: 1_000, maxRssMb: 512, maxQueue: 64, idleMs: 60_000 });
    expect((await parse({ sandbox: { workers: 3 } })).sandbox).toEqual({
      workers: 3,
      warmWorkers: 1,
      idleMs: 60_000,
      confineWorker: true,
      typecheck: { budgetMs: 1_000, recycleAfterChecks: 1_000, maxRssMb: 512, maxQueue: 64, idleMs: 60_000 },
      callDeadlineMs: 55_000,
    });
  });

  it('keep what is set and default the rest', async () => {
    const config = await parse({ sandbox: { typecheck: { recycleAfterChecks: 50, maxRssMb: 300 } } });
    expect(config.sandbox.typecheck).toEqual({ budgetMs: 1_000, recycleAfterChecks: 50, maxRssMb: 300, maxQueue: 64, idleMs: 60_000 });
  });

  it('refuse out-of-range and unknown keys, naming them', async () => {
    await expect(parse({ sandbox: { typecheck: { maxRssMb: 16 } } })).rejects.toThrow(PveConfigError);
    await expect(parse({ sandbox: { typecheck: { maxRssMb: 16 } } })).rejects.toThrow(/sandbox\.typecheck\.maxRssMb/);
    await expect(parse({ sandbox: { typecheck: { recycleAfter: 5 } } })).rejects.toThrow(/sandbox\.typecheck/);
  });
});

describe('sandbox.confineWorker', () => {
  it('is on unless the configuration turns it off, and only takes a boolean', async () => {
    expect((await parse({})).sandbox.confineWorker).toBe(true);
    expect((await parse({ sandbox: { confineWorker: false } })).sandbox.confineWorker).toBe(false);
    await expect(parse({ sandbox: { confineWorker: 'no' } })).rejects.toThrow(/sandbox\.confineWorker/);
  });
});

describe('the call deadline and the drain', () => {
  it('default to an answer before the SDK client gives up (55 s) and a 10 s drain', async () => {
    const config = await parse({});
    expect(config.sandbox.callDeadlineMs).toBe(55_000);
    expect(config.shutdown).toEqual({ drainMs: 10_000 });
  });

  it('take longer values and refuse ones that cannot work, naming the key', async () => {
    const config = await parse({ sandbox: { callDeadlineMs: 300_000 }, shutdown: { drainMs: 30_000 } });
    expect([config.sandbox.callDeadlineMs, config.shutdown.drainMs]).toEqual([300_000, 30_000]);
    await expect(parse({ sandbox: { callDeadlineMs: 10 } })).rejects.toThrow(/sandbox\.callDeadlineMs/);
    await expect(parse({ shutdown: { drainMs: -1 } })).rejects.toThrow(/shutdown\.drainMs/);
    await expect(parse({ shutdown: { drain: 5 } })).rejects.toThrow(/shutdown/);
  });
});

describe('http.unmatched and the session caps', () => {
  it('default to reads only for unmatched principals, 16 sessions per principal and 256 in all', async () => {
    const { http } = await parse({});
    expect(http.unmatched).toEqual({ kind: 'read-only' });
    expect([http.sessionsPerPrincipal, http.maxSessions]).toEqual([16, 256]);
  });

  it('take refuse, cluster or a policy name, and refuse an unknown name naming the key', async () => {
    expect((await parse({ http: { unmatched: 'refuse' } })).http.unmatched).toEqual({ kind: 'refuse' });
    expect((await parse({ http: { unmatched: 'cluster' } })).http.unmatched).toEqual({ kind: 'cluster' });
    const named = (await parse({ policies: { guests: { preset: 'operator' } }, http: { unmatched: 'guests' } })).http.unmatched;
    expect(named.kind === 'policy' && named.policy.name).toBe('guests');
    await expect(parse({ http: { unmatched: 'nobody' } })).rejects.toThrow(/http\.unmatched.*no policy named 'nobody'/s);
  });
});
