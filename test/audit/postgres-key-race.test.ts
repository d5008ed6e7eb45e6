/**
 * Replicas that start at the same instant on one PostgreSQL audit chain, each a process with its
 * own connection. The key check and "becoming a live writer" (the first entries, the writer's
 * registration) are one transaction under one advisory lock (postgres-writers.ts
 * `registerPostgresWriter`): without it, two replicas with different keys both checked an empty
 * chain (nothing to compare), both joined, and their entries interleaved so that `audit verify`
 * with either key reported the other's as edited. A barrier in the fixture holds every replica
 * right before its first write, after its check: without the lock all replicas meet there, having
 * checked before any wrote; with it the first is let go once the second waits for the lock.
 * Needs the built code (`npx tsc -p tsconfig.json`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAuditLog } from '../../src/audit/postgres-log.js';
import { verifyPostgresAudit } from '../../src/audit/postgres-verify.js';
import { openPostgres } from '../../src/state/postgres/open.js';
import { postgresUnavailable, queryOnce, startPostgres, type TestPostgres } from '../support/postgres.js';

const JOINER = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'pg-joiner.mjs');
const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(32);
const KEY_C = 'c'.repeat(32);
const why = postgresUnavailable();

interface Joined {
  joined: boolean;
  code?: string;
  message?: string;
  key: string | undefined;
}

/** Start one replica per key at once; once each has joined or refused, let the joined ones append again and close. */
async function startTogether(url: string, keys: Array<string | undefined>): Promise<Joined[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pvemcp-join-'));
  const names = keys.map((_, i) => `r${i}`);
  writeFileSync(join(dir, 'expect'), names.join(','));
  const children: ChildProcessWithoutNullStreams[] = [];
  try {
    const results = await Promise.all(
      keys.map((key, i) => {
        const child = spawn(process.execPath, [JOINER, url, key ?? '-', dir, names[i] as string]);
        children.push(child);
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
        return new Promise<Joined>((resolve, reject) => {
          createInterface({ input: child.stdout }).once('line', (line) => resolve({ ...(JSON.parse(line) as Joined), key }));
          child.once('exit', (code) => reject(new Error(`replica ${names[i]} exited (${code}) before answering: ${stderr}`)));
        });
      }),
    );
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.stdin.write('go\n');
          }),
      ),
    );
    return results;
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(why !== undefined)(`replicas starting together on one audit chain${why ? ` (skipped: ${why})` : ''}`, () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  /** `audit verify` of the database's chain with `key`: its problems. */
  const problems = (url: string, key: string | undefined): unknown[] => {
    const db = openPostgres({ url });
    try {
      return verifyPostgresAudit(db, key === undefined ? {} : { hmacKey: key }).problems;
    } finally {
      db.close();
    }
  };

  it('with different keys on an empty chain, exactly one joins; the other refuses (audit-key) and the chain verifies', async () => {
    const url = await server.createDatabase();
    const results = await startTogether(url, [KEY_A, KEY_B]);
    const joined = results.filter((r) => r.joined);
    expect(joined).toHaveLength(1);
    const refused = results.find((r) => !r.joined);
    expect(refused?.code).toBe('audit-key');
    expect(refused?.message).toContain('give this replica the audit.hmacKey the others use');
    expect(problems(url, joined[0]?.key)).toEqual([]);
  }, 60_000);

  it('with one key and none on an empty chain, exactly one joins', async () => {
    const url = await server.createDatabase();
    const results = await startTogether(url, [KEY_A, undefined]);
    expect(results.filter((r) => r.joined)).toHaveLength(1);
    expect(results.find((r) => !r.joined)?.code).toBe('audit-key');
    expect(problems(url, results.find((r) => r.joined)?.key)).toEqual([]);
  }, 60_000);

  it('with the same key, both join and the chain verifies', async () => {
    const url = await server.createDatabase();
    const results = await startTogether(url, [KEY_A, KEY_A]);
    expect(results.map((r) => r.joined)).toEqual([true, true]);
    expect(problems(url, KEY_A)).toEqual([]);
    const starts = await queryOnce<{ n: string }>(url, "SELECT count(*) AS n FROM audit_entries WHERE type = 'run-start'");
    expect(Number(starts[0]?.n)).toBe(4);
  }, 60_000);

  it('two new keys at once after every writer left: one key change, marked once; the other replica refuses', async () => {
    const url = await server.createDatabase();
    const db = openPostgres({ url });
    const old = PostgresAuditLog.open({ db, hmacKey: KEY_A, stderr: () => {} });
    old.append('run-start', { runId: 'old' });
    old.close();
    db.close();

    const results = await startTogether(url, [KEY_B, KEY_C]);
    const joined = results.filter((r) => r.joined);
    expect(joined).toHaveLength(1);
    expect(results.find((r) => !r.joined)?.code).toBe('audit-key');
    const alerts = await queryOnce<{ line: string }>(url, "SELECT line FROM audit_entries WHERE type = 'alert' ORDER BY seq");
    expect(alerts.filter((a) => a.line.includes('the audit key changed'))).toHaveLength(1);
    // Every entry after the alert verifies with the new key: the part before it with the old one only.
    const after = await queryOnce<{ line: string }>(url, "SELECT line FROM audit_entries WHERE type = 'run-start' AND line NOT LIKE '%\"old\"%'");
    expect(after).toHaveLength(2);
  }, 60_000);
});
