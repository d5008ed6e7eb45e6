/**
 * Where standing approvals are kept. `StandingStore` (src/safety/standing-store.ts) checks their
 * shape and makes every change as one read-then-write under the backend's lock; the backend only
 * stores them. The file backend (here) is `standing-approvals.json` in the state directory; the
 * PostgreSQL one (src/safety/standing-postgres.ts) is shared by the replicas of a deployment.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withFileLock } from '../files/lock.js';
import type { StandingApproval } from './standing.js';

export interface StandingBackend {
  /** Where they are kept (a file, or a database without its password), for messages. */
  readonly where: string;
  /** Every standing approval as stored, oldest first (the store checks the shape). */
  read(): unknown;
  /** Store one approval: it replaces the one with its id, else it comes after the others. The caller holds `locked`. */
  put(approval: StandingApproval): void;
  /** Run `fn` holding the store's lock, across processes (and hosts, for a shared backend). */
  locked<T>(fn: () => T): T;
}

/** `standing-approvals.json`: one JSON array, replaced whole (written aside and renamed). */
export class FileStandingBackend implements StandingBackend {
  constructor(readonly dir: string) {}

  get where(): string {
    return join(this.dir, 'standing-approvals.json');
  }

  read(): unknown {
    if (!existsSync(this.where)) return [];
    return JSON.parse(readFileSync(this.where, 'utf8'));
  }

  put(approval: StandingApproval): void {
    const all = this.read() as StandingApproval[];
    const at = all.findIndex((a) => a.id === approval.id);
    const next = at >= 0 ? all.map((a, i) => (i === at ? approval : a)) : [...all, approval];
    const tmp = `${this.where}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.where);
  }

  locked<T>(fn: () => T): T {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return withFileLock(this.where, fn);
  }
}
