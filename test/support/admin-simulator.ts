/**
 * A demo simulator (seed 7, tasks of 20 ms) over real HTTPS and an admin client on it, for the
 * lifetime of the test file that asks for it: the state is arranged and read with real requests.
 */
import { afterAll, beforeAll } from 'vitest';
import { PveClient } from '../../src/client/client.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';

export interface AdminSimulator {
  sim: RunningSimulator;
  admin: PveClient;
}

/** Call at the top of a test file; the fields are set once its `beforeAll` ran. */
export function useAdminSimulator(): AdminSimulator {
  const fixture = {} as AdminSimulator;
  beforeAll(async () => {
    fixture.sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0, seed: 7, taskDurationMs: 20 });
    fixture.admin = new PveClient({
      name: 'admin',
      url: fixture.sim.url,
      auth: { kind: 'token', tokenId: fixture.sim.token.id, secret: fixture.sim.token.secret },
      tls: { fingerprint: fixture.sim.fingerprint },
    });
  }, 60_000);
  afterAll(async () => {
    await fixture.admin?.close();
    await fixture.sim?.close();
  });
  return fixture;
}
