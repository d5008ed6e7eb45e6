/**
 * Append-only, hash-chained JSONL audit log (format in entry.ts, truncation anchor in anchor.ts,
 * external witness in witness.ts).
 *
 * Many writers: every `serve` process and every CLI run of a user shares one state directory, so
 * several processes append to one chain. Each append takes the inter-process lock (lock.ts),
 * reads where the chain really ends (the file's tail, whichever process wrote it; a rotation by
 * another process is seen as a new inode), appends its entry linked to that end, and releases.
 * One total order, one chain, no fork — and no false tamper alarm. The anchor and the witness
 * are written under the same lock, always with the log's real end.
 *
 * Appends are synchronous: a call's entry is on disk before the server reads anything more from
 * the sandbox, so before anything derived from the call can leave the server. When the active
 * file would grow past `maxBytes` it is renamed to `<file>.<index>` and a new file starts with a
 * `head` entry linking to it, so the chain stays verifiable across files. Retention then removes
 * the oldest rotated files past `maxTotalBytes` or `maxAgeMs` and records what it removed in a
 * `prune` entry, which is how `verifyAudit` tells retention from deletion.
 *
 * An entry is on disk whole or not at all: every write's byte count is checked, and a write that
 * fails part-way (no space, file size limit, I/O error) is cut back (`ftruncate`) to the size
 * before the entry, so nothing is ever appended after a partial line. A torn tail found on disk (a
 * crash mid-write, or a cut that itself failed) is cut back to the end of the last complete entry,
 * and an `alert` says what was cut. An entry that cannot be written fails closed with `AuditError`
 * `audit-unavailable` (stderr says so once per failing streak); the next entry that can be written
 * is preceded by an `alert` that explains the gap (since when, why, how many entries).
 *
 * Write-ahead: `intend` appends an `intent` entry and makes it durable before it returns
 * (`durability`, below); each open is a writer with its own id, registered with a liveness proof
 * (writers.ts) so that a starting server recovers only the intents of writers that are gone
 * (intents.ts).
 *
 * Opening an existing log checks it against its anchor; if the log is shorter than the anchor
 * says, or the anchor is missing or altered, an `alert` entry is written first so the evidence
 * survives the anchor being moved forward. A log that shrinks or vanishes under a running writer
 * gets an `alert` too.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { AuditError, LockError } from '../files/errors.js';
import { FileLease, withFileLock, type FileLockOptions } from '../files/lock.js';
import type { SecretScrubber } from '../safety/redact.js';
import { ANCHOR_DELAY_MS, readAnchor, writeAnchor } from './anchor.js';
import { auditData } from './canonical-data.js';
import type { RecordedChange } from '../safety/undo.js';
import {
  anchorName,
  entryHash,
  GENESIS_HASH,
  rotatedName,
  type AlertCause,
  type AuditAlgorithm,
  type AuditEntry,
  type AuditEntryType,
  type HeadData,
  type PrunedFile,
  type RecoveredData,
} from './entry.js';
import { inspectFd, inspectFile, newestRotated, readAt, rotatedFiles, type FileScan } from './file-scan.js';
import { fileIntentSource, type IntentSource } from './intents.js';
import { readRunChanges } from './run-changes.js';
import type { AppendType, AuditSink } from './sink.js';
import { openWitness, type Witness, type WitnessOptions } from './witness.js';
import { newWriterId, registerWriter, type WriterRegistration } from './writers.js';

export interface AuditRetention {
  /** Remove the oldest rotated files while all files together exceed this (default 1 GiB; 0 = no limit). */
  maxTotalBytes?: number;
  /** Remove rotated files whose last entry is older than this (default 365 days; 0 = no limit). */
  maxAgeMs?: number;
}

