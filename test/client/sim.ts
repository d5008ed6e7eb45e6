/**
 * Shared setup for the client's end-to-end tests: a simulator on loopback (real HTTPS, no 401
 * delay) and clients configured against it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PveClient, type PveClientOptions, type PveLogger } from '../../src/client/index.js';
import { type RunningSimulator, type StartSimulatorOptions, startSimulator } from '../../src/simulator/index.js';

export async function startSim(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  return startSimulator({ preset: 'demo', seed: 7, port: 0, authFailureDelayMs: 0, taskDurationMs: 150, ...options });
}

/** A client that trusts the simulator by fingerprint; token auth unless `auth` says otherwise. */
export function clientFor(sim: RunningSimulator, overrides: Partial<PveClientOptions> = {}): PveClient {
  return new PveClient({
    name: 'sim',
    url: sim.url,
    auth: { kind: 'token', tokenId: sim.token.id, secret: sim.token.secret },
    tls: { fingerprint: sim.fingerprint },
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...overrides,
  });
}

export function ticketAuth(sim: RunningSimulator, extra: Record<string, unknown> = {}): PveClientOptions['auth'] {
  return { kind: 'ticket', username: 'root', realm: 'pam', password: sim.rootPassword, ...extra };
}

/** Collects log output so tests can assert on warnings. */
export function memoryLogger(): PveLogger & { warnings: string[]; debugs: string[] } {
  const warnings: string[] = [];
  const debugs: string[] = [];
  return { warnings, debugs, warn: (m) => warnings.push(m), debug: (m) => debugs.push(m) };
}

export async function tempDir(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Run `fn` and return what it threw (fails the test when it does not throw). */
export async function caught(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

/** A VM of the simulated cluster in the given state that is free to work on (no template, no lock). */
export function pickVm(sim: RunningSimulator, status: 'running' | 'stopped'): { node: string; vmid: number } {
  const g = sim.cluster.guests().find((x) => x.type === 'qemu' && x.status === status && !x.config.template && !x.config.lock);
  if (!g) throw new Error(`the simulator's preset has no free ${status} VM left`);
  return { node: g.node, vmid: g.vmid };
}
