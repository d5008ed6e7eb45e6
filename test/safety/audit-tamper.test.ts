/**
 * Tamper tests for the hash-chained audit log: edits, deletions, reordering and truncation must
 * all fail verification, in one file and across rotated files, with and without an HMAC key.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, unlinkSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/audit/log.js';
import { formatVerification, verifyAudit } from '../../src/audit/verify.js';
import { entryHash } from '../../src/audit/entry.js';
import { SecretScrubber, REDACTED } from '../../src/safety/redact.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-'));
  file = join(dir, 'audit.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeRun(log: AuditLog, runId: string, calls = 3): void {
  log.append('run-start', { runId, codeHash: 'c'.repeat(64), source: 'return 1', policy: 'read-only' });
  for (let i = 0; i < calls; i++) log.append('call', { runId, method: 'GET', path: `/nodes/pve1/qemu/${100 + i}/status/current`, status: 'ok', durationMs: 1 });
  log.append('run-end', { runId, ok: true });
}

function lines(path = file): string[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean);
}

function rewrite(newLines: string[], path = file): void {
  writeFileSync(path, newLines.join('\n') + '\n');
}

function kinds(key?: string) {
  return verifyAudit(file, key !== undefined ? { hmacKey: key } : {}).problems.map((p) => p.kind);
}

describe.each([
  ['sha256', undefined],
  ['hmac-sha256', 'k3y-material-for-tests'],
])('audit chain (%s)', (_alg, key) => {
  const open = (extra: Partial<Parameters<typeof AuditLog.open>[0]> = {}) => AuditLog.open({ file, ...(key !== undefined ? { hmacKey: key } : {}), ...extra });

  it('verifies an untouched log, also after reopening', () => {
    const log = open();
    writeRun(log, 'r1');
    log.close();
    const again = open();
    writeRun(again, 'r2');
    again.close();
    const v = verifyAudit(file, key !== undefined ? { hmacKey: key } : {});
    expect(formatVerification(v)).toMatch(/^audit OK: 11 entries/);
    expect(v.ok).toBe(true);
    expect(v.runs).toEqual({ started: 2, finished: 2 });
  });

  it('detects an edited entry', () => {
    const log = open();
    writeRun(log, 'r1');
    log.close();
    const l = lines();
    l[2] = l[2]!.replace('/qemu/100/', '/qemu/666/');
    rewrite(l);
    expect(kinds(key)).toContain('edited');
  });

  it('detects an edited entry whose hash was recomputed (without the key for HMAC logs)', () => {
    const log = open();
    writeRun(log, 'r1');
    log.close();
    const l = lines();
    const entry = JSON.parse(l[2]!) as Parameters<typeof entryHash>[0] & { hash: string };
    entry.data = { ...entry.data, path: '/forged' };
    entry.hash = entryHash(entry);
    l[2] = JSON.stringify(entry);
    rewrite(l);
    expect(kinds(key)).toContain('edited');
  });

  it('detects a deleted entry', () => {
    const log = open();
    writeRun(log, 'r1');
    log.close();
    const l = lines();
    l.splice(2, 1);
    rewrite(l);
    expect(kinds(key)).toContain('deleted');
  });

  it('detects reordered entries', () => {
    const log = open();
    writeRun(log, 'r1');
    log.close();
    const l = lines();
    [l[2], l[3]] = [l[3]!, l[2]!];
    rewrite(l);
    expect(kinds(key)).toContain('reordered');
  });

  it('detects truncation of the end through the anchor', () => {
    const log = open();
    writeRun(log, 'r1');
    log.close();
    rewrite(lines().slice(0, -2));
    const v = verifyAudit(file, key !== undefined ? { hmacKey: key } : {});
    expect(v.problems.map((p) => p.kind)).toEqual(['truncated']);
    expect(v.problems[0]?.message).toMatch(/2 entries were cut off the end/);
  });

  it('detects a removed anchor and a removed head', () => {
    const log = open();
    writeRun(log, 'r1');
    log.close();
    unlinkSync(`${file}.anchor`);
    expect(kinds(key)).toContain('anchor');
    rewrite(lines().slice(1));
    expect(kinds(key)).toContain('truncated');
  });

  it('leaves permanent evidence when a truncated log is reopened by the writer', () => {
    const log = open();
    writeRun(log, 'r1');
    log.close();
    rewrite(lines().slice(0, -1));
    const again = open();
    writeRun(again, 'r2');
    again.close();
    const v = verifyAudit(file, key !== undefined ? { hmacKey: key } : {});
    expect(v.ok).toBe(false);
    expect(v.problems.find((p) => p.kind === 'alert')?.message).toMatch(/1 entries were removed from the end/);
  });

  it('keeps the chain verifiable across rotation and detects tampering in rotated files', () => {
    const log = open({ maxBytes: 1200 });
    for (let i = 0; i < 4; i++) writeRun(log, `r${i}`);
    log.close();
    const rotated = readdirSync(dir)
      .filter((n) => /\.jsonl\.\d{6}$/.test(n))
      .sort();
    expect(rotated.length).toBeGreaterThan(1);
    const ok = verifyAudit(file, key !== undefined ? { hmacKey: key } : {});
    expect(ok.ok).toBe(true);
    expect(ok.files).toHaveLength(rotated.length + 1);
    expect(ok.runs.started).toBe(4);

    const first = join(dir, rotated[0]!);
    const firstLines = lines(first);
    rewrite(firstLines.slice(0, -1), first);
    expect(kinds(key)).toContain('truncated');
    rewrite(firstLines, first);
    expect(verifyAudit(file, key !== undefined ? { hmacKey: key } : {}).ok).toBe(true);

    unlinkSync(first);
    expect(kinds(key)).toContain('missing-file');
    expect(verifyAudit(file, { ...(key !== undefined ? { hmacKey: key } : {}), allowPruned: true }).ok).toBe(true);
  });
});

describe('audit details', () => {
  it('an HMAC log does not verify without its key, nor a plain log with one', () => {
    const log = AuditLog.open({ file, hmacKey: 'key-one' });
    writeRun(log, 'r1');
    log.close();
    expect(verifyAudit(file).ok).toBe(false);
    expect(verifyAudit(file, { hmacKey: 'key-two' }).ok).toBe(false);
    expect(verifyAudit(file, { hmacKey: 'key-one' }).ok).toBe(true);
  });

  it('scrubs known secrets before hashing and writing', () => {
    const secret = 'aa11bb22-cc33-dd44-ee55-ff6677889900';
    const log = AuditLog.open({ file, scrubber: new SecretScrubber([secret]) });
    log.append('run-start', { runId: 'r', source: `const t = '${secret}'` });
    log.close();
    expect(readFileSync(file, 'utf8')).not.toContain(secret);
    expect(readFileSync(file, 'utf8')).toContain(REDACTED);
    expect(verifyAudit(file).ok).toBe(true);
  });

  it('cuts a torn last line on open, says so in an alert, and keeps chaining after the last whole entry', () => {
    const log = AuditLog.open({ file });
    writeRun(log, 'r1', 1);
    log.close();
    const whole = readFileSync(file, 'utf8');
    writeFileSync(file, whole + '{"v":1,"seq":4,"ts"');
    const again = AuditLog.open({ file });
    writeRun(again, 'r2', 1);
    again.close();
    const v = verifyAudit(file);
    expect(v.problems).toEqual([]);
    expect(v.explained.map((e) => e.cause)).toEqual(['torn-tail']);
    expect(v.explained[0]?.message).toMatch(/cut 19 byte\(s\).*at offset \d+/);
    expect(readFileSync(file, 'utf8').startsWith(whole)).toBe(true);
    expect(existsSync(`${file}.anchor`)).toBe(true);
  });

  it('reports a missing log', () => {
    expect(verifyAudit(join(dir, 'none.jsonl')).problems[0]?.kind).toBe('missing-file');
  });
});