export interface AuditOptions {
  file: string;
  /** HMAC-SHA256 key; without it the chain uses plain SHA-256 (detects edits, not a forger who rewrites everything). */
  hmacKey?: string | Buffer;
  /** Rotate when the active file would grow past this size (default 16 MiB). */
  maxBytes?: number;
  retention?: AuditRetention;
  /** Where the chain's end is also recorded, out of the audit directory's reach. */
  witness?: WitnessOptions;
  /** Applied to every entry before hashing: no known secret ever reaches the disk. */
  scrubber?: SecretScrubber;
  now?: () => Date;
  lock?: FileLockOptions;
  /**
   * How durable an `intent` is when `intend` returns. 'fsync' (default): fdatasync'd, it survives
   * a power loss. 'os': in the page cache, it survives the process being killed but not the
   * machine losing power.
   */
  durability?: AuditDurability;
  /** Where the one-line notices of a failing audit go (default: process.stderr). */
  stderr?: (line: string) => void;
  /** The file writes, replaceable so that fault tests can make them fail or fall short. */
  fs?: AuditFs;
}

export type AuditDurability = 'fsync' | 'os';

export interface AuditFs {
  /** Like fs.writeSync: the bytes written, which may be fewer than asked. */
  write(fd: number, buffer: Buffer, offset: number, length: number): number;
  fdatasync(fd: number): void;
}

const NODE_FS: AuditFs = {
  write: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length),
  fdatasync: (fd) => fdatasyncSync(fd),
};

/** A failing streak of the audit: entries that could not be written, explained by the next one that can. */
interface Outage {
  since: string;
  error: string;
  code: string;
  lost: number;
}

/**
 * The kernel sends SIGXFSZ to a process whose write crosses its file size limit (RLIMIT_FSIZE).
 * Node ignores it (the write fails with EFBIG, which the audit handles), but the lock's
 * dependency `signal-exit` listens for it and, when it is the only listener, re-raises it with
 * the default action: the process dies. With a listener of our own the signal is harmless.
 */
let xfszGuarded = false;
function guardFileSizeSignal(): void {
  if (xfszGuarded || process.platform === 'win32') return;
  xfszGuarded = true;
  process.on('SIGXFSZ', () => undefined);
}

/** A witness failure reported asynchronously starts a new streak (alert + stderr) after this much quiet. */
const WITNESS_QUIET_MS = 60_000;

export const DEFAULT_AUDIT_MAX_BYTES = 16 * 1024 * 1024;
export const DEFAULT_AUDIT_MAX_TOTAL_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_AUDIT_MAX_AGE_MS = 365 * 24 * 3600_000;

interface ChainState {
  index: number;
  seq: number;
  hash: string;
}

export class AuditLog implements AuditSink {
  private fd: number;
  private ino: number;
  private size: number;
  private state: ChainState;
  private chain: string;
  /** The active file holds only its head (a fresh file is never rotated again). */
  private onlyHead = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly witness: Witness | undefined;
  private witnessFailing = false;
  private readonly alg: AuditAlgorithm;
  private closed = false;
  /** This open's writer id: every intent names it (writers.ts). */
  readonly writer = newWriterId();
  private registration: WriterRegistration | undefined;
  private outage: Outage | undefined;
  /** The inode whose directory entry was last fsync'd (an intent in a new file needs it durable too). */
  private dirSyncedIno = -1;
  /** Where the last entry started (to take an intent back whose fdatasync failed). */
  private lastStart = 0;
  private witnessFailedAt: number | undefined;
  private readonly fs: AuditFs;

  /** The lock kept across appends in quick succession (lock.ts). */
  private readonly lease: FileLease;

  private constructor(
    private readonly opts: AuditOptions,
    state: ChainState,
    chain: string,
    witness: Witness | undefined,
  ) {
    this.state = state;
    this.chain = chain;
    this.witness = witness;
    this.alg = opts.hmacKey !== undefined ? 'hmac-sha256' : 'sha256';
    this.lease = new FileLease(opts.file, opts.lock);
    this.fs = opts.fs ?? NODE_FS;
    this.fd = openSync(opts.file, 'a+', 0o600);
    const st = fstatSync(this.fd);
    this.ino = st.ino;
    this.size = st.size;
  }

