/**
 * The audit anchor trails the log by at most ANCHOR_DELAY_MS: many entries cost one anchor write,
 * the anchor then catches up, and what a crash leaves between the two is reported as "not
 * anchored yet", never as tampering.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANCHOR_DELAY_MS, readAnchor } from '../../src/audit/anchor.js';
import { AuditLog } from '../../src/audit/log.js';
import { verifyAudit } from '../../src/audit/verify.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-anchor-'));
  file = join(dir, 'audit.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function anchoredSeq(path: string): number | undefined {
  const read = readAnchor(`${path}.anchor`);
  return read.status === 'ok' ? read.state.seq : undefined;
}

describe('audit anchor written at most every ANCHOR_DELAY_MS', () => {
  it('catches up with the last entry after the delay, even for entries in separate turns', async () => {
    const log = AuditLog.open({ file });
    await sleep(ANCHOR_DELAY_MS + 50);
    const before = anchoredSeq(file);
    let last = 0;
    for (let i = 0; i < 20; i++) {
      last = log.append('call', { runId: 'r', method: 'GET', path: '/version', status: 'ok', durationMs: 1 }).seq;
      await new Promise((r) => setImmediate(r));
    }
    expect(anchoredSeq(file)).toBe(before);
    await sleep(ANCHOR_DELAY_MS + 50);
    expect(anchoredSeq(file)).toBe(last);
    log.close();
    expect(verifyAudit(file).ok).toBe(true);
  });

  it('a crash between entries and their anchor leaves a warning, not a problem', async () => {
    const log = AuditLog.open({ file });
    await sleep(ANCHOR_DELAY_MS + 50);
    for (let i = 0; i < 5; i++) log.append('call', { runId: 'r', method: 'GET', path: '/version', status: 'ok', durationMs: 1 });
    // The files as a crash right now would leave them.
    const crashed = join(dir, 'crashed.jsonl');
    copyFileSync(file, crashed);
    copyFileSync(`${file}.anchor`, `${crashed}.anchor`);
    log.close();
    const v = verifyAudit(crashed);
    expect(v.problems).toEqual([]);
    expect(v.warnings.join('\n')).toMatch(/5 entries after the anchor .* are not anchored yet/);
    expect(readFileSync(crashed, 'utf8').trim().split('\n')).toHaveLength(6);
  });

  it('close() writes the anchor at once', () => {
    const log = AuditLog.open({ file });
    const entry = log.append('run-start', { runId: 'r', codeHash: 'c'.repeat(64), source: 'return 1', policy: 'read-only' });
    log.close();
    expect(anchoredSeq(file)).toBe(entry.seq);
  });
});
