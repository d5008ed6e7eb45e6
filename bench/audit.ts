/**
 * `audit` suite: what the many-writer audit costs per entry.
 *
 * Every append takes the inter-process lock (an atomic mkdir of `<file>.lock` via proper-lockfile),
 * checks where the chain really ends (stat; the tail is read only when another process wrote),
 * appends its HMAC-chained line and releases. Measured here:
 *  - the lock alone (acquire + release around nothing);
 *  - an append as it was without the lock (render, HMAC, one write: the floor);
 *  - an append with the lock, one process;
 *  - three processes appending to one log at once (wall time per entry over all of them, and the
 *    chain verified afterwards), with 1 MiB rotation;
 *  - the write-ahead cost: an audited write (its `call` entry) alone, against the same write
 *    preceded by its durable `intent` (fdatasync per intent, the default) and by an intent left
 *    in the page cache (`durability: 'os'`), side by side.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryHash } from '../src/audit/entry.js';
import { withFileLock } from '../src/files/lock.js';
import { AuditLog } from '../src/audit/log.js';
import { verifyAudit } from '../src/audit/verify.js';
import type { SuiteContext } from './lib/suite.js';
import { median, percentile, type Table } from './lib/table.js';
import { WRITE } from './lib/audit-entries.js';

const KEY = 'bench-audit-key-0123456789abcdef';
const CHILD_FLAG = '--audit-bench-writer';
const DATA = {
  runId: 'bench',
  phase: 'live',
  cluster: 'sim',
  method: 'GET',
  path: '/nodes/pve1/qemu/100/status/current',
  template: '/nodes/{node}/qemu/{vmid}/status/current',
  status: 'ok',
  http: 200,
  durationMs: 3,
};

function usPerOp(totalMs: number, n: number): string {
  return ((totalMs * 1000) / n).toFixed(1);
}

function timeIt(n: number, fn: (i: number) => void): number {
  const started = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  return performance.now() - started;
}

function best(reps: number, run: () => number): number {
  let min = Infinity;
  for (let r = 0; r < reps; r++) min = Math.min(min, run());
  return min;
}

function writers(file: string, count: number, perWriter: number): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, [self, CHILD_FLAG, file, String(perWriter)], { stdio: ['ignore', 'ignore', 'inherit'] });
          child.on('error', reject);
          child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`audit bench writer exited ${code}`))));
        }),
    ),
  ).then(() => undefined);
}

export async function auditSuite({ quick }: SuiteContext): Promise<Table[]> {
  const n = quick ? 2_000 : 20_000;
  const reps = quick ? 2 : 5;
  const dir = mkdtempSync(join(tmpdir(), 'bench-audit-'));
  try {
    const rows: Array<[string, string, string]> = [];
    const target = join(dir, 'lock-target');
    const lockMs = best(reps, () => timeIt(n, () => withFileLock(target, () => undefined)));
    rows.push(['lock alone (acquire + release)', usPerOp(lockMs, n), '1 process']);

    const floorMs = best(reps, () => {
      const fd = openSync(join(dir, `floor-${Math.random()}.jsonl`), 'a', 0o600);
      let prev = '0'.repeat(64);
      const ms = timeIt(n, (i) => {
        const base = { v: 1 as const, seq: i, ts: new Date().toISOString(), type: 'call' as const, prev, data: DATA };
        const hash = entryHash(base, KEY);
        writeSync(fd, JSON.stringify({ ...base, hash }) + '\n');
        prev = hash;
      });
      closeSync(fd);
      return ms;
    });
    rows.push(['append without the lock (render, HMAC, write)', usPerOp(floorMs, n), '1 process']);

    const lockedMs = best(reps, () => {
      const log = AuditLog.open({ file: join(dir, `single-${Math.random()}.jsonl`), hmacKey: KEY });
      const ms = timeIt(n, () => log.append('call', DATA));
      log.close();
      return ms;
    });
    rows.push(['append with the lock (AuditLog.append)', usPerOp(lockedMs, n), '1 process']);

    const shared = join(dir, 'shared.jsonl');
    const perWriter = n / 2;
    const started = performance.now();
    await writers(shared, 3, perWriter);
    const wallMs = performance.now() - started;
    const v = verifyAudit(shared, { hmacKey: KEY });
    if (!v.ok)
      throw new Error(
        `the shared log does not verify: ${v.problems
          .slice(0, 3)
          .map((p) => p.message)
          .join('; ')}`,
      );
    rows.push(['append with the lock, 3 processes at once', usPerOp(wallMs, 3 * perWriter), `wall time / ${3 * perWriter} entries, ${v.files.length} files, verified`]);

    const wal = writeAheadRows(dir, quick);

    return [
      wal,
      {
        title: 'Audit: cost per entry with the inter-process lock (HMAC-SHA256, µs per entry)',
        columns: ['what', 'µs/entry', 'notes'],
        rows,
        notes: [
          `${n} entries per measurement, best of ${reps}; the 3-process row includes process start-up (about 50 ms each).`,
          `lock overhead per entry = "with the lock" − "without the lock" = ${(((lockedMs - floorMs) * 1000) / n).toFixed(1)} µs`,
        ],
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One audited write as the bridge records it, with and without write-ahead: per write, the
 * samples are timed one by one (fdatasync varies with the device's journal), median and p95.
 */
