/**
 * `state` suite: what each state operation of a write costs on the file store (the state
 * directory, one host) against the shared PostgreSQL store (issue 33), side by side in one run.
 *
 * A real server is started as the tests start it (bench/lib/postgres-server.ts: a fresh cluster on
 * 127.0.0.1, fsync on), and both stores go through the product's own classes, as the composition
 * builds them (src/app/state-store.ts): the audit (AuditLog with fdatasync, PostgresAuditLog), the
 * approvals store, the kill switch the bridge asks before each change. The file and the database
 * sample of an operation alternate, so the load of this shared machine falls on both alike; each
 * table's title gives the 1-minute load average before and after.
 *
 * Then where the time of a statement goes: a `SELECT 1` through the synchronous store (calling
 * thread → worker thread → `pg` → server and back, the caller asleep on Atomics.wait) against the
 * same round trip from an async `pg` client on this thread; and two writer processes appending to
 * one chain at once (bench/lib/state-writer.ts), as two replicas would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { AuditLog } from '../src/audit/log.js';
import { appendAtHead, withChain, type ChainHead } from '../src/audit/postgres-chain.js';
import { PostgresAuditLog } from '../src/audit/postgres-log.js';
import type { AuditSink } from '../src/audit/sink.js';
import type { ApprovalBackend } from '../src/safety/approval-backend.js';
import type { ApprovalStore } from '../src/safety/approval.js';
import { PlanRecorder, type Plan } from '../src/safety/plan.js';
import { safetyStores, type SafetyStores } from '../src/safety/state-backends.js';
import { openPostgres } from '../src/state/postgres/open.js';
import type { PostgresState } from '../src/state/postgres/sql.js';
import { postgresUnavailable, startPostgres, type TestPostgres } from './lib/postgres-server.js';
import { appendersAtOnce } from './lib/state-writers.js';
import type { SuiteContext } from './lib/suite.js';
import { median, ms, percentile, ratio, type Table } from './lib/table.js';
import { WRITE } from './lib/audit-entries.js';

const KEY = 'bench-state-key-0123456789abcdef';
const READ = { runId: 'bench', phase: 'live', cluster: 'sim', method: 'GET', path: '/nodes/pve1/qemu/100/status/current', status: 'ok', http: 200, durationMs: 3 };

/** One store of each kind, as the product opens it. */
interface Side {
  audit: AuditSink;
  stores: SafetyStores;
  /** Where the approvals go, for writing the stored approvals a claim looks past. */
  backend: ApprovalBackend;
}

const load = (): string => (loadavg()[0] ?? 0).toFixed(1);

/** Samples in ms of two operations `a` and `b`, alternating sample by sample (which goes first, too). */
function paired(n: number, a: (i: number) => void, b: (i: number) => void, before?: (i: number) => void): { a: number[]; b: number[] } {
  const out = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < n; i++) {
    before?.(i);
    for (const side of i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
      const started = performance.now();
      (side === 'a' ? a : b)(i);
      out[side].push(performance.now() - started);
    }
  }
  return out;
}

/** A row of the per-operation table: `a` the file store, `b` PostgreSQL. */
function row(what: string, s: { a: number[]; b: number[] }): string[] {
  const [f50, f90, f99] = [50, 90, 99].map((p) => percentile(s.a, p)) as [number, number, number];
  const [d50, d90, d99] = [50, 90, 99].map((p) => percentile(s.b, p)) as [number, number, number];
  return [what, ms(f50), ms(f90), ms(f99), ms(d50), ms(d90), ms(d99), ratio(d50, f50), ratio(d99, f99)];
}

function plan(i: number): Plan {
  const rec = new PlanRecorder();
  rec.record({
    cluster: 'sim',
    method: 'DELETE',
    path: `/nodes/pve1/qemu/${1000 + i}`,
    template: '/nodes/{node}/qemu/{vmid}',
    params: {},
    fullParams: {},
    risk: 'destructive',
    needsApproval: true,
    targets: [{ vmid: 1000 + i, exists: true, name: `vm${i}` }],
    returnsTask: true,
    node: 'pve1',
  });
  return rec.finish(`await pve.delete('/nodes/pve1/qemu/${1000 + i}') // ${Math.random()}`, 'operator');
}

/** `count` valid approvals of other scripts, written straight to the backend (what a claim reads past). */
function storeApprovals(backend: ApprovalBackend, count: number): void {
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const planId = (i.toString(16) + 'f'.repeat(64)).slice(0, 64);
    backend.append({
      type: 'approve',
      planId,
      codeHash: `other-${i}`,
      approvedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 3_600_000).toISOString(),
      approvedBy: 'operator',
      id: `bench-${i}`,
      via: 'cli',
    });
  }
}

