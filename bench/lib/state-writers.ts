/**
 * Two writer processes appending to one PostgreSQL audit chain at once, as two replicas would: the
 * `state` suite's contention figure. Each process (this module run with WRITER_FLAG) opens its own
 * store and PostgresAuditLog, waits for the word on stdin so both start together, appends, and
 * prints its per-append samples; the chain is verified afterwards.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { PostgresAuditLog } from '../../src/audit/postgres-log.js';
import { verifyPostgresAudit } from '../../src/audit/postgres-verify.js';
import { openPostgres } from '../../src/state/postgres/open.js';
import type { PostgresState } from '../../src/state/postgres/sql.js';
import { median, ms, percentile, type Table } from './table.js';

const WRITER_FLAG = '--state-bench-writer';
const WRITERS = 2;

interface Writer {
  ready: Promise<void>;
  done: Promise<number[]>;
  go(): void;
}

function writer(url: string, key: string, count: number): Writer {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), WRITER_FLAG, url, key, String(count)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw new Error(`a state bench writer exited early (code ${child.exitCode})`);
    return line.value;
  };
  const ready = next().then(() => undefined);
  return { ready, done: ready.then(next).then((l) => JSON.parse(l) as number[]), go: () => child.stdin.end('go\n') };
}

export async function appendersAtOnce(url: string, key: string, quick: boolean, db: PostgresState): Promise<Table> {
  const perWriter = quick ? 200 : 1_000;
  const loadBefore = (loadavg()[0] ?? 0).toFixed(1);
  const startSeq = Number(db.query<{ seq: string }>("SELECT seq FROM audit_chain WHERE chain = 'audit'")[0]?.seq ?? -1);
  const writers = Array.from({ length: WRITERS }, () => writer(url, key, perWriter));
  await Promise.all(writers.map((w) => w.ready));
  const started = performance.now();
  for (const w of writers) w.go();
  const samples = await Promise.all(writers.map((w) => w.done));
  const wallMs = performance.now() - started;
  const verdict = verifyPostgresAudit(db, { hmacKey: key });
  if (!verdict.ok)
    throw new Error(
      `the chain written by ${WRITERS} writers does not verify: ${verdict.problems
        .slice(0, 3)
        .map((p) => p.message)
        .join('; ')}`,
    );
  const all = samples.flat();
  // An entry whose writer differs from the entry before it was appended after the other writer's:
  // its writer's last-known end was stale, so its one-statement append found nothing to move.
  const owners = db.query<{ w: string }>("SELECT line::json->'data'->>'runId' AS w FROM audit_entries WHERE chain = 'audit' AND seq > $1 AND type = 'call' ORDER BY seq", [startSeq]).map((r) => r.w);
  const switches = owners.filter((w, i) => i > 0 && w !== owners[i - 1]).length;
  return {
    title: `${WRITERS} writer processes appending to one chain at once (ms; load ${loadBefore} before, ${(loadavg()[0] ?? 0).toFixed(1)} after)`,
    columns: ['what', 'p50', 'p90', 'p99', 'wall ms / entry', 'after the other writer'],
    rows: [['audit append (call), each writer', ms(median(all)), ms(percentile(all, 90)), ms(percentile(all, 99)), ms(wallMs / all.length), `${switches} of ${owners.length}`]],
    notes: [
      `${perWriter} appends per writer, each process with its own connection pool; the whole chain (${verdict.lastSeq + 1} entries) verified afterwards.`,
      "\"after the other writer\": entries that follow the other writer's, i.e. appends whose writer had not seen the chain's end (each such append tries its one statement, then appends under the head row's lock).",
    ],
  };
}

// One writer process of the measurement.
if (process.argv[2] === WRITER_FLAG) {
  const [url, key, count] = process.argv.slice(3) as [string, string, string];
  const db = openPostgres({ url });
  const log = PostgresAuditLog.open({ db, hmacKey: key });
  process.stdout.write('ready\n');
  process.stdin.resume();
  process.stdin.once('data', () => {
    const samples: number[] = [];
    for (let i = 0; i < Number(count); i++) {
      const started = performance.now();
      log.append('call', { runId: `w-${process.pid}`, i, method: 'GET', path: '/version' });
      samples.push(performance.now() - started);
    }
    log.close();
    db.close();
    process.stdout.write(`${JSON.stringify(samples)}\n`);
    process.exit(0);
  });
}
