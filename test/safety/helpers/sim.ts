/**
 * End-to-end setup for the safety tests: the project's simulator over real HTTPS, the real
 * PveClient against it, and (when the worker is built) the real sandbox engine.
 */
import { PveClient } from '../../../src/client/index.js';
import { locateWorker } from '../../../src/sandbox/locate.js';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/index.js';

export async function startSim(): Promise<RunningSimulator> {
  return startSimulator({ preset: 'demo', seed: 7, port: 0, authFailureDelayMs: 0, taskDurationMs: 30 });
}

export function clientFor(sim: RunningSimulator, token = sim.token): PveClient {
  return new PveClient({
    name: 'sim',
    url: sim.url,
    auth: { kind: 'token', tokenId: token.id, secret: token.secret },
    tls: { fingerprint: sim.fingerprint },
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
  });
}

/** Writes (non-GET operations) that reached the simulator's handlers since `before`, per `METHOD template`. */
export function writesSince(sim: RunningSimulator, before: Record<string, number>): Record<string, number> {
  const now = sim.counters.snapshot().byOperation;
  const out: Record<string, number> = {};
  for (const [key, n] of Object.entries(now)) {
    if (key.startsWith('GET ')) continue;
    const delta = n - (before[key] ?? 0);
    if (delta > 0) out[key] = delta;
  }
  return out;
}

/** Why the sandbox-driven variant is skipped, or undefined when the compiled worker exists. */
export function sandboxUnavailable(): string | undefined {
  try {
    locateWorker();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
