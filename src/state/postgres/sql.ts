/**
 * The shared PostgreSQL store as the product's state APIs need it: synchronous.
 *
 * Why synchronous: every state operation of the product is (an audit entry is durable in the same
 * tick as the answer that needed it; approvals are claimed under an inter-process lock; the kill
 * switch is read before each write). The file store does its I/O synchronously; the PostgreSQL store
 * keeps that shape so both sit behind the same interfaces and the bridge's ordering rules (intent
 * durable before the change is sent) hold unchanged. A worker thread owns the `pg` pool; this
 * thread posts a request and sleeps on `Atomics.wait` until the reply is posted, at most the
 * configured time, then fails closed with `StateError` `state-timeout`.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { locateEntry } from '../../process/locate.js';
import { StateError } from '../errors.js';
import type { SqlFailure, SqlReply, SqlRequest, SqlWorkerData } from './protocol.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_POOL_MAX, DEFAULT_STATEMENT_TIMEOUT_MS, describePostgresUrl, type PostgresSettings } from './settings.js';

export type SqlRow = Record<string, unknown>;

export interface Sql {
  /** One statement (autocommit, or inside the transaction this `Sql` belongs to). */
  query<R extends SqlRow = SqlRow>(text: string, params?: unknown[]): R[];
  /**
   * `fn` inside BEGIN … COMMIT on one connection; ROLLBACK when it throws (the error is rethrown).
   * Inside `fn` use the `tx` given: it is pinned to the transaction's connection. A nested
   * `tx.transaction` joins the outer one.
   */
  transaction<T>(fn: (tx: Sql) => T): T;
}

export interface PostgresState extends Sql {
  /** The database as messages name it (no password). */
  readonly where: string;
  /**
   * Hold a session-level advisory lock on a connection of its own until `release()` or `close()`,
   * or until this process dies: the server then drops the connection and the lock with it.
   */
  holdLock(key: bigint): { release(): void };
  /** Whether some session (this process's own included) holds the advisory lock `key` now. */
  lockHeld(key: bigint): boolean;
  close(): void;
}

type RequestBody = SqlRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export class SyncPostgres implements PostgresState {
  readonly where: string;
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly waitMs: number;
  private nextId = 1;
  private closed = false;

  constructor(settings: PostgresSettings) {
    this.where = describePostgresUrl(settings.url);
    const resolved = {
      url: settings.url,
      poolMax: settings.poolMax ?? DEFAULT_POOL_MAX,
      connectTimeoutMs: settings.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: settings.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    };
    // A request may wait for a connection, then run one statement: both bounded in the worker; the margin covers the worker's own start.
    this.waitMs = resolved.connectTimeoutMs + resolved.statementTimeoutMs + 2_000;
    const channel = new MessageChannel();
    this.port = channel.port1;
    const data: SqlWorkerData = { settings: resolved, flag: this.flag, port: channel.port2 };
    this.worker = new Worker(locateEntry(import.meta.url, 'sql-worker.js', 'PostgreSQL worker'), { workerData: data, transferList: [channel.port2] });
    this.worker.unref();
    this.port.unref();
  }

  query<R extends SqlRow = SqlRow>(text: string, params: unknown[] = []): R[] {
    return (this.call({ op: 'query', text, params }).rows ?? []) as R[];
  }

  transaction<T>(fn: (tx: Sql) => T): T {
    const tx = this.call({ op: 'begin' }).tx as number;
    const pinned: Sql = {
      query: <R extends SqlRow = SqlRow>(text: string, params: unknown[] = []) => (this.call({ op: 'query', text, params, tx }).rows ?? []) as R[],
      transaction: <U>(inner: (t: Sql) => U) => inner(pinned),
    };
    let result: T;
    try {
      result = fn(pinned);
    } catch (err) {
      try {
        this.call({ op: 'rollback', tx });
      } catch {
        // The connection is gone: the server rolls back an unfinished transaction by itself.
      }
      throw err;
    }
    this.call({ op: 'commit', tx });
    return result;
  }

  holdLock(key: bigint): { release(): void } {
    this.call({ op: 'hold-lock', key: key.toString() });
    return { release: () => void (this.closed ? undefined : this.call({ op: 'release-lock', key: key.toString() })) };
  }

  lockHeld(key: bigint): boolean {
    return this.call({ op: 'lock-held', key: key.toString() }).held === true;
  }

  close(): void {
    if (this.closed) return;
    try {
      this.call({ op: 'close' });
    } catch {
      // Closing a store whose database is gone: nothing to hand back.
    } finally {
      this.closed = true;
      void this.worker.terminate();
    }
  }

  private call(body: RequestBody): SqlReply & { ok: true } {
    if (this.closed) throw new StateError('state-unavailable', `the PostgreSQL store ${this.where} is closed`);
    const id = this.nextId++;
    const deadline = Date.now() + this.waitMs;
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage({ ...body, id } as SqlRequest);
    for (;;) {
      Atomics.store(this.flag, 0, 0);
      const received = receiveMessageOnPort(this.port);
      if (received) {
        const reply = received.message as SqlReply;
        // A reply to a request that already timed out is dropped.
        if (reply.id !== id) continue;
        if (reply.ok) return reply;
        throw toStateError(reply.error, this.where);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new StateError(
          'state-timeout',
          `PostgreSQL at ${this.where} did not answer within ${this.waitMs} ms; check the database and the network (state.postgres.connectTimeoutMs / statementTimeoutMs); nothing that needed it was done`,
        );
      }
      Atomics.wait(this.flag, 0, 0, left);
    }
  }
}

function toStateError(f: SqlFailure, where: string): StateError {
  if (f.fromServer && f.code?.startsWith('23')) {
    return new StateError('state-conflict', `PostgreSQL at ${where} refused the change: ${f.message}`, f.code, f.constraint);
  }
  if (f.timeout) return new StateError('state-timeout', `PostgreSQL at ${where} timed out: ${f.message}; nothing that needed it was done`, f.code);
  if (f.fromServer) return new StateError('state-unavailable', `PostgreSQL at ${where} failed: ${f.message}`, f.code);
  return new StateError(
    'state-unavailable',
    `cannot reach PostgreSQL at ${where}: ${f.message}${f.code ? ` (${f.code})` : ''}; check state.postgres (URL, password) and that the server runs; changes are refused until it answers`,
    f.code,
  );
}
