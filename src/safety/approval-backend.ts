/**
 * Where the approvals store keeps its plans and records. `ApprovalStore` (src/safety/approval.ts)
 * holds every rule (validity, single use, four eyes) and asks its backend only to store text and
 * records and to serialise its read-then-change steps; the backend checks nothing about their
 * content (the store parses what it reads back with src/safety/approval-records.ts).
 *
 * Two backends: this file's, the state directory of one host (the default, shared by every server
 * and CLI process of the host through a file lock), and PostgreSQL (src/safety/approval-postgres.ts),
 * shared by replicas on several hosts.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LockError } from '../files/errors.js';
import { withFileLock } from '../files/lock.js';
import { ApprovalError } from './approval-errors.js';
import { shellQuote } from './shell-quote.js';

export interface ApprovalBackend {
  /** Where the plans and approvals are, for messages (a directory, or a database without its password). */
  readonly where: string;
  /**
   * The options of a `pve-code-mcp` command (approve, console) that name this store, e.g.
   * `--state-dir /srv/state`; empty when the command finds it by itself.
   */
  readonly cliArgs: string;
  /** Keep a plan's text under its id, replacing one of the same id; readers never see half of it. */
  savePlan(planId: string, text: string): void;
  /** A plan's text as saved; undefined when there is none. */
  loadPlan(planId: string): string | undefined;
  /** The ids of the stored plans. */
  planIds(): string[];
  /**
   * The records, in the order they were appended (what cannot be parsed as JSON is left out): all
   * of them, or only those of the scope. Every rule of the store reads the records of one plan, or
   * of the plans an approval of one script names, so a shared store need not read them all.
   */
  records(scope?: RecordScope): unknown[];
  /**
   * Append one record; the caller holds `locked`. Throws ApprovalError `already-consumed` when the
   * store refuses a second `consume` of one operator approval (the database's own guarantee).
   */
  append(record: object): void;
  /**
   * Run `fn` holding the store's lock, taken across processes (and hosts, for a shared backend):
   * a read-then-append inside it sees every append made before and none made during it. Throws
   * ApprovalError `store-locked` when the lock cannot be taken.
   */
  locked<T>(fn: () => T): T;
}

/**
 * Which records: those of one plan (`planId`), or those of every plan that an `approve` record of
 * the script `codeHash` names.
 */
export type RecordScope = { planId: string } | { codeHash: string };

/** The records of the scope among all (the file backend reads them all anyway). */
export function inScope(records: unknown[], scope: RecordScope | undefined): unknown[] {
  if (!scope) return records;
  const field = (r: unknown, name: string): unknown => (r !== null && typeof r === 'object' ? (r as Record<string, unknown>)[name] : undefined);
  const plans = 'planId' in scope ? new Set([scope.planId]) : new Set(records.filter((r) => field(r, 'type') === 'approve' && field(r, 'codeHash') === scope.codeHash).map((r) => field(r, 'planId')));
  return records.filter((r) => plans.has(field(r, 'planId')));
}

/** The state directory: `plans/<planId>.json` and `approvals.jsonl`, locked by `approvals.jsonl.lock`. */
export class FileApprovalBackend implements ApprovalBackend {
  constructor(readonly dir: string) {}

  get where(): string {
    return this.dir;
  }

  get cliArgs(): string {
    return `--state-dir ${shellQuote(resolve(this.dir))}`;
  }

  private get approvalsFile(): string {
    return join(this.dir, 'approvals.jsonl');
  }

  private planFile(planId: string): string {
    return join(this.dir, 'plans', `${planId}.json`);
  }

  /** Owner-only file, written aside and renamed: another process reading the plan never sees half a file. */
  savePlan(planId: string, text: string): void {
    const file = this.planFile(planId);
    mkdirSync(join(this.dir, 'plans'), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
    try {
      writeFileSync(tmp, text, { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, file);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  loadPlan(planId: string): string | undefined {
    try {
      return readFileSync(this.planFile(planId), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  planIds(): string[] {
    try {
      return readdirSync(join(this.dir, 'plans'))
        .filter((n) => /^[0-9a-f]{64}\.json$/.test(n))
        .map((n) => n.slice(0, 64));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  records(scope?: RecordScope): unknown[] {
    let text: string;
    try {
      text = readFileSync(this.approvalsFile, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: unknown[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const parsed = safeJson(line);
      if (parsed !== undefined) out.push(parsed);
    }
    return inScope(out, scope);
  }

  append(record: object): void {
    appendFileSync(this.approvalsFile, JSON.stringify(record) + '\n', { mode: 0o600 });
  }

  locked<T>(fn: () => T): T {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    try {
      return withFileLock(this.approvalsFile, fn);
    } catch (err) {
      if (err instanceof LockError) throw new ApprovalError(`the approvals store ${this.approvalsFile} cannot be locked: ${err.message}`, 'store-locked');
      throw err;
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
