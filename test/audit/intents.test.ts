/**
 * Write-ahead intents across processes: a starting server recovers only the intents of writers
 * that are gone. Two writer processes and this one share one audit log; one is killed with
 * SIGKILL. Runs the built code (`npm run build`) in real child processes.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findOrphanIntents, retireSettledWriters } from '../../src/audit/intents.js';
import { listWriters } from '../../src/audit/writers.js';
import { AuditLog } from '../../src/audit/log.js';
import { verifyAudit } from '../../src/audit/verify.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const INTENDER = join(HERE, 'fixtures', 'intender.mjs');
const BUILT = resolve(HERE, '..', '..', 'dist', 'src', 'audit', 'log.js');
if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first (npm test does)`);

let dir: string;
let file: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-intents-'));
  file = join(dir, 'audit.jsonl');
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Start a writer process; resolves once its intents are written, with its writer id and their seqs. */
async function intender(count: number, settled: number): Promise<{ child: ChildProcessWithoutNullStreams; writer: string; seqs: number[] }> {
  const child = spawn(process.execPath, [INTENDER, file, String(count), String(settled)]);
  children.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const line = await new Promise<string>((ok, fail) => {
    createInterface({ input: child.stdout }).once('line', ok);
    child.once('exit', (code) => fail(new Error(`intender exited ${code}: ${stderr}`)));
  });
  return { child, ...(JSON.parse(line) as { writer: string; seqs: number[] }) };
}

function killed(child: ChildProcessWithoutNullStreams): Promise<void> {
  return new Promise((ok) => {
    child.once('exit', () => ok());
    child.kill('SIGKILL');
  });
}

describe('orphan intents', () => {
  it('returns the open intents of a killed writer, never those of live writers in other processes or this one', async () => {
    const here = AuditLog.open({ file });
    const mine = here.intend({ runId: 'here' });
    const live = await intender(3, 1);
    const doomed = await intender(4, 1);
    expect(findOrphanIntents(file)).toEqual([]); // everyone is alive

    await killed(doomed.child);
    const orphans = findOrphanIntents(file);
    expect(orphans.map((o) => o.writer)).toEqual([doomed.writer, doomed.writer, doomed.writer]);
    expect(orphans.map((o) => o.seq)).toEqual(doomed.seqs.slice(1));
    expect(orphans[0]?.data).toMatchObject({ method: 'POST', writer: doomed.writer });
    expect(orphans.some((o) => live.seqs.includes(o.seq) || o.seq === mine.seq)).toBe(false);
    const states = new Map(listWriters(file).map((w) => [w.id, w.alive]));
    expect(states.get(doomed.writer)).toBe(false);
    expect(states.get(live.writer)).toBe(true);
    expect(states.get(here.writer)).toBe(true);

    // verify: open intents are their own finding, never tampering.
    let v = verifyAudit(file);
    expect(v.ok).toBe(true);
    expect(v.openIntents.filter((o) => !o.alive).map((o) => o.seq)).toEqual(doomed.seqs.slice(1));
    expect(
      v.openIntents
        .filter((o) => o.alive)
        .map((o) => o.seq)
        .sort((a, b) => a - b),
    ).toEqual([mine.seq, ...live.seqs.slice(1)].sort((a, b) => a - b));

    // A starting server settles them; the dead writer is then retired and not scanned again.
    expect(retireSettledWriters(file)).toEqual([]); // not yet: its intents are open
    for (const o of orphans.slice(0, 2))
      here.recovered({ intent: o.seq, writer: o.writer, outcome: 'made', upid: 'UPID:pve1:0001:00:00:qmsnapshot:100:root@pam:', evidence: 'task found in the node task list' });
    expect(findOrphanIntents(file).map((o) => o.seq)).toEqual([orphans[2]?.seq]);
    here.recovered({ intent: orphans[2]?.seq as number, writer: doomed.writer, outcome: 'unknown', evidence: 'no task in the window, the object state does not tell' });
    expect(findOrphanIntents(file)).toEqual([]);
    expect(retireSettledWriters(file)).toEqual([doomed.writer]);
    expect(
      listWriters(file)
        .map((w) => w.id)
        .sort(),
    ).toEqual([live.writer, here.writer].sort());
    v = verifyAudit(file);
    expect(v.ok).toBe(true);
    expect(v.openIntents.every((o) => o.alive)).toBe(true);
    here.close();
  });

  it('a writer that closes removes its registration', async () => {
    const log = AuditLog.open({ file });
    expect(listWriters(file).map((w) => w.id)).toEqual([log.writer]);
    log.close();
    expect(listWriters(file)).toEqual([]);
  });
});