  static open(opts: AuditOptions): AuditLog {
    guardFileSizeSignal();
    mkdirSync(dirname(opts.file), { recursive: true, mode: 0o700 });
    let log: AuditLog | undefined;
    const witness = opts.witness ? openWitness(opts.witness, { onFailure: (message) => log?.witnessFailed(message) }) : undefined;
    try {
      log = withFileLock(opts.file, () => AuditLog.openLocked(opts, witness), opts.lock);
    } catch (err) {
      witness?.close();
      throw unavailable(err, opts.file);
    }
    try {
      log.registration = registerWriter(opts.file, log.writer, log.now());
    } catch (err) {
      log.close();
      throw unavailable(err, opts.file);
    }
    return log;
  }

  private static openLocked(opts: AuditOptions, witness: Witness | undefined): AuditLog {
    const found = inspectFile(opts.file);
    const previous = found.last ? undefined : newestRotated(opts.file);
    const state: ChainState = found.last
      ? { index: found.index, seq: found.last.seq, hash: found.last.hash }
      : previous?.last
        ? { index: previous.index + 1, seq: previous.last.seq, hash: previous.last.hash }
        : { index: 1, seq: -1, hash: GENESIS_HASH };
    const chain = (found.last ? found.chain : previous?.chain) ?? randomUUID();
    const alerts = anchorAlerts(opts, found, state);
    const log = new AuditLog(opts, state, chain, witness);
    const cut = log.size > found.end ? log.cutTail(found.end, 'when the log was opened') : undefined;
    if (!found.last) log.writeHead(previous ? rotatedName(opts.file, previous.index) : undefined);
    // A file written with another algorithm (a log from before keyed mode) or without a chain id
    // is closed and the chain goes on in a new file: each file has one algorithm.
    else if (found.alg !== log.alg || found.chain === undefined) log.rotate();
    if (cut) log.write('alert', cut);
    for (const message of alerts) log.write('alert', { message });
    log.prune();
    log.flushAnchor();
    return log;
  }

  get file(): string {
    return this.opts.file;
  }

  get where(): string {
    return this.opts.file;
  }

  get intents(): IntentSource {
    return fileIntentSource(this.opts.file, (data) => this.recovered(data));
  }

  runChanges(runId: string): RecordedChange[] {
    return readRunChanges(this.opts.file, runId);
  }

  /**
   * Append one entry; returns it as written. Throws `AuditError` `audit-unavailable` when it
   * cannot be written whole (nothing of it is then on disk).
   */
  append(type: AppendType, data: Record<string, unknown>): AuditEntry {
    return this.record(type, data, false);
  }

  /**
   * Write-ahead: append an `intent` entry (with `writer: <this writer's id>`) that is durable when
   * this returns, before the change it announces is sent. One fdatasync per intent rather than a
   * group commit: appends are synchronous (nothing else runs in this process while it waits), the
   * bridge sends the change right after, and the change itself (an HTTP write to PVE, often
   * starting a task) costs far more than the sync — see docs/benchmarks.md. A group commit would
   * need an asynchronous append and would only pay off for many parallel writes in one process.
   * Throws `AuditError` `audit-unavailable` when the intent cannot be made durable: the change
   * must then not be sent.
   */
  intend(data: Record<string, unknown>): AuditEntry {
    return this.record('intent', { ...data, writer: this.writer }, true);
  }

  /** Settle the intent of a writer that is gone (intents.ts finds them). */
  recovered(data: RecoveredData): AuditEntry {
    return this.record('recovered', { ...data }, false);
  }

  /**
   * Wait (at most `timeoutMs`) until a network witness has published what it holds: a stopping
   * server calls it before close(), so the chain's last end reaches the witness.
   */
  async flushWitness(timeoutMs: number): Promise<void> {
    if (!this.closed) this.locked(() => this.flushAnchor());
    await this.witness?.flush(timeoutMs);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    try {
      this.locked(() => this.flushAnchor());
    } finally {
      this.lease.drop();
      closeSync(this.fd);
      this.witness?.close();
      this.registration?.remove();
    }
  }

  private now(): Date {
    return (this.opts.now ?? (() => new Date()))();
  }

  private say(line: string): void {
    (this.opts.stderr ?? ((l: string) => process.stderr.write(l + '\n')))(line);
  }

