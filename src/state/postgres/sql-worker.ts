/**
 * The PostgreSQL worker thread: it owns the `pg` pool and the connections that hold session locks,
 * runs each request the calling thread sends, and wakes that thread (which waits on `Atomics.wait`)
 * when the reply is posted.
 */
import { workerData } from 'node:worker_threads';
import pg from 'pg';
import type { SqlFailure, SqlReply, SqlRequest, SqlWorkerData } from './protocol.js';

const { settings, flag, port } = workerData as SqlWorkerData;

const connection = {
  connectionString: settings.url,
  connectionTimeoutMillis: settings.connectTimeoutMs,
  // Server side: a statement stuck behind a lock is cancelled there; client side: a server that
  // stopped answering does not hold the caller forever.
  statement_timeout: settings.statementTimeoutMs,
  query_timeout: settings.statementTimeoutMs + 1_000,
  keepAlive: true,
  application_name: 'pve-code-mcp',
};
const pool = new pg.Pool({ ...connection, max: settings.poolMax, idleTimeoutMillis: 10_000 });
// An idle pooled connection that breaks is dropped by the pool; without a listener the error would end the thread.
pool.on('error', () => undefined);

const transactions = new Map<number, pg.PoolClient>();
/**
 * Session locks, each on its own connection outside the pool: it lives as long as the lock. A
 * connection that breaks (the database restarted, the network dropped) loses its lock: the lock is
 * taken again on a new connection as soon as the database answers, so a live writer is judged gone
 * only while the database could not be reached anyway.
 */
const locks = new Map<string, pg.Client | 'retaking'>();
const RETAKE_EVERY_MS = 1_000;

async function lockConnection(key: string): Promise<pg.Client> {
  const client = new pg.Client(connection);
  client.on('error', () => retake(key, client));
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [key]);
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  return client;
}

function retake(key: string, broken: pg.Client): void {
  if (locks.get(key) !== broken) return;
  locks.set(key, 'retaking');
  void broken.end().catch(() => undefined);
  const attempt = (): void => {
    if (locks.get(key) !== 'retaking') return;
    lockConnection(key).then(
      (client) => {
        // Released while the new connection was being made: let it go again.
        if (locks.get(key) === 'retaking') locks.set(key, client);
        else void client.end().catch(() => undefined);
      },
      () => setTimeout(attempt, RETAKE_EVERY_MS).unref(),
    );
  };
  setTimeout(attempt, RETAKE_EVERY_MS).unref();
}
let nextTx = 1;

function failure(err: unknown): SqlFailure {
  const e = err as { message?: string; code?: string; constraint?: string; severity?: string };
  const message = e.message ?? String(err);
  return {
    message,
    ...(e.code ? { code: e.code } : {}),
    fromServer: e.severity !== undefined,
    ...(e.constraint ? { constraint: e.constraint } : {}),
    ...(/timeout/i.test(message) || e.code === '57014' ? { timeout: true } : {}),
  };
}

async function run(req: SqlRequest): Promise<Omit<SqlReply & { ok: true }, 'id' | 'ok'>> {
  switch (req.op) {
    case 'query': {
      const on = req.tx !== undefined ? transactions.get(req.tx) : pool;
      if (!on) throw new Error(`transaction ${req.tx} is over (it was rolled back after an error)`);
      const result = await on.query(req.text, req.params);
      return { rows: result.rows };
    }
    case 'begin': {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
      } catch (err) {
        client.release(err as Error);
        throw err;
      }
      const tx = nextTx++;
      transactions.set(tx, client);
      return { tx };
    }
    case 'commit':
    case 'rollback': {
      const client = transactions.get(req.tx);
      if (!client) return {};
      transactions.delete(req.tx);
      try {
        await client.query(req.op === 'commit' ? 'COMMIT' : 'ROLLBACK');
        client.release();
      } catch (err) {
        // A connection whose COMMIT failed is not given back to the pool in an unknown state.
        client.release(err as Error);
        throw err;
      }
      return {};
    }
    case 'hold-lock': {
      if (locks.has(req.key)) return {};
      locks.set(req.key, await lockConnection(req.key));
      return {};
    }
    case 'release-lock': {
      const client = locks.get(req.key);
      locks.delete(req.key);
      await (client as pg.Client | undefined)?.end().catch(() => undefined);
      return {};
    }
    case 'lock-held': {
      const client = await pool.connect();
      try {
        const got = (await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS got', [req.key])).rows[0]?.got === true;
        if (got) await client.query('SELECT pg_advisory_unlock($1::bigint)', [req.key]);
        client.release();
        return { held: !got };
      } catch (err) {
        client.release(err as Error);
        throw err;
      }
    }
    case 'close': {
      for (const client of transactions.values()) client.release(new Error('closed'));
      transactions.clear();
      const held = [...locks.values()].filter((c): c is pg.Client => c !== 'retaking');
      locks.clear();
      await Promise.all(held.map((c) => c.end().catch(() => undefined)));
      await pool.end();
      return {};
    }
  }
}

port.on('message', (req: SqlRequest) => {
  void run(req).then(
    (out) => reply({ id: req.id, ok: true, ...out }),
    (err: unknown) => {
      // A failed statement inside a transaction leaves it aborted: nothing more can run on it.
      if (req.op === 'query' && req.tx !== undefined) {
        const client = transactions.get(req.tx);
        transactions.delete(req.tx);
        void client?.query('ROLLBACK').then(
          () => client.release(),
          (e: Error) => client.release(e),
        );
      }
      reply({ id: req.id, ok: false, error: failure(err) });
    },
  );
});

function reply(message: SqlReply): void {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}
