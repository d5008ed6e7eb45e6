/**
 * Many writers, one chain: several processes append to one audit log at once (with rotation),
 * open it at the same moment on a fresh directory, and verify it while others write. The chain
 * must verify with no problem and no false alarm, and hold every entry exactly once.
 * Runs the built code (`npm run build`, which `npm test` does) in real child processes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rotatedFiles } from '../../src/audit/file-scan.js';
import { verifyAudit } from '../../src/audit/verify.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const WRITER = join(HERE, 'fixtures', 'writer.mjs');
const BUILT = resolve(HERE, '..', '..', 'dist', 'src', 'audit', 'log.js');
if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first (npm test does)`);

const KEY = 'multi-writer-test-key-0123456789';
let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-mw-'));
  file = join(dir, 'audit.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writer(id: number, count: number, maxBytes: number): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [WRITER, file, String(id), String(count), String(maxBytes), KEY], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise() : reject(new Error(`writer ${id} exited ${code}: ${stderr}`))));
  });
}

function allEntries(): Array<{ type: string; seq: number; data: Record<string, unknown> }> {
  return [...rotatedFiles(file).map((f) => f.path), file].flatMap((p) =>
    readFileSync(p, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; seq: number; data: Record<string, unknown> }),
  );
}

describe('several processes append to one audit log', () => {
  it('four writers with rotation leave one chain that verifies, each run exactly once, no alert', async () => {
    const writers = 4;
    const runs = 150;
    await Promise.all(Array.from({ length: writers }, (_, i) => writer(i, runs, 40_000)));
    const v = verifyAudit(file, { hmacKey: KEY });
    expect(v.problems).toEqual([]);
    expect(v.warnings).toEqual([]);
    expect(v.files.length).toBeGreaterThan(3); // rotated under contention
    const entries = allEntries();
    expect(entries.filter((e) => e.type === 'alert')).toEqual([]);
    const started = entries.filter((e) => e.type === 'run-start').map((e) => String(e.data.runId));
    expect(started).toHaveLength(writers * runs);
    expect(new Set(started).size).toBe(writers * runs);
    expect(v.runs).toEqual({ started: writers * runs, finished: writers * runs });
    // One total order: seq is 0..n-1 across all files.
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i));
  }, 60_000);

  it('writers opening a fresh directory at the same moment raise no anchor alarm', async () => {
    await Promise.all(Array.from({ length: 3 }, (_, i) => writer(i, 5, 16 * 1024 * 1024)));
    const entries = allEntries();
    expect(entries.filter((e) => e.type === 'alert')).toEqual([]);
    expect(entries.filter((e) => e.type === 'head')).toHaveLength(1);
    expect(verifyAudit(file, { hmacKey: KEY }).ok).toBe(true);
  }, 60_000);

  it('a verification while writers run sees a consistent snapshot (no false problem)', async () => {
    // Enough entries that the writers are still at it across several verifications.
    const running = Promise.all(Array.from({ length: 3 }, (_, i) => writer(i, 1500, 400_000)));
    let checks = 0;
    let done = false;
    void running.finally(() => (done = true));
    while (!done) {
      if (existsSync(file)) {
        const v = verifyAudit(file, { hmacKey: KEY });
        expect(v.problems).toEqual([]);
        // Only verifications that overlapped the writers count.
        if (!done) checks++;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await running;
    // Writers hold the lock as a lease while they append in bursts, so how many verifications fit
    // in depends on the machine; at least one must have run while they wrote.
    expect(checks).toBeGreaterThan(0);
    expect(verifyAudit(file, { hmacKey: KEY }).ok).toBe(true);
  }, 60_000);
});
