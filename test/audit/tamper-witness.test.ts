/**
 * Tamper classes against a keyed, rotated log, each verified without and with the external
 * witness, as docs/security.md documents them: what the chain and anchor catch alone, and what
 * only the witness catches (an old authentic anchor restored with a truncated log; a consistent
 * rewrite by someone holding the key). Also retention (prune entries), the upgrade of an unkeyed
 * log to keyed mode, and the generated key file.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAuditKeyFile } from '../../src/app/config/audit-settings.js';
import { writeAnchor } from '../../src/audit/anchor.js';
import { entryHash, type AuditEntry } from '../../src/audit/entry.js';
import { AuditLog } from '../../src/audit/log.js';
import { rotatedFiles } from '../../src/audit/file-scan.js';
import { verifyAudit, type AuditProblemKind } from '../../src/audit/verify.js';

const KEY = 'tamper-witness-key-0123456789abcdef';
let dir: string;
let file: string;
let witness: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-tw-'));
  mkdirSync(join(dir, 'audit'));
  mkdirSync(join(dir, 'elsewhere'));
  file = join(dir, 'audit', 'audit.jsonl');
  witness = join(dir, 'elsewhere', 'witness.log');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function session(runs: number, first: number): void {
  const log = AuditLog.open({ file, hmacKey: KEY, maxBytes: 2_500, retention: { maxTotalBytes: 0, maxAgeMs: 0 }, witness: { file: witness } });
  for (let r = first; r < first + runs; r++) {
    log.append('run-start', { runId: `r${r}`, codeHash: 'c'.repeat(64), source: 'return 1', policy: 'operator' });
    log.append('call', { runId: `r${r}`, method: 'POST', path: `/nodes/pve1/qemu/${100 + r}/status/stop`, status: 'ok', durationMs: 2 });
    log.append('run-end', { runId: `r${r}`, ok: true });
  }
  log.close();
}

function paths(): string[] {
  return [...rotatedFiles(file).map((f) => f.path), file];
}
function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean);
}
function rewrite(path: string, l: string[]): void {
  writeFileSync(path, l.length ? l.join('\n') + '\n' : '');
}
function kinds(withWitness: boolean, extra: { allowPruned?: boolean } = {}): AuditProblemKind[] {
  return verifyAudit(file, { hmacKey: KEY, ...(withWitness ? { witness } : {}), ...extra }).problems.map((p) => p.kind);
}

/** Rewrite the whole chain consistently with the key (what a same-user attacker who read the key can do). */
function forgeWithKey(change: (e: AuditEntry) => void): void {
  let prev = '0'.repeat(64);
  let last: AuditEntry | undefined;
  for (const p of paths()) {
    const out = lines(p).map((l) => {
      const e = JSON.parse(l) as AuditEntry;
      change(e);
      e.prev = prev;
      e.hash = entryHash(e, KEY);
      prev = e.hash;
      last = e;
      return JSON.stringify(e);
    });
    rewrite(p, out);
  }
  const head = JSON.parse(lines(file)[0]!) as AuditEntry;
  writeAnchor(`${file}.anchor`, { v: 1, index: head.data.index as number, seq: last!.seq, hash: last!.hash }, KEY);
}

