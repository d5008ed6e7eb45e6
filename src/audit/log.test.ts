/**
 * Whole-or-nothing entries and fail-closed appends, with the file writes injected: a write that
 * stores part of an entry and then fails, an fdatasync that fails, a torn tail found on open.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditError } from '../files/errors.js';
import { parseEntryLine, type AuditEntry } from './entry.js';
import { AuditLog, type AuditFs } from './log.js';
import { formatVerification, verifyAudit } from './verify.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
  file = join(dir, 'audit.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function entries(): AuditEntry[] {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const e = parseEntryLine(l);
      expect(e, `not an entry: ${l}`).toBeDefined();
      return e as AuditEntry;
    });
}

/** A file system that fills up: each write stores at most `room` more bytes, then fails with ENOSPC. */
function fillingFs(): AuditFs & { room: number; syncs: number; failSync: boolean } {
  const fs = {
    room: Infinity,
    syncs: 0,
    failSync: false,
    write(fd: number, buffer: Buffer, offset: number, length: number): number {
      if (fs.room <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      const n = writeSync(fd, buffer, offset, Math.min(length, fs.room));
      fs.room -= n;
      return n;
    },
    fdatasync(): void {
      fs.syncs++;
      if (fs.failSync) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    },
  };
  return fs;
}

describe('whole-or-nothing entries', () => {
  it('a write cut short leaves no partial line, fails closed with audit-unavailable, and the gap is explained when writes resume', () => {
    const fs = fillingFs();
    const stderr: string[] = [];
    const log = AuditLog.open({ file, fs, stderr: (l) => stderr.push(l) });
    log.append('run-start', { runId: 'r' });
    const before = readFileSync(file, 'utf8');
    fs.room = 40; // the next entry gets 40 bytes in, then the device is full
    const errors: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      try {
        log.append('call', { runId: 'r', i });
      } catch (err) {
        errors.push(err);
      }
    }
    expect(errors).toHaveLength(3);
    for (const err of errors) {
      expect(err).toBeInstanceOf(AuditError);
      expect((err as AuditError).code).toBe('audit-unavailable');
      expect((err as AuditError).message).toContain(`no space left on the device holding ${dir}`);
      expect((err as AuditError).message).toContain('free space there');
    }
    expect(readFileSync(file, 'utf8')).toBe(before); // the 40 bytes were cut back
    expect(stderr).toHaveLength(1); // once per failing streak, not per entry
    expect(stderr[0]).toContain('no space left');

    fs.room = Infinity;
    const resumed = log.append('call', { runId: 'r', i: 3 });
    log.close();
    const all = entries();
    const gap = all.find((e) => e.type === 'alert');
    expect(gap?.data).toMatchObject({ cause: 'audit-unavailable', lost: 3, code: 'ENOSPC' });
    expect(gap?.seq).toBe(resumed.seq - 1); // the alert comes right before the first entry after the gap
    expect(stderr).toHaveLength(2);
    expect(stderr[1]).toMatch(/writable again after 3 entries/);
    const v = verifyAudit(file);
    expect(v.problems).toEqual([]);
    expect(v.ok).toBe(true);
    expect(v.explained.map((e) => e.cause)).toEqual(['audit-unavailable']);
    expect(formatVerification(v)).toMatch(/audit OK[\s\S]*explained \[audit-unavailable\].*3 entries were not written/);
  });

  it('cuts a torn tail on open: a whole entry without its newline, and lines that are not entries', () => {
    const log = AuditLog.open({ file });
    log.append('run-start', { runId: 'a' });
    log.close();
    const whole = readFileSync(file, 'utf8');
    const lastLine = whole.trimEnd().split('\n').pop() as string;
    // A complete entry's JSON without its newline is a write that did not finish: it is cut too.
    writeFileSync(file, whole + 'garbage\n' + lastLine);
    const again = AuditLog.open({ file });
    again.append('run-end', { runId: 'a' });
    again.close();
    const all = entries();
    expect(readFileSync(file, 'utf8').startsWith(whole)).toBe(true);
    const alert = all.find((e) => e.type === 'alert');
    expect(alert?.data).toMatchObject({ cause: 'torn-tail', offset: Buffer.byteLength(whole), bytes: 8 + lastLine.length });
    expect(String(alert?.data.message)).toMatch(/not complete audit entries/);
    expect(verifyAudit(file).ok).toBe(true);
  });

  it('cuts a tail torn by another writer that died mid-entry, seen by a running writer', () => {
    const log = AuditLog.open({ file });
    log.append('run-start', { runId: 'a' });
    log.close(); // the lease is given up: the next append re-reads the end of the file
    const log2 = AuditLog.open({ file });
    writeFileSync(file, readFileSync(file, 'utf8') + '{"v":1,"seq":9');
    log2.append('run-end', { runId: 'a' });
    log2.close();
    expect(
      entries()
        .filter((e) => e.type === 'alert')
        .map((e) => e.data.cause),
    ).toEqual(['torn-tail']);
    expect(verifyAudit(file).ok).toBe(true);
  });
});

