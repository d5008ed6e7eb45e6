/**
 * The messages between the calling thread and the PostgreSQL worker thread (sql-worker.ts): one
 * request, one reply with the same id. The caller blocks on `Atomics.wait` until the reply is there
 * (sql.ts says why the store is synchronous).
 */
import type { MessagePort } from 'node:worker_threads';
import type { PostgresSettings } from './settings.js';

export type SqlRequest =
  | { id: number; op: 'query'; text: string; params: unknown[]; tx?: number }
  | { id: number; op: 'begin' }
  | { id: number; op: 'commit' | 'rollback'; tx: number }
  | { id: number; op: 'hold-lock'; key: string }
  | { id: number; op: 'release-lock'; key: string }
  | { id: number; op: 'lock-held'; key: string }
  | { id: number; op: 'close' };

export type SqlReply = { id: number; ok: true; rows?: Array<Record<string, unknown>>; tx?: number; held?: boolean } | { id: number; ok: false; error: SqlFailure };

/** What went wrong, as plain data (an Error does not cross threads with its fields). */
export interface SqlFailure {
  message: string;
  /** Node's error code (ECONNREFUSED…) or PostgreSQL's SQLSTATE. */
  code?: string;
  /** True when PostgreSQL answered (the statement failed there); false for connection trouble. */
  fromServer: boolean;
  constraint?: string;
  timeout?: boolean;
}

/** What the worker is started with (`workerData`). */
export interface SqlWorkerData {
  settings: Required<Omit<PostgresSettings, 'url'>> & { url: string };
  /** The caller's wake-up word: the worker sets it to 1 and notifies after each reply. */
  flag: Int32Array;
  port: MessagePort;
}