describe('tampering with a keyed, rotated log: without and with the witness', () => {
  beforeEach(() => {
    session(6, 0);
    session(6, 6);
    expect(rotatedFiles(file).length).toBeGreaterThanOrEqual(2);
  });

  it('the untouched log verifies, and every witness record matches', () => {
    const v = verifyAudit(file, { hmacKey: KEY, witness });
    expect(v.problems).toEqual([]);
    expect(v.witnessed).toBeGreaterThanOrEqual(4);
  });

  const cases: Array<{ name: string; tamper: () => void; without: AuditProblemKind | 'passes'; with: AuditProblemKind }> = [
    {
      name: 'edit an entry in the active file',
      tamper: () => {
        const l = lines(file);
        l[2] = l[2]!.replace('/status/stop', '/status/start');
        rewrite(file, l);
      },
      without: 'edited',
      with: 'edited',
    },
    {
      name: 'delete an entry in a rotated file',
      tamper: () => {
        const p = rotatedFiles(file)[0]!.path;
        const l = lines(p);
        l.splice(3, 1);
        rewrite(p, l);
      },
      without: 'deleted',
      with: 'deleted',
    },
    {
      name: 'reorder two entries',
      tamper: () => {
        const l = lines(file);
        [l[1], l[2]] = [l[2]!, l[1]!];
        rewrite(file, l);
      },
      without: 'reordered',
      with: 'reordered',
    },
    {
      name: 'truncate the active file (anchor left as it is)',
      tamper: () => rewrite(file, lines(file).slice(0, -2)),
      without: 'truncated',
      with: 'truncated',
    },
    {
      name: 'append an entry hashed without the key',
      tamper: () => {
        const last = JSON.parse(lines(file).at(-1)!) as AuditEntry;
        const forged = { v: 1 as const, seq: last.seq + 1, ts: new Date().toISOString(), type: 'call' as const, prev: last.hash, data: { runId: 'x', method: 'DELETE', path: '/nodes/pve1/qemu/100' } };
        rewrite(file, [...lines(file), JSON.stringify({ ...forged, hash: entryHash(forged) })]);
      },
      without: 'edited',
      with: 'edited',
    },
    {
      name: 'remove a rotated file in the middle',
      tamper: () => unlinkSync(rotatedFiles(file)[1]!.path),
      without: 'missing-file',
      with: 'missing-file',
    },
    {
      name: 'truncate a rotated file',
      tamper: () => {
        const p = rotatedFiles(file)[0]!.path;
        rewrite(p, lines(p).slice(0, -1));
      },
      without: 'truncated',
      with: 'truncated',
    },
    {
      name: 'remove the oldest rotated file (no prune entry)',
      tamper: () => unlinkSync(rotatedFiles(file)[0]!.path),
      without: 'missing-file',
      with: 'missing-file',
    },
  ];

  it.each(cases)('$name: detected without the witness ($without) and with it ($with)', ({ tamper, without, with: withKind }) => {
    tamper();
    if (without === 'passes') expect(kinds(false)).toEqual([]);
    else expect(kinds(false)).toContain(without);
    expect(kinds(true)).toContain(withKind);
  });

  it('anchor rollback: a truncated log with the older authentic anchor passes without a witness (documented limit) and is caught with it', () => {
    // Saved after a first session: the log and its anchor as they were then.
    const dir2 = join(dir, 'then');
    mkdirSync(dir2);
    rmSync(join(dir, 'audit'), { recursive: true });
    mkdirSync(join(dir, 'audit'));
    rmSync(witness);
    session(6, 0);
    const saved = paths().map((p) => ({ p, copy: join(dir2, p.split('/').at(-1)!) }));
    for (const s of saved) copyFileSync(s.p, s.copy);
    copyFileSync(`${file}.anchor`, join(dir2, 'anchor'));
    session(6, 6);
    // The attacker removes everything after the first session and restores its anchor.
    for (const p of paths()) unlinkSync(p);
    for (const s of saved) copyFileSync(s.copy, s.p);
    copyFileSync(join(dir2, 'anchor'), `${file}.anchor`);
    expect(kinds(false)).toEqual([]);
    const v = verifyAudit(file, { hmacKey: KEY, witness });
    expect(v.problems.map((p) => p.kind)).toContain('truncated');
    expect(v.problems.find((p) => p.kind === 'truncated')?.message).toMatch(/the witness recorded seq \d+ .* but the log ends at seq \d+/);
  });

  it('a consistent rewrite by someone holding the key passes without a witness (documented limit) and is caught with it', () => {
    forgeWithKey((e) => {
      if (e.type === 'call' && e.data.runId === 'r1') e.data = { ...e.data, path: '/nodes/pve1/qemu/999/status/stop' };
    });
    expect(kinds(false)).toEqual([]);
    expect(kinds(true)).toContain('edited');
  });

  it('a forged witness record is reported', () => {
    const rec = JSON.parse(readFileSync(witness, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;
    writeFileSync(witness, readFileSync(witness, 'utf8') + JSON.stringify({ ...rec, seq: (rec.seq as number) + 50 }) + '\n');
    expect(kinds(true)).toContain('witness');
  });

  it('reads the witness from a syslog export (records behind a daemon prefix)', () => {
    const exported = readFileSync(witness, 'utf8')
      .trim()
      .split('\n')
      .map((l) => `May  1 10:00:00 host pve-code-mcp[123]: ${l}`)
      .join('\n');
    writeFileSync(witness, `unrelated line\n${exported}\n`);
    const v = verifyAudit(file, { hmacKey: KEY, witness });
    expect(v.problems).toEqual([]);
    expect(v.witnessed).toBeGreaterThan(0);
  });
});

describe('retention', () => {
  it('prunes the oldest rotated files past the total size, records it, and the chain still verifies without allowPruned', () => {
    const log = AuditLog.open({ file, hmacKey: KEY, maxBytes: 2_000, retention: { maxTotalBytes: 8_000, maxAgeMs: 0 } });
    for (let i = 0; i < 200; i++) log.append('call', { runId: `r${i}`, method: 'GET', path: '/version', status: 'ok', durationMs: 1 });
    log.close();
    const files = paths();
    const total = files.reduce((n, p) => n + statSync(p).size, 0);
    expect(total).toBeLessThanOrEqual(8_000 + 2_000);
    expect(rotatedFiles(file)[0]!.index).toBeGreaterThan(1);
    const v = verifyAudit(file, { hmacKey: KEY });
    expect(v.problems).toEqual([]);
    expect(v.warnings.join('\n')).toMatch(/retention removed the oldest file\(s\)/);
    // Removing one more by hand is not retention.
    unlinkSync(rotatedFiles(file)[0]!.path);
    expect(kinds(false)).toContain('missing-file');
    expect(kinds(false, { allowPruned: true })).toEqual([]);
  });

  it('prunes rotated files older than the age limit', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const clock = () => new Date(now);
    const log = AuditLog.open({ file, hmacKey: KEY, maxBytes: 1_500, retention: { maxTotalBytes: 0, maxAgeMs: 30 * 86_400_000 }, now: clock });
    for (let i = 0; i < 30; i++) log.append('call', { runId: `old${i}`, method: 'GET', path: '/version', status: 'ok', durationMs: 1 });
    now += 40 * 86_400_000;
    for (let i = 0; i < 30; i++) log.append('call', { runId: `new${i}`, method: 'GET', path: '/version', status: 'ok', durationMs: 1 });
    log.close();
    const text = paths()
      .map((p) => readFileSync(p, 'utf8'))
      .join('');
    expect(text).not.toContain('"old0"');
    expect(text).toContain('"type":"prune"');
    expect(verifyAudit(file, { hmacKey: KEY }).problems).toEqual([]);
  });
});

describe('keyed by default', () => {
  it('an unkeyed log goes on keyed without a false alarm; the unkeyed prefix is pinned by the first keyed head', () => {
    const old = AuditLog.open({ file });
    old.append('run-start', { runId: 'before', codeHash: 'c'.repeat(64), source: 'return 1', policy: 'read-only' });
    old.close();
    const keyed = AuditLog.open({ file, hmacKey: KEY });
    keyed.append('run-start', { runId: 'after', codeHash: 'c'.repeat(64), source: 'return 1', policy: 'read-only' });
    keyed.close();
    const v = verifyAudit(file, { hmacKey: KEY });
    expect(v.problems).toEqual([]);
    expect(v.warnings.join('\n')).toMatch(/written before keyed mode/);
    expect(lines(file).some((l) => l.includes('"type":"alert"'))).toBe(false);
    // Editing the unkeyed prefix breaks the link from the first keyed head.
    const p = rotatedFiles(file)[0]!.path;
    const l = lines(p);
    const e = JSON.parse(l[1]!) as AuditEntry;
    e.data = { ...e.data, runId: 'changed' };
    e.hash = entryHash(e);
    l[1] = JSON.stringify(e);
    rewrite(p, l);
    expect(kinds(false).length).toBeGreaterThan(0);
  });

  it('the key file is generated once (0600), reused, and refused when others can read it', () => {
    const keyFile = join(dir, 'elsewhere', 'cfg', 'audit.key');
    expect(readAuditKeyFile(keyFile, { create: false })).toBeUndefined();
    const key = readAuditKeyFile(keyFile, { create: true });
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readAuditKeyFile(keyFile, { create: true })).toBe(key);
    chmodSync(keyFile, 0o644);
    expect(() => readAuditKeyFile(keyFile, { create: false })).toThrow(expect.objectContaining({ code: 'audit-key', message: expect.stringMatching(/chmod 600/) }));
  });
});