  /** One entry as the public API writes it: gap alert first if a failing streak just ended; fail closed. */
  private record(type: AuditEntryType, data: Record<string, unknown>, durable: boolean): AuditEntry {
    if (this.closed) throw new AuditError('audit-closed', `audit log ${this.opts.file} is closed`);
    try {
      return this.lease.run((fresh) => {
        if (fresh || this.size < 0) this.sync();
        if (this.outage) this.explainGap(this.outage);
        const entry = this.write(type, data);
        if (durable) this.makeDurable(entry);
        return entry;
      });
    } catch (err) {
      throw this.failed(err);
    }
  }

  private explainGap(o: Outage): void {
    const n = o.lost;
    const message = `the audit log could not be written from ${o.since} until now: ${o.error}; ${n} entr${n === 1 ? 'y was' : 'ies were'} not written, and nothing that needed ${n === 1 ? 'it' : 'them'} was done`;
    const entry = this.write('alert', { cause: 'audit-unavailable' satisfies AlertCause, message, since: o.since, error: o.error, code: o.code, lost: n });
    this.outage = undefined;
    this.say(`pve-code-mcp: audit log ${this.opts.file} is writable again after ${n} entr${n === 1 ? 'y' : 'ies'} could not be written since ${o.since} (alert at seq ${entry.seq})`);
  }

  /** An entry could not be written: count it in the streak (stderr once per streak) and fail closed. */
  private failed(err: unknown): Error {
    const error = unavailable(err, this.opts.file);
    const code = (err as NodeJS.ErrnoException).code ?? (err instanceof AuditError || err instanceof LockError ? err.code : 'error');
    if (this.outage) this.outage.lost++;
    else {
      this.outage = { since: this.now().toISOString(), error: error.message, code, lost: 1 };
      this.say(`pve-code-mcp: ${error.message}`);
    }
    return error;
  }

  /** fdatasync the intent (and, in a file new since the last sync, its directory entry); on failure take it back. */
  private makeDurable(entry: AuditEntry): void {
    if ((this.opts.durability ?? 'fsync') !== 'fsync') return;
    try {
      this.fs.fdatasync(this.fd);
      if (this.dirSyncedIno !== this.ino) {
        const dir = openSync(dirname(this.opts.file), 'r');
        try {
          fsyncSync(dir);
        } finally {
          closeSync(dir);
        }
        this.dirSyncedIno = this.ino;
      }
    } catch (err) {
      // Whether the intent reached the disk is unknown: it is cut off, and the change is not sent.
      try {
        ftruncateSync(this.fd, this.lastStart);
        this.state = { index: this.state.index, seq: entry.seq - 1, hash: entry.prev };
      } catch {
        // The next append finds the tail on disk and goes on from there.
      }
      this.size = -1;
      throw err;
    }
  }

  /** An asynchronous witness transport could not publish: an alert and a stderr line, once per streak. */
  private witnessFailed(message: string): void {
    const now = Date.now();
    const quiet = this.witnessFailedAt === undefined || now - this.witnessFailedAt > WITNESS_QUIET_MS;
    this.witnessFailedAt = now;
    if (!quiet || this.closed) return;
    this.say(`pve-code-mcp: the audit witness could not publish: ${message}`);
    try {
      this.record('alert', { message: `the audit witness could not publish the chain's end: ${message}` }, false);
    } catch {
      // The audit itself is unavailable: that streak has its own stderr line and gap alert.
    }
  }

  private locked<T>(fn: () => T): T {
    return withFileLock(this.opts.file, fn, this.opts.lock);
  }

  private write(type: AuditEntryType, data: Record<string, unknown>): AuditEntry {
    const clean = auditData(data, this.opts.scrubber);
    return this.lease.run((fresh) => {
      if (fresh || this.size < 0) this.sync();
      let line = this.render(type, clean.data, clean.json);
      const max = this.opts.maxBytes ?? DEFAULT_AUDIT_MAX_BYTES;
      if (type !== 'head' && !this.onlyHead && this.size + Buffer.byteLength(line.text) > max && this.state.seq >= 0 && this.size > 0) {
        this.rotate();
        line = this.render(type, clean.data, clean.json);
      }
      this.appendWhole(line.text);
      this.state = { index: this.state.index, seq: line.entry.seq, hash: line.entry.hash };
      this.onlyHead = type === 'head';
      this.scheduleAnchor();
      return line.entry;
    });
  }