describe('write-ahead intents', () => {
  it('fdatasyncs each intent with durability fsync (not with os), names the writer, and verify pairs it with its outcome', () => {
    const fs = fillingFs();
    const log = AuditLog.open({ file, fs });
    const i1 = log.intend({ runId: 'r', method: 'POST', path: '/nodes/pve1/qemu/100/snapshot' });
    expect(fs.syncs).toBe(1);
    expect(i1.type).toBe('intent');
    expect(i1.data.writer).toBe(log.writer);
    log.append('call', { runId: 'r', intent: i1.seq, outcome: 'done' });
    const i2 = log.intend({ runId: 'r', method: 'DELETE', path: '/nodes/pve1/qemu/100/snapshot/s1' });
    expect(fs.syncs).toBe(2);
    const v = verifyAudit(file);
    expect(v.ok).toBe(true);
    expect(v.intents).toEqual({ written: 2, settled: 1 });
    expect(v.openIntents.map((o) => [o.seq, o.writer, o.alive])).toEqual([[i2.seq, log.writer, true]]);
    expect(formatVerification(v)).toContain(`open intent seq ${i2.seq}`);
    log.close();

    const osFs = fillingFs();
    const loose = AuditLog.open({ file, fs: osFs, durability: 'os' });
    loose.intend({ runId: 'r2' });
    expect(osFs.syncs).toBe(0);
    loose.close();
  });

  it('an intent that cannot be made durable is taken back and fails closed', () => {
    const fs = fillingFs();
    const log = AuditLog.open({ file, fs, stderr: () => undefined });
    log.append('run-start', { runId: 'r' });
    const before = readFileSync(file, 'utf8');
    fs.failSync = true;
    expect(() => log.intend({ runId: 'r' })).toThrow(expect.objectContaining({ code: 'audit-unavailable', message: expect.stringContaining('I/O error') }));
    expect(readFileSync(file, 'utf8')).toBe(before);
    fs.failSync = false;
    log.intend({ runId: 'r' });
    log.close();
    expect(entries().map((e) => e.type)).toEqual(['head', 'run-start', 'alert', 'intent']);
    expect(verifyAudit(file).ok).toBe(true);
  });
});

describe('witness failures reported later (asynchronous transports)', () => {
  it('write one alert and one stderr line per failing streak', () => {
    const stderr: string[] = [];
    const log = AuditLog.open({ file, stderr: (l) => stderr.push(l) });
    // The hook openWitness's transports call: reached here directly, as no async transport is configured.
    const hook = (log as unknown as { witnessFailed(message: string): void }).witnessFailed.bind(log);
    hook('connection refused by 127.0.0.1:6514');
    hook('connection refused by 127.0.0.1:6514');
    log.close();
    const alerts = entries().filter((e) => e.type === 'alert');
    expect(alerts.map((a) => a.data.message)).toEqual(["the audit witness could not publish the chain's end: connection refused by 127.0.0.1:6514"]);
    expect(stderr).toEqual(['pve-code-mcp: the audit witness could not publish: connection refused by 127.0.0.1:6514']);
  });
});
