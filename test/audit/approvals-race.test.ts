/**
 * Approvals are single-use across processes: several processes claim the same approvals at the
 * same instant, and each approval goes to exactly one of them. Runs the built code in real child
 * processes (`npm run build`, which `npm test` does).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalStore } from '../../src/safety/approval.js';
import { deletePlan } from '../support/delete-plan.js';

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const CLAIMER = join(HERE, 'fixtures', 'claimer.mjs');
if (!existsSync(resolve(HERE, '..', '..', 'dist', 'src', 'safety', 'approval.js'))) throw new Error('dist is missing: run `npm run build` first (npm test does)');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'approvals-race-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('approvals raced for by several processes', () => {
  it('each approval is consumed exactly once', async () => {
    const store = new ApprovalStore(dir);
    const plans = Array.from({ length: 20 }, (_, i) => deletePlan(i));
    for (const p of plans) {
      store.savePlan(p);
      store.approve(p.planId);
    }
    const startAt = Date.now() + 700;
    const outputs = await Promise.all(Array.from({ length: 4 }, (_, i) => run(process.execPath, [CLAIMER, dir, String(startAt), `proc-${i}`, ...plans.map((p) => p.codeHash)])));
    const won = outputs.flatMap((o) => (JSON.parse(o.stdout) as { won: string[] }).won);
    expect(won.sort()).toEqual(plans.map((p) => p.planId).sort());
    const consumes = readFileSync(join(dir, 'approvals.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; planId: string })
      .filter((r) => r.type === 'consume');
    expect(consumes).toHaveLength(plans.length);
    for (const p of plans) expect(store.status(p.planId)?.status).toBe('ran');
  }, 60_000);
});
