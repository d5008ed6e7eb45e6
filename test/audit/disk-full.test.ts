/**
 * The audit on a full or failing disk, with real processes and a real file system:
 *  - a file size limit (RLIMIT_FSIZE, no root needed) cuts a write short: nothing of the entry
 *    stays, appends fail closed with `audit-unavailable`, and once the limit is raised the next
 *    append explains the gap and the log verifies;
 *  - a full tmpfs under the audit directory (root): the same with ENOSPC. Under CI=true these
 *    cases run (and fail if they cannot mount); elsewhere they skip when not root.
 * Runs the built code (`npm run build`) for the child process.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditError } from '../../src/files/errors.js';
import { parseEntryLine } from '../../src/audit/entry.js';
import { AuditLog } from '../../src/audit/log.js';
import { verifyAudit } from '../../src/audit/verify.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const FILLER = join(HERE, 'fixtures', 'filler.mjs');
const BUILT = resolve(HERE, '..', '..', 'dist', 'src', 'audit', 'log.js');
if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first (npm test does)`);

/** Every line is a whole entry and the file ends with a newline. */
function expectWholeEntries(file: string): void {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.split('\n').filter(Boolean)) expect(parseEntryLine(line), line.slice(0, 80)).toBeDefined();
}

describe('file size limit (RLIMIT_FSIZE)', () => {
  it('a short write leaves no partial line; after the limit is raised the audit resumes and verifies with the gap explained', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-fsize-'));
    try {
      const file = join(dir, 'audit.jsonl');
      // Soft limit 20,000 bytes, hard unlimited: the parent raises it later without privileges.
      const child = spawn('prlimit', ['--fsize=20000:unlimited', process.execPath, FILLER, file, '4', '3'], { stdio: ['pipe', 'pipe', 'inherit'] });
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const first = JSON.parse((await lines.next()).value as string) as { written: number; errors: Array<{ code: string; message: string }>; stderr: string[] };
      expect(first.written).toBeGreaterThan(10);
      expect(first.errors).toHaveLength(4);
      for (const e of first.errors) {
        expect(e.code).toBe('audit-unavailable');
        expect(e.message).toMatch(/file size limit was reached.*EFBIG/);
      }
      expect(first.stderr).toHaveLength(1);
      expectWholeEntries(file); // the cut-short entry was taken back
      expect(readFileSync(file).length).toBeLessThanOrEqual(20_000);

      execFileSync('prlimit', ['--pid', String(child.pid), '--fsize=unlimited']);
      child.stdin.write('go\n');
      const second = JSON.parse((await lines.next()).value as string) as { done: boolean; stderr: string[] };
      expect(second.done).toBe(true);
      expect(second.stderr[1]).toMatch(/writable again after 4 entries/);
      expectWholeEntries(file);
      const v = verifyAudit(file);
      expect(v.problems).toEqual([]);
      expect(v.explained).toHaveLength(1);
      expect(v.explained[0]?.message).toMatch(/4 entries were not written/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const root = process.getuid?.() === 0;
const mustRun = process.env.CI === 'true';

describe.skipIf(!root && !mustRun)('full tmpfs under the audit directory (root)', () => {
  let base: string;
  let mnt: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'audit-tmpfs-'));
    mnt = join(base, 'state');
    mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt]);
  });
  afterAll(() => {
    try {
      execFileSync('umount', [mnt]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('fills up: appends and intents fail with audit-unavailable and leave no partial entry; space freed: they resume and verify', () => {
    const file = join(mnt, 'audit.jsonl');
    const stderr: string[] = [];
    const log = AuditLog.open({ file, stderr: (l) => stderr.push(l), retention: { maxTotalBytes: 0, maxAgeMs: 0 } });
    log.append('run-start', { runId: 'full' });
    // Fill the file system to the last byte.
    const filler = join(mnt, 'filler');
    const fd = openSync(filler, 'w');
    const block = Buffer.alloc(4096, 0x61);
    try {
      for (;;) writeSync(fd, block);
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    try {
      for (;;) writeSync(fd, block, 0, 1);
    } catch {
      // Not even one byte left.
    }
    closeSync(fd);

    let failures = 0;
    for (let i = 0; i < 200 && failures < 5; i++) {
      try {
        if (i % 2 === 0) log.intend({ runId: 'full', i, pad: 'p'.repeat(300) });
        else log.append('call', { runId: 'full', i, pad: 'p'.repeat(300) });
      } catch (err) {
        expect(err).toBeInstanceOf(AuditError);
        expect((err as AuditError).code).toBe('audit-unavailable');
        expect((err as AuditError).message).toContain(`no space left on the device holding ${mnt}`);
        failures++;
      }
    }
    expect(failures).toBe(5); // the page left in the log's last block fills, then nothing fits
    expect(stderr).toHaveLength(1);
    expectWholeEntries(file);

    unlinkSync(filler);
    log.intend({ runId: 'full', after: true });
    log.append('run-end', { runId: 'full' });
    log.close();
    expectWholeEntries(file);
    expect(stderr).toHaveLength(2);
    const v = verifyAudit(file);
    expect(v.problems).toEqual([]);
    expect(v.ok).toBe(true);
    expect(v.explained.map((e) => e.cause)).toEqual(['audit-unavailable']);
    expect(v.explained[0]?.message).toMatch(/5 entries were not written/);
  });
});