export async function stateSuite({ quick }: SuiteContext): Promise<Table[]> {
  // Without a PostgreSQL server here, `npm run bench` goes on with the other suites.
  const why = postgresUnavailable();
  if (why) return [{ title: 'State: file store vs PostgreSQL (skipped)', columns: ['why'], rows: [[why]] }];
  const n = quick ? 100 : 1_000;
  const claims = quick ? 50 : 300;
  const stored = quick ? 100 : 1_000;
  const loadBefore = load();
  const dir = mkdtempSync(join(tmpdir(), 'bench-state-'));
  let server: TestPostgres | undefined;
  let db: PostgresState | undefined;
  const open: Array<{ close(): void }> = [];
  try {
    server = await startPostgres();
    const url = await server.createDatabase('bench');
    db = openPostgres({ url });
    const fileStores = safetyStores({ dir: join(dir, 'state') }, { haltFile: join(dir, 'halt') });
    const dbStores = safetyStores({ dir: join(dir, 'state'), postgres: db }, { haltFile: join(dir, 'halt') });
    const file: Side = { audit: AuditLog.open({ file: join(dir, 'audit.jsonl'), hmacKey: KEY }), stores: fileStores, backend: fileStores.approvals.backend };
    const database: Side = { audit: PostgresAuditLog.open({ db, hmacKey: KEY }), stores: dbStores, backend: dbStores.approvals.backend };
    open.push(file.audit, database.audit);

    const audited = (side: Side) => () => {
      const intent = side.audit.intend(WRITE);
      side.audit.append('call', { ...WRITE, intent: intent.seq, outcome: 'done', status: 'ok', http: 200, durationMs: 40 });
    };
    const append = (side: Side) => () => void side.audit.append('call', READ);
    const halted = (side: Side) => () => {
      if (side.stores.killSwitch.state().halted) throw new Error('the bench store is halted');
    };
    // Warm-up: JIT, the pool's connections, the chain's head and the database's caches.
    paired(50, audited(file), audited(database));
    paired(50, halted(file), halted(database));

    const rows: string[][] = [];
    rows.push(row('audited write: intent (durable) + call', paired(n, audited(file), audited(database))));
    rows.push(row('audit append alone (call)', paired(n, append(file), append(database))));
    rows.push(row('kill switch check before a write', paired(n, halted(file), halted(database))));

    const plans = { file: Array.from({ length: n }, (_, i) => plan(i)), db: Array.from({ length: n }, (_, i) => plan(i)) };
    const save = (store: ApprovalStore, list: Plan[]) => (i: number) => store.savePlan(list[i] as Plan);
    rows.push(row('savePlan', paired(n, save(file.stores.approvals, plans.file), save(database.stores.approvals, plans.db))));

    storeApprovals(file.backend, stored);
    storeApprovals(database.backend, stored);
    const claimPlans = { file: Array.from({ length: claims }, (_, i) => plan(n + i)), db: Array.from({ length: claims }, (_, i) => plan(n + i)) };
    const claim = (store: ApprovalStore, list: Plan[]) => (i: number) => {
      if (!store.claim({ codeHash: (list[i] as Plan).codeHash }, `run-${i}`)) throw new Error(`claim ${i} found no approval`);
    };
    const approveNext = (i: number) => {
      for (const [store, list] of [
        [file.stores.approvals, claimPlans.file],
        [database.stores.approvals, claimPlans.db],
      ] as const) {
        store.savePlan(list[i] as Plan);
        store.approve((list[i] as Plan).planId, { approvedBy: 'operator' });
      }
    };
    rows.push(row(`approval claim, ${stored} other approvals stored`, paired(claims, claim(file.stores.approvals, claimPlans.file), claim(database.stores.approvals, claimPlans.db), approveNext)));

    const perWrite: Table = {
      title: `State per operation: file store vs PostgreSQL (ms; load ${loadBefore} before, ${load()} after)`,
      columns: ['operation', 'file p50', 'file p90', 'file p99', 'pg p50', 'pg p90', 'pg p99', 'pg/file p50', 'pg/file p99'],
      rows,
      notes: [
        `${n} samples per operation (claims: ${claims}), file and database alternating; file store in ${dir} (audit with fdatasync per intent, HMAC-SHA256), PostgreSQL ${db.where} on the same host (fsync on, synchronous_commit on for audit entries).`,
        'the kill switch is what the bridge asks before each change: the host file, then (PostgreSQL) the halt row; the claim reads the records of the script and writes its consume under the store lock.',
      ],
    };
    return [perWrite, await appendPaths(db, n), await roundTrips(db, url, n), await appendersAtOnce(url, KEY, quick, db)];
  } finally {
    for (const o of open) o.close();
    db?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The two ways an audit entry reaches the chain, alternating on one chain of their own: the
 * transaction that locks the head row (every append before issue 33's change; now the path after
 * a lost race, an outage or to settle an intent) against the one statement at the known end.
 * Then the same with the server's fsync turned off for a moment (never in production): what is
 * left is the round trips and the server's work, without the disk.
 */
async function appendPaths(db: PostgresState, n: number): Promise<Table> {
  const loadBefore = load();
  const ctx = { hmacKey: KEY, now: () => new Date() };
  const chain = 'bench-paths';
  let head = withChain(db, chain, 'hmac-sha256', ctx, (c) => c.end) as ChainHead;
  const locked = () => {
    head = withChain(db, chain, 'hmac-sha256', ctx, (c) => {
      c.append('call', READ);
      return c.end;
    });
  };
  const oneStatement = () => {
    const entry = appendAtHead(db, chain, head, 'hmac-sha256', ctx, 'call', READ);
    if (!entry) throw new Error('the bench chain moved under the one-statement append');
    head = { ...head, seq: entry.seq, hash: entry.hash };
  };
  const measure = () => {
    paired(50, locked, oneStatement);
    return paired(n, locked, oneStatement);
  };
  const withDisk = measure();
  const fsync = async (on: boolean) => {
    db.query(on ? 'ALTER SYSTEM RESET fsync' : 'ALTER SYSTEM SET fsync = off');
    db.query('SELECT pg_reload_conf()');
    await new Promise((ok) => setTimeout(ok, 500));
  };
  await fsync(false);
  let noDisk: { a: number[]; b: number[] };
  try {
    noDisk = measure();
  } finally {
    await fsync(true);
  }
  const r = (what: string, x: number[], base: number[]): string[] => [what, ms(median(x)), ms(percentile(x, 90)), ms(percentile(x, 99)), ratio(median(x), median(base))];
  return {
    title: `PostgreSQL audit append, before and after issue 33's change (ms; load ${loadBefore} before, ${load()} after)`,
    columns: ['path', 'p50', 'p90', 'p99', 'vs transaction'],
    rows: [
      r('transaction: BEGIN; SELECT head FOR UPDATE; INSERT+UPDATE; COMMIT', withDisk.a, withDisk.a),
      r('one statement at the known end (UPDATE head WHERE seq = …, INSERT)', withDisk.b, withDisk.a),
      r('transaction, server fsync off (the disk left out)', noDisk.a, noDisk.a),
      r('one statement, server fsync off (the disk left out)', noDisk.b, noDisk.a),
    ],
    notes: [
      `${n} appends per row, the two paths alternating on one chain, HMAC-SHA256, synchronous commit: the same entry and the same WAL flush either way; what differs is 4 round trips through the worker thread against 1.`,
      'fsync off: the server acknowledges a commit without waiting for the disk (set with ALTER SYSTEM for these rows, reset after); the gap to the rows above is the WAL flush on this host.',
    ],
  };
}

/** A `SELECT 1` through the synchronous store against the same statement from an async client. */
async function roundTrips(db: PostgresState, url: string, n: number): Promise<Table> {
  const loadBefore = load();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const sync: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < n + 50; i++) {
      let started = performance.now();
      db.query('SELECT 1');
      const s = performance.now() - started;
      started = performance.now();
      await client.query('SELECT 1');
      const d = performance.now() - started;
      if (i < 50) continue;
      sync.push(s);
      direct.push(d);
    }
    const r = (what: string, s: number[]): string[] => [what, ms(median(s)), ms(percentile(s, 90)), ms(percentile(s, 99)), ratio(median(s), median(direct))];
    return {
      title: `Where a statement's time goes: one SELECT 1 round trip (ms; load ${loadBefore} before, ${load()} after)`,
      columns: ['path', 'p50', 'p90', 'p99', 'vs async pg'],
      rows: [r('PostgresState.query (worker thread + Atomics.wait)', sync), r('pg.Client.query from this thread (async)', direct)],
      notes: [`${n} samples each, alternating, after 50 warm-up pairs; the difference of the medians is the thread hop (${ms(median(sync) - median(direct))} ms).`],
    };
  } finally {
    await client.end();
  }
}