  /**
   * Write one entry's bytes whole or not at all. A write may store fewer bytes than asked (the
   * device filled up, RLIMIT_FSIZE was reached); the rest is retried, and the write that then
   * fails (ENOSPC, EFBIG, EIO) cuts the file back to where the entry began.
   */
  private appendWhole(text: string): void {
    const buf = Buffer.from(text, 'utf8');
    const start = this.size;
    let done = 0;
    try {
      while (done < buf.length) {
        const n = this.fs.write(this.fd, buf, done, buf.length - done);
        if (n <= 0) throw Object.assign(new Error(`a write of ${buf.length - done} bytes stored nothing`), { code: 'EIO' });
        done += n;
      }
    } catch (err) {
      if (done > 0) {
        try {
          ftruncateSync(this.fd, start);
        } catch {
          // The torn tail stays until the next append finds and cuts it (with an alert).
        }
      }
      // Re-read the end of the file before the next entry, whatever this left there.
      this.size = -1;
      throw err;
    }
    this.lastStart = start;
    this.size = start + done;
  }

  /**
   * Cut the bytes after the last complete entry (a torn write: a crash or a failed write
   * mid-entry, or lines that are not entries) and return the alert that says what was cut.
   */
  private cutTail(end: number, when: string): Record<string, unknown> {
    const bytes = this.size - end;
    const cut = readAt(this.fd, end, Math.min(bytes, 4096));
    const why = cut.includes(0x0a) ? 'they are not complete audit entries' : 'the last entry was torn (written part-way: the process died, or a write failed, in the middle of it)';
    ftruncateSync(this.fd, end);
    this.size = end;
    const excerpt = cut.subarray(0, 160).toString('utf8');
    return {
      cause: 'torn-tail' satisfies AlertCause,
      message: `cut ${bytes} byte(s) off the end of ${basename(this.opts.file)} at offset ${end} ${when}: ${why}`,
      file: basename(this.opts.file),
      offset: end,
      bytes,
      excerpt,
    };
  }

  /**
   * Under the lock: bring the in-memory end of the chain up to what is on disk (other processes
   * append too). Only appends are legitimate; a file that shrank or vanished gets an alert, and a
   * torn tail is cut back to the last complete entry (with an alert).
   */
  private sync(): void {
    const st = statSync(this.opts.file, { throwIfNoEntry: false });
    if (!st) {
      this.recreate();
      return;
    }
    if (st.ino !== this.ino) {
      // Another process rotated the file: continue in the new one.
      closeSync(this.fd);
      this.fd = openSync(this.opts.file, 'a+', 0o600);
      this.ino = fstatSync(this.fd).ino;
      this.size = -1;
    }
    if (st.size === this.size) return;
    const found = inspectFd(this.fd, st.size);
    const before = this.state;
    this.size = st.size;
    const cut = this.size > found.end ? this.cutTail(found.end, 'while this process was writing it') : undefined;
    if (!found.last) {
      // An active file without entries (a writer died between rotating and writing the head).
      this.restart(before);
      if (cut) this.write('alert', cut);
      return;
    }
    this.state = { index: found.index, seq: found.last.seq, hash: found.last.hash };
    if (found.chain) this.chain = found.chain;
    this.onlyHead = found.last.type === 'head';
    if (found.last.seq < before.seq) {
      this.write('alert', { message: `audit log went back from seq ${before.seq} to seq ${found.last.seq} while this process was writing it: entries were removed or an older copy was restored` });
    }
    if (cut) this.write('alert', cut);
  }

  /** The active file is gone while this process runs: start a new one where the files on disk end. */
  private recreate(): void {
    closeSync(this.fd);
    this.fd = openSync(this.opts.file, 'a+', 0o600);
    this.ino = fstatSync(this.fd).ino;
    this.size = 0;
    this.restart(this.state);
  }