function writeAheadRows(dir: string, quick: boolean): Table {
  const n = quick ? 200 : 1_000;
  const measure = (durability: 'fsync' | 'os' | 'none'): number[] => {
    const log = AuditLog.open({ file: join(dir, `wal-${durability}-${Math.random()}.jsonl`), hmacKey: KEY, ...(durability !== 'none' ? { durability } : {}) });
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      const intent = durability === 'none' ? undefined : log.intend(WRITE);
      log.append('call', { ...WRITE, ...(intent ? { intent: intent.seq } : {}), outcome: 'done', status: 'ok', http: 200, durationMs: 40 });
      samples.push((performance.now() - started) * 1000);
    }
    log.close();
    return samples;
  };
  const none = measure('none');
  const os = measure('os');
  const fsync = measure('fsync');
  const mean = (s: number[]): number => s.reduce((a, b) => a + b, 0) / s.length;
  const row = (what: string, s: number[]): string[] => [what, median(s).toFixed(1), percentile(s, 95).toFixed(1), mean(s).toFixed(1), (median(s) - median(none)).toFixed(1)];
  return {
    title: 'Audit: write-ahead cost per audited write (µs; intent + outcome against the outcome entry alone)',
    columns: ['what', 'median µs', 'p95 µs', 'mean µs', '+ median µs vs none'],
    rows: [row('call entry only (no write-ahead)', none), row("intent (durability 'os', page cache) + call", os), row("intent (durability 'fsync', fdatasync) + call", fsync)],
    notes: [`${n} writes each, one log per variant in ${dir} (${fsType(dir)}); the fsync figure is the device's: tmpfs costs nothing, a journaled SSD file system about a millisecond.`],
  };
}

/** The file system type under `dir` (Linux), for the note under the write-ahead table. */
function fsType(dir: string): string {
  try {
    const mounts = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' '));
    let best: string[] | undefined;
    for (const m of mounts) if (m[1] && dir.startsWith(m[1]) && (!best || m[1].length > (best[1] as string).length)) best = m;
    return best ? `${best[2]} on ${best[1]}` : 'unknown file system';
  } catch {
    return 'unknown file system';
  }
}

// A writer process of the 3-process measurement.
if (process.argv[2] === CHILD_FLAG) {
  const [file, count] = process.argv.slice(3) as [string, string];
  const log = AuditLog.open({ file, hmacKey: KEY, maxBytes: 1024 * 1024, retention: { maxTotalBytes: 0, maxAgeMs: 0 } });
  for (let i = 0; i < Number(count); i++) log.append('call', DATA);
  log.close();
}
