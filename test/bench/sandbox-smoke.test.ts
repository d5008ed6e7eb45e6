/**
 * Smoke run of the sandbox benchmark (`--quick`): every table is produced and every benchmarked
 * script succeeds (a failing one throws), including the simulator started as its own process.
 * Correctness only — the figures are `npm run bench`'s business, never asserted here.
 */
import { describe, expect, it } from 'vitest';
import { sandboxSuite } from '../../bench/sandbox.js';

describe('sandbox benchmark smoke run', () => {
  it('produces the overhead, type-check and bridge tables', async () => {
    const tables = await sandboxSuite({ quick: true });
    expect(tables.map((t) => t.title)).toEqual([expect.stringMatching(/^run_script overhead/), expect.stringMatching(/^type-check/), expect.stringMatching(/^bridge throughput/)]);
    const [floor, ...rows] = tables[2]?.rows ?? [];
    expect(String(floor?.[0])).toMatch(/^channel round trip between two Node processes/);
    expect(Number(floor?.[2])).toBeGreaterThan(0);
    const setups = new Set(rows.map((row) => String(row[0]).split(':')[0]));
    expect([...setups]).toEqual(['simulator in its own process', 'simulator in this process', 'node answering in 5 ms']);
    for (const row of rows) expect(Number(row[1]), String(row[0])).toBeGreaterThan(0);
  }, 240_000);
});
