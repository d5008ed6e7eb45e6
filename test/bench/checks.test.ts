/**
 * The token benchmark's answer checks must be able to fail: each task's ideal tool-per-operation
 * answer passes its check, and the same answer with one item removed or one ID changed does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PveClient } from '../../src/client/client.js';
import type { HttpMethod } from '../../src/schema/model.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { directClient } from '../../bench/tokens/environment.js';
import { prepareScenario, type ScenarioFacts } from '../../bench/tokens/scenario.js';
import { Truth } from '../../bench/tokens/task.js';
import { TOKEN_TASKS } from '../../bench/tokens/tasks.js';

/** The answer with its first list item dropped (searching nested objects), or its VMID changed. */
function perturb(answer: unknown): unknown {
  if (Array.isArray(answer)) return answer.length > 0 ? answer.slice(1) : [{ vmid: 1 }];
  if (answer !== null && typeof answer === 'object') {
    const record = answer as Record<string, unknown>;
    const listKey = Object.keys(record).find((k) => Array.isArray(record[k]) && (record[k] as unknown[]).length > 0);
    if (listKey) return { ...record, [listKey]: (record[listKey] as unknown[]).slice(1) };
    if (typeof record.vmid === 'number') return { ...record, vmid: record.vmid + 1 };
  }
  return null;
}

describe('token benchmark answer checks', () => {
  let sim: RunningSimulator;
  let facts: ScenarioFacts;
  let pve: PveClient;

  beforeAll(async () => {
    const clockMs = Math.floor(Date.now() / 1000) * 1000;
    sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0, taskDurationMs: 0, clock: () => clockMs });
    facts = prepareScenario(sim);
    pve = directClient(sim);
  });

  afterAll(async () => {
    await pve?.close();
    await sim?.close();
  });

  it('accept the right answer and reject a damaged one, for every task in order', async () => {
    const api = { call: (method: HttpMethod, path: string, params?: Record<string, unknown>) => pve.request(method, path, params) };
    const truth = new Truth(sim, facts);
    for (const task of TOKEN_TASKS) {
      const check = task.expect(truth);
      const answer = await task.toolPerOperation(api, facts);
      expect({ task: task.id, problems: check(answer) }).toEqual({ task: task.id, problems: [] });
      expect(check(perturb(answer)), `${task.id}: a damaged answer must not pass`).not.toEqual([]);
      expect(check(null), `${task.id}: no answer must not pass`).not.toEqual([]);
    }
  }, 60_000);
});
