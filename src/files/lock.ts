/**
 * The inter-process lock every writer of a shared state file takes (the audit log, its anchor and
 * witness, the approvals store): several `serve` processes and CLI runs share one state
 * directory, and each must append to the one chain, in one order.
 *
 * It is npm's `lockfile` lock: the file `<target>.lock` created with O_EXCL (`wx`), removed on
 * release and on process exit, and taken over when older than `staleMs` (its holder died). Node
 * has no `flock`; a directory lock (`mkdir`, as proper-lockfile does it) works too but costs a
 * directory block allocated and freed per acquisition, measured at ~1 ms on ext4 mounted with
 * `discard` against ~8 µs for the O_EXCL file (bench/audit.ts, docs/security.md).
 * Audit appends are synchronous (a call's entry is on disk in the same tick as its answer), so
 * the lock is taken synchronously too; `lockSync` cannot wait, so contention is waited out here by
 * sleeping the thread (`Atomics.wait`) a little at a time. A holder keeps the lock only for one
 * append (tens of microseconds); only a holder that died holding it makes others wait, until the
 * lock is stale, and a writer that cannot get it within `timeoutMs` fails closed with
 * `LockError` code `state-locked`.
 */
import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import lockfile from 'lockfile';
import { LockError } from './errors.js';

export interface FileLockOptions {
  /** A lock older than this (its holder died) is taken over. */
  staleMs?: number;
  /** Give up (fail closed) after waiting this long. */
  timeoutMs?: number;
}

export const DEFAULT_LOCK_STALE_MS = 5_000;
export const DEFAULT_LOCK_TIMEOUT_MS = 8_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Locks this process holds (the lock is re-entrant within a process: sync code never interleaves). */
const held = new Map<string, number>();

export function lockPathOf(target: string): string {
  return `${target}.lock`;
}

/** Run `fn` holding the inter-process lock on `target` (the lock is the file `<target>.lock`). */
export function withFileLock<T>(target: string, fn: () => T, options: FileLockOptions = {}): T {
  const depth = held.get(target) ?? 0;
  if (depth > 0) {
    held.set(target, depth + 1);
    try {
      return fn();
    } finally {
      held.set(target, depth);
    }
  }
  const release = acquire(target, options);
  held.set(target, 1);
  try {
    return fn();
  } finally {
    held.delete(target);
    try {
      release();
    } catch {
      // Already gone (taken over as stale after a very long stall): nothing left to release.
    }
  }
}

/** A waiter's mark beside the lock: a lease holder that sees it gives the lock up (`FileLease`). */
export function wantPathOf(target: string): string {
  return `${target}.want`;
}

function acquire(target: string, options: FileLockOptions): () => void {
  const path = lockPathOf(target);
  const staleMs = options.staleMs ?? DEFAULT_LOCK_STALE_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  let pause = 0.05;
  let marked = false;
  for (;;) {
    try {
      lockfile.lockSync(path, { stale: staleMs });
      if (marked) removeQuietly(wantPathOf(target));
      return () => lockfile.unlockSync(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOENT') {
        throw new LockError('state-lock-io', `cannot lock ${target} (${code ?? (err as Error).message}): check that the directory of ${path} is writable by this user`);
      }
      // ENOENT: the lock was released between our attempt and its staleness check; try again.
      if (!marked) {
        marked = true;
        try {
          writeFileSync(wantPathOf(target), '', { flag: 'w', mode: 0o600 });
        } catch {
          // Without the mark the holder still gives the lock up when idle or at its longest hold.
        }
      }
      if (Date.now() >= deadline) {
        if (marked) removeQuietly(wantPathOf(target));
        throw new LockError('state-locked', `${target} has been locked by another process for over ${timeoutMs} ms; if no pve-code-mcp process is running, remove ${path}`);
      }
      Atomics.wait(sleeper, 0, 0, pause);
      pause = Math.min(pause * 2, 4);
    }
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Another waiter took it already.
  }
}

/**
 * A lease is given up after this long idle, and after `LEASE_MAX_HOLD_MS` when another process
 * waits. A waiter that marked itself waits at most about both together (~20 ms; with 2 ms idle it
 * was ~12 ms), far inside its 8 s timeout; in exchange a parallel sweep against nodes answering in a few milliseconds (calls ending 1–3 ms apart) keeps
 * its lease instead of paying the lock's open/unlink and a re-read of the chain's end on most
 * appends (2 ms idle did: ~100 µs of the server's time per call, docs/benchmarks.md "session 10").
 */
export const LEASE_IDLE_MS = 10;
export const LEASE_MAX_HOLD_MS = 10;
/**
 * After a lease gave way to a waiter, appends lock one by one for this long: the lock is then free
 * most of the time, so the waiter (another writer, `audit verify`) gets it between two appends.
 */
export const LEASE_COOLDOWN_MS = 5;

/**
 * The lock of one busy writer, kept between its appends while they come in quick succession (a
 * script's sequential bridge calls append one entry every fraction of a millisecond) and given up
 * when the writer is idle for `LEASE_IDLE_MS`, or has held it for `LEASE_MAX_HOLD_MS`, so other
 * processes wait at most that long. Taking the lock costs three file system calls and checking
 * where the chain ends one more; while the lease is held no other writer can have appended, so
 * both happen once per lease instead of once per entry.
 */
export class FileLease {
  private release: (() => void) | undefined;
  private since = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Nested runs (an append that writes an alert): only the outermost one may give the lock up. */
  private depth = 0;
  private cooldownUntil = 0;

  constructor(
    private readonly target: string,
    private readonly options: FileLockOptions = {},
  ) {}

  /** Run `fn` holding the lock; `fresh` says the lock was taken for this call (the chain's end must be re-read). */
  run<T>(fn: (fresh: boolean) => T): T {
    if (this.release) return this.hold(fn, false);
    // Inside a withFileLock scope of this process: the lock is ours for that scope only.
    if (held.has(this.target)) return fn(true);
    if (performance.now() < this.cooldownUntil) return withFileLock(this.target, () => fn(true), this.options);
    this.release = acquire(this.target, this.options);
    this.since = performance.now();
    held.set(this.target, 1);
    return this.hold(fn, true);
  }

  /** Give the lock up now (close, or before a step that must not hold it). */
  drop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const release = this.release;
    if (!release) return;
    this.release = undefined;
    held.delete(this.target);
    try {
      release();
    } catch {
      // Already gone (taken over as stale after a very long stall): nothing left to release.
    }
  }

  private hold<T>(fn: (fresh: boolean) => T, fresh: boolean): T {
    this.depth++;
    try {
      return fn(fresh);
    } finally {
      this.depth--;
      if (this.depth === 0) {
        const now = performance.now();
        if (now - this.since < LEASE_MAX_HOLD_MS) this.arm();
        else if (existsSync(wantPathOf(this.target))) {
          // Someone waits (it left its mark): give way.
          this.drop();
          this.cooldownUntil = now + LEASE_COOLDOWN_MS;
        } else {
          // Nobody waits: keep the lease for another period (one stat instead of a lock per append).
          this.since = now;
          this.arm();
        }
      }
    }
  }

  private arm(): void {
    // One timer per lease, pushed back at each append (cheaper than a new timer per entry).
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => this.drop(), LEASE_IDLE_MS);
    this.timer.unref();
  }
}
