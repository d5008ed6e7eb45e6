/**
 * Reading what a fault left behind: the audit entries of a state directory (every file of the
 * chain, oldest first) and the simulator's side of the same writes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningSimulator } from '../../src/simulator/index.js';

export interface Entry {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

export function auditEntries(stateDir: string): Entry[] {
  if (!existsSync(stateDir)) return [];
  const files = readdirSync(stateDir)
    .filter((n) => /^audit\.jsonl(\.\d{6})?$/.test(n))
    .sort((a, b) => (a === 'audit.jsonl' ? 1 : b === 'audit.jsonl' ? -1 : a.localeCompare(b)));
  const out: Entry[] = [];
  for (const f of files) {
    for (const line of readFileSync(join(stateDir, f), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        out.push(JSON.parse(line) as Entry);
      } catch {
        out.push({ seq: -1, type: 'torn', data: { line } });
      }
    }
  }
  return out;
}

/** The snapshot names the intents of these entries asked for (a snapshot POST's `snapname`). */
export function intendedSnapshots(entries: Entry[]): string[] {
  return entries
    .filter((e) => e.type === 'intent' && typeof e.data.path === 'string' && (e.data.path as string).endsWith('/snapshot'))
    .map((e) => String((e.data.params as Record<string, unknown> | undefined)?.snapname));
}

/** Snapshots whose names start with `prefix`, on every guest of the simulated cluster. */
export function simSnapshots(sim: RunningSimulator, prefix: string): string[] {
  return sim.cluster.guests().flatMap((g) => g.snapshots.map((s) => s.name).filter((n) => n.startsWith(prefix)));
}

export async function waitFor(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
