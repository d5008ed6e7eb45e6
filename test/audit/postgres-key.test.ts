/**
 * Replicas sharing one audit chain must sign with one HMAC key: a replica whose key (or lack of
 * one) did not sign the chain's end refuses to start while another writer lives, and writes
 * nothing; once every writer is gone, a new key is a deliberate change that starts with an alert.
 * What a replica signs is what it stored, known secrets scrubbed first. Each replica has its own
 * connection, as replicas on other hosts would.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { entryHash, parseEntryLine } from '../../src/audit/entry.js';
import { withChain } from '../../src/audit/postgres-chain.js';
import { auditKeyId } from '../../src/audit/postgres-key.js';
import { PostgresAuditLog } from '../../src/audit/postgres-log.js';
import { verifyPostgresAudit } from '../../src/audit/postgres-verify.js';
import { AuditError } from '../../src/files/errors.js';
import { SecretScrubber } from '../../src/safety/redact.js';
import { openPostgres } from '../../src/state/postgres/open.js';
import type { PostgresState } from '../../src/state/postgres/sql.js';
import { postgresUnavailable, queryOnce, usePostgresStore } from '../support/postgres.js';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(32);
const KEY_C = 'c'.repeat(32);
const why = postgresUnavailable();

describe.skipIf(why !== undefined)(`one audit key for every replica${why ? ` (skipped: ${why})` : ''}`, () => {
  const fixture = usePostgresStore();
  const stores: PostgresState[] = [];

  /** A replica's own connection. */
  const store = (): PostgresState => {
    const db = openPostgres({ url: fixture.url });
    stores.push(db);
    return db;
  };
  const open = (hmacKey: string | undefined): PostgresAuditLog => PostgresAuditLog.open({ db: store(), ...(hmacKey ? { hmacKey } : {}), stderr: () => {} });
  const refusal = (hmacKey: string | undefined): AuditError => {
    try {
      open(hmacKey).close();
    } catch (err) {
      return err as AuditError;
    }
    throw new Error('the replica joined the chain');
  };
  const lines = async (): Promise<Array<{ type: string; line: string }>> => queryOnce(fixture.url, "SELECT type, line FROM audit_entries WHERE chain = 'audit' ORDER BY seq");

  afterAll(() => {
    for (const s of stores) s.close();
  });

  it('a replica with another key, or none, does not join while a writer lives, and writes nothing', async () => {
    const a = open(KEY_A);
    a.append('run-start', { runId: 'r1' });
    const before = await lines();

    const other = refusal(KEY_B);
    expect(other).toBeInstanceOf(AuditError);
    expect(other.code).toBe('audit-key');
    expect(other.message).toContain(`process ${process.pid}`);
    expect(other.message).toContain(`key id ${auditKeyId(KEY_A).slice(0, 12)}`);
    expect(other.message).toContain('give this replica the audit.hmacKey the others use');
    expect(refusal(undefined).code).toBe('audit-key');

    expect(await lines()).toEqual(before);
    const same = open(KEY_A);
    same.append('run-start', { runId: 'r2' });
    same.close();
    a.close();
    expect(verifyPostgresAudit(fixture.pg, { hmacKey: KEY_A }).problems).toEqual([]);
  });

  it('with every writer gone, a new key starts after an alert, and then binds the replicas that join', async () => {
    const before = await lines();
    const b = open(KEY_B);
    b.append('run-start', { runId: 'r3' });
    const added = (await lines()).slice(before.length);
    expect(added.map((e) => e.type)).toEqual(['alert', 'run-start']);
    expect(JSON.parse(added[0]!.line).data.message).toContain('the audit key changed');

    expect(refusal(KEY_A).code).toBe('audit-key');
    const c = open(KEY_B);
    c.append('run-start', { runId: 'r4' });
    expect((await lines()).filter((e) => e.line.includes('the audit key changed'))).toHaveLength(1);
    c.close();
    b.close();
  });

  it("binds to a live writer's key even when the chain's last entry verifies with the newcomer's", async () => {
    // C (key A) joins after a key change; then an entry signed with key B lands at the end (a B
    // writer judged gone that still wrote, or one of a build without the join lock).
    const c = open(KEY_A);
    const before = await lines();
    withChain(fixture.pg, 'audit', 'hmac-sha256', { hmacKey: KEY_B, now: () => new Date() }, (chain) => void chain.append('run-start', { runId: 'stray' }));
    const refused = refusal(KEY_B);
    expect(refused.code).toBe('audit-key');
    expect(refused.message).toContain(`key id ${auditKeyId(KEY_A).slice(0, 12)}`);
    expect((await lines()).length).toBe(before.length + 1);
    c.close();
  });

  it('a writer judged gone while a replica with a new key joined writes nothing more after that key (audit-key)', async () => {
    const db = store();
    const a = PostgresAuditLog.open({ db, hmacKey: KEY_A, stderr: () => {} });
    a.append('run-start', { runId: 'a1' });
    // A loses its lock (as when its lock's connection broke and is being retaken): judged gone.
    const [row] = await queryOnce<{ lock_key: string }>(fixture.url, 'SELECT lock_key FROM audit_writers WHERE writer = $1', [a.writer]);
    db.holdLock(BigInt(row!.lock_key)).release();
    const c = open(KEY_C);
    const before = await lines();
    expect(before.at(-1)?.line).toContain('the audit key changed');

    let refused: unknown;
    try {
      a.append('run-start', { runId: 'a2' });
    } catch (err) {
      refused = err;
    }
    expect((refused as AuditError).code).toBe('audit-key');
    expect((refused as AuditError).message).toContain('a replica with another key joined while this one was judged gone');
    expect(await lines()).toEqual(before);
    c.append('run-start', { runId: 'c1' });
    c.close();
    a.close();
  });

  it('scrubs a known secret before it is signed and stored, and signs what it stored', async () => {
    const secret = 'tok-0123456789abcdef-secret';
    const log = PostgresAuditLog.open({ db: store(), hmacKey: KEY_B, scrubber: new SecretScrubber([secret]), stderr: () => {} });
    log.append('call', { path: '/access/users', params: { note: `set by ${secret}` }, ok: true });
    log.append('call', { path: '/version', params: {}, ok: true });
    log.close();
    const stored = (await lines()).slice(-2).map((e) => e.line);
    expect(stored[0]).toContain('set by ');
    expect(stored.join('\n')).not.toContain(secret);
    // Each signed over what was stored (the chain before it changed keys once, above).
    for (const line of stored) {
      const { hash, ...base } = parseEntryLine(line)!;
      expect(entryHash(base, KEY_B)).toBe(hash);
    }
  });
});