  /** Continue the chain in an active file that has no entry, from the newest rotated file. */
  private restart(known: ChainState): void {
    const previous = newestRotated(this.opts.file);
    this.state = previous?.last ? { index: previous.index + 1, seq: previous.last.seq, hash: previous.last.hash } : { index: 1, seq: -1, hash: GENESIS_HASH };
    const onDisk = this.state.seq;
    this.writeHead(previous ? previous.path : undefined);
    if (known.seq > onDisk) {
      this.write('alert', { message: `the active audit file was removed or emptied while this process was writing it (it had reached seq ${known.seq}, the files left end at seq ${onDisk})` });
    }
  }

  /** `dataJson`: the data's canonical JSON, from `auditData`. */
  private render(type: AuditEntryType, data: Record<string, unknown>, dataJson: string | undefined): { entry: AuditEntry; text: string } {
    const now = (this.opts.now ?? (() => new Date()))();
    const base = { v: 1 as const, seq: this.state.seq + 1, ts: now.toISOString(), type, prev: this.state.hash, data };
    const entry: AuditEntry = { ...base, hash: entryHash(base, this.opts.hmacKey, dataJson) };
    return { entry, text: JSON.stringify(entry) + '\n' };
  }

  private writeHead(prevFile?: string): void {
    const head: HeadData = { index: this.state.index, alg: this.alg, chain: this.chain, ...(prevFile ? { prevFile: basename(prevFile) } : {}) };
    this.write('head', { ...head });
  }

  private rotate(): void {
    // With durable intents the file being closed is synced too, or a power loss could leave it
    // shorter than the next file's head says (a truncation no one made).
    if ((this.opts.durability ?? 'fsync') === 'fsync') this.fs.fdatasync(this.fd);
    closeSync(this.fd);
    const rotated = rotatedName(this.opts.file, this.state.index);
    renameSync(this.opts.file, rotated);
    this.fd = openSync(this.opts.file, 'a+', 0o600);
    this.ino = fstatSync(this.fd).ino;
    this.size = 0;
    this.state = { ...this.state, index: this.state.index + 1 };
    this.writeHead(rotated);
    this.prune();
    // Rotation is rare: the anchor follows it at once, as a reader of the file set expects (or
    // with the next timer, if the anchor cannot be written now).
    try {
      this.flushAnchor();
    } catch {
      this.scheduleAnchor();
    }
  }

  /** Retention: remove the oldest rotated files past the size or age limit, and say so in the chain. */
  private prune(): void {
    const maxTotal = this.opts.retention?.maxTotalBytes ?? DEFAULT_AUDIT_MAX_TOTAL_BYTES;
    const maxAge = this.opts.retention?.maxAgeMs ?? DEFAULT_AUDIT_MAX_AGE_MS;
    if (maxTotal <= 0 && maxAge <= 0) return;
    const files = rotatedFiles(this.opts.file).map((f) => ({ ...f, bytes: statSync(f.path).size }));
    let total = files.reduce((n, f) => n + f.bytes, 0) + Math.max(this.size, 0);
    const now = (this.opts.now ?? (() => new Date()))().getTime();
    const removed: PrunedFile[] = [];
    const reasons = new Set<string>();
    for (const f of files) {
      const found = inspectFile(f.path);
      const tooBig = maxTotal > 0 && total > maxTotal;
      const tooOld = maxAge > 0 && found.last !== undefined && Date.parse(found.last.ts) < now - maxAge;
      if (!tooBig && !tooOld) break;
      if (!found.last) break; // not an audit file we understand: leave it for verify to report
      unlinkSync(f.path);
      total -= f.bytes;
      if (tooBig) reasons.add(`all audit files together exceeded ${maxTotal} bytes`);
      if (tooOld) reasons.add(`older than ${Math.round(maxAge / 86_400_000)} day(s)`);
      removed.push({ file: basename(f.path), index: f.index, lastSeq: found.last.seq, lastHash: found.last.hash, lastTs: found.last.ts, bytes: f.bytes });
    }
    if (removed.length > 0) this.write('prune', { removed, reason: [...reasons].join('; '), maxTotalBytes: maxTotal, maxAgeMs: maxAge });
  }

