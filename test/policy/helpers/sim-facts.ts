/**
 * The facts of one call as the bridge and the preflight resolve them, on the demo simulator serving
 * the official 9.1 schema: the request read as PVE's handler reads it, then the guests it reaches
 * looked up on the simulator. For suites that decide calls with the pure `decideCall` instead of
 * running scripts.
 */
import { afterAll, beforeAll } from 'vitest';
import { PveClient } from '../../../src/client/index.js';
import { resolveFacts, type CallFacts } from '../../../src/policy/facts.js';
import { GuestDirectory } from '../../../src/policy/guests.js';
import type { Policy } from '../../../src/policy/policy.js';
import { resolveRequest, type ResolvedRequest } from '../../../src/policy/request.js';
import type { HttpMethod } from '../../../src/schema/model.js';
import { officialSchemaFile } from '../../../src/schema/official-schemas.js';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/index.js';

export interface SimFacts {
  /** The request as resolved against the simulator's schema, and its facts under the policy. */
  factsOf(policy: Policy, method: HttpMethod, path: string, params: Record<string, unknown>): Promise<{ request: ResolvedRequest; facts: CallFacts }>;
}

/** Starts the simulator before the file's tests and stops it after them. */
export function useSimFacts(): SimFacts {
  let sim: RunningSimulator;
  let client: PveClient;
  beforeAll(async () => {
    sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0, schemaFile: officialSchemaFile('9.1') });
    client = new PveClient({ name: 'sim', url: sim.url, auth: { kind: 'token', tokenId: sim.token.id, secret: sim.token.secret }, tls: { fingerprint: sim.fingerprint } });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await sim?.close();
  });
  return {
    async factsOf(policy, method, path, params) {
      const request = resolveRequest(sim.model, method, path, params);
      const facts = await resolveFacts(
        { cluster: 'sim', operation: request.operation, pathValues: request.pathValues, params: request.params, concretePath: request.concretePath },
        policy,
        new GuestDirectory(() => client),
      );
      return { request, facts };
    },
  };
}
