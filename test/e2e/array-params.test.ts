/**
 * Array parameters reach PVE as the schema declares them: the product's clients carry the
 * cluster's API model, so a `type: array` parameter goes out as repeated keys, not comma-joined.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProduct } from '../../bench/tokens/environment.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { RISK_CLASSES } from '../../src/schema/model.js';

describe("the product's clients encode parameters by the cluster's schema", () => {
  let sim: RunningSimulator;
  let env: Awaited<ReturnType<typeof openProduct>>;
  beforeAll(async () => {
    sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0 });
    env = await openProduct(sim);
  }, 60_000);
  afterAll(async () => {
    await env?.close();
    await sim?.close();
  });

  it('every class client has the model the runtime serves', () => {
    const runtime = env.product.cluster();
    // The model is parsed on first use (a cached schema is not parsed before the first tools/list): use it first.
    const model = runtime.model;
    for (const risk of RISK_CLASSES) expect(runtime.byClass[risk].apiModel).toBe(model);
    expect(runtime.client.apiModel).toBe(model);
  });
});