  private scheduleAnchor(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.closed) return;
      try {
        this.locked(() => this.flushAnchor());
      } catch {
        // Retried with the next entry; what is not anchored yet is reported by verify as a warning.
      }
    }, ANCHOR_DELAY_MS);
  }

  /** Under the lock: record the real end of the log in the anchor (and the witness). */
  private flushAnchor(): void {
    this.sync();
    const path = anchorName(this.opts.file);
    const current = readAnchor(path, this.opts.hmacKey);
    if (current.status === 'ok' && current.state.seq === this.state.seq && current.state.hash === this.state.hash && current.state.index === this.state.index) return;
    if (this.witness) {
      try {
        this.witness.write({ chain: this.chain, ...this.state, ts: (this.opts.now ?? (() => new Date()))().toISOString() }, this.opts.hmacKey);
        this.witnessFailing = false;
      } catch (err) {
        if (!this.witnessFailing) {
          this.witnessFailing = true;
          this.say(`pve-code-mcp: the audit witness could not be written: ${(err as Error).message}`);
          this.write('alert', { message: `the audit witness could not be written: ${(err as Error).message}` });
        }
      }
    }
    writeAnchor(path, { v: 1, ...this.state }, this.opts.hmacKey);
  }
}

/**
 * The error an append throws when its entry could not be written: `audit-unavailable` naming the
 * cause and the fix for a file-system failure; other audit errors (the lock) unchanged.
 */
function unavailable(err: unknown, file: string): Error {
  if (err instanceof AuditError || err instanceof LockError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (typeof code !== 'string') return err as Error;
  const dir = dirname(file);
  const [cause, fix] =
    code === 'ENOSPC'
      ? [`no space left on the device holding ${dir}`, 'free space there']
      : code === 'EDQUOT'
        ? [`the disk quota on the device holding ${dir} is used up`, 'free space there or raise the quota']
        : code === 'EFBIG'
          ? [`the file size limit was reached (the process's RLIMIT_FSIZE, \`ulimit -f\`, or the file system's largest file)`, 'raise the limit, or lower audit.maxFileMb so the log rotates sooner']
          : code === 'EIO'
            ? [`an I/O error on the device holding ${dir}`, 'check the disk (dmesg, smartctl) and the file system']
            : code === 'EROFS'
              ? [`the file system holding ${dir} is read-only`, 'remount it read-write']
              : code === 'EACCES' || code === 'EPERM'
                ? [`permission denied in ${dir}`, `check the owner and mode of ${dir} and of its files`]
                : [(err as Error).message, 'check the disk and the directory'];
  return new AuditError(
    'audit-unavailable',
    `the audit log ${file} cannot be written: ${cause} (${code}); nothing that needs an audit entry is done until it can be written: ${fix}, and the audit resumes by itself`,
  );
}

function anchorAlerts(opts: AuditOptions, found: FileScan, state: ChainState): string[] {
  const path = anchorName(opts.file);
  let anchor = readAnchor(path, opts.hmacKey);
  // A log written before keyed mode has an anchor tagged without the key: still authentic for it.
  if (anchor.status === 'invalid' && opts.hmacKey !== undefined && found.alg === 'sha256') {
    const unkeyed = readAnchor(path);
    if (unkeyed.status === 'ok') anchor = unkeyed;
  }
  if (anchor.status === 'missing') {
    return found.exists || state.seq >= 0 ? ['audit anchor was missing when the log was opened; entries may have been cut off the end before this point'] : [];
  }
  if (anchor.status === 'invalid') return [`audit anchor was invalid when the log was opened (${anchor.reason}); the end of the log before this point is unverified`];
  const a = anchor.state;
  if (a.seq > state.seq) {
    return [`audit log ended at seq ${state.seq} but its anchor recorded seq ${a.seq}: ${a.seq - state.seq} entries were removed from the end before this point`];
  }
  if (a.seq === state.seq && a.hash !== state.hash) {
    return [`audit log's last entry (seq ${state.seq}) differs from the one its anchor recorded: it was replaced before this point`];
  }
  return [];
}
