/**
 * A bridge handler on the simulator, as a live run has one: the demo cluster (seed 7) over real
 * HTTPS, a token client on it that knows its model, and the operator preset. For the tests that
 * follow one call through the bridge to PVE and back.
 */
import { afterAll, beforeAll } from 'vitest';
import { createBridgeHandler } from '../../src/bridge/handler.js';
import type { BridgeHandler } from '../../src/bridge/protocol.js';
import { PveClient } from '../../src/client/client.js';
import { RunClusters, classClients } from '../../src/policy/clusters.js';
import { Policy } from '../../src/policy/policy.js';
import { Budgets } from '../../src/safety/budget.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';

export interface SimBridge {
  sim: RunningSimulator;
  client: PveClient;
  /** A fresh live handler (its own budgets and counters) under the operator preset. */
  handler(runId: string): BridgeHandler;
}

/** Call at the top of a test file; the simulator and the client are there once its `beforeAll` ran. */
export function useSimBridge(): SimBridge {
  const fixture = {
    handler(runId: string): BridgeHandler {
      const policy = Policy.fromConfig({ preset: 'operator' });
      return createBridgeHandler({
        runId,
        clusters: new RunClusters({ name: 'sim', model: fixture.sim.model, policy, client: fixture.client, byClass: classClients(fixture.client) }),
        budgets: new Budgets('sim', () => policy.budgetLimits),
        mode: 'live',
      });
    },
  } as SimBridge;
  beforeAll(async () => {
    fixture.sim = await startSimulator({ preset: 'demo', seed: 7, port: 0, authFailureDelayMs: 0 });
    fixture.client = new PveClient({
      name: 'sim',
      url: fixture.sim.url,
      auth: { kind: 'token', tokenId: fixture.sim.token.id, secret: fixture.sim.token.secret },
      tls: { fingerprint: fixture.sim.fingerprint },
      apiModel: fixture.sim.model,
    });
  });
  afterAll(async () => {
    await fixture.client?.close();
    await fixture.sim?.close();
  });
  return fixture;
}
