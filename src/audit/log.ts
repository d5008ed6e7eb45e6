/**
 * Append-only, hash-chained JSONL audit log (format in entry.ts, truncation anchor in anchor.ts).
 *
 * Appends are synchronous: a call's entry is on disk before the server reads anything more from
 * the sandbox, so before anything derived from the call can leave the server.
 * One process writes a given audit file. When the active file would grow past `maxBytes` it is
 * renamed to `<file>.<index>` and a new file starts with a `head` entry linking to it, so the
 * chain stays verifiable across files.
 *
 * Opening an existing log checks it against its anchor; if the log is shorter than the anchor
 * says, or the anchor is missing or altered, an `alert` entry is written first so the evidence
 * survives the anchor being moved forward.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SecretScrubber } from '../safety/redact.js';
import { AnchorWriter, readAnchor } from './anchor.js';
import { anchorName, entryHash, GENESIS_HASH, parseEntryLine, rotatedName, type AuditAlgorithm, type AuditEntry, type AuditEntryType, type HeadData } from './entry.js';

export interface AuditOptions {
  file: string;
  /** HMAC-SHA256 key; without it the chain uses plain SHA-256 (detects edits, not a forger who rewrites everything). */
  hmacKey?: string | Buffer;
  /** Rotate when the active file would grow past this size (default 16 MiB). */
  maxBytes?: number;
  /** Applied to every entry before hashing: no known secret ever reaches the disk. */
  scrubber?: SecretScrubber;
  now?: () => Date;
}

export const DEFAULT_AUDIT_MAX_BYTES = 16 * 1024 * 1024;

interface ChainState {
  index: number;
  seq: number;
  hash: string;
}

export class AuditLog {
  private fd: number;
  private size: number;
  private state: ChainState;
  private readonly anchor: AnchorWriter;
  private readonly alg: AuditAlgorithm;
  private closed = false;

  private constructor(private readonly opts: AuditOptions, fd: number, size: number, state: ChainState, anchor: AnchorWriter) {
    this.fd = fd;
    this.size = size;
    this.state = state;
    this.anchor = anchor;
    this.alg = opts.hmacKey !== undefined ? 'hmac-sha256' : 'sha256';
  }

  static open(opts: AuditOptions): AuditLog {
    mkdirSync(dirname(opts.file), { recursive: true, mode: 0o700 });
    const found = scanActive(opts.file);
    const previous = found.last ? undefined : lastOfRotated(opts.file);
    const state: ChainState = found.last
      ? { index: found.index, seq: found.last.seq, hash: found.last.hash }
      : previous
        ? { index: previous.index + 1, seq: previous.entry.seq, hash: previous.entry.hash }
        : { index: 1, seq: -1, hash: GENESIS_HASH };
    const alerts = anchorAlerts(opts, found.exists, state);
    const fd = openSync(opts.file, 'a', 0o600);
    let size = fstatSync(fd).size;
    if (size > 0 && !found.endsWithNewline) size += writeSync(fd, '\n');
    const log = new AuditLog(opts, fd, size, state, new AnchorWriter(anchorName(opts.file)));
    if (!found.last) log.writeHead(previous ? rotatedName(opts.file, previous.index) : undefined);
    for (const message of alerts) log.write('alert', { message });
    return log;
  }

  get file(): string {
    return this.opts.file;
  }

  /** Append one entry; returns it as written. */
  append(type: Exclude<AuditEntryType, 'head' | 'alert'>, data: Record<string, unknown>): AuditEntry {
    if (this.closed) throw new Error(`audit log ${this.opts.file} is closed`);
    return this.write(type, data);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    this.anchor.close();
  }

  private write(type: AuditEntryType, data: Record<string, unknown>): AuditEntry {
    const clean = this.opts.scrubber ? this.opts.scrubber.scrubDeep(data) : data;
    let line = this.render(type, clean);
    const max = this.opts.maxBytes ?? DEFAULT_AUDIT_MAX_BYTES;
    if (type !== 'head' && this.size + Buffer.byteLength(line.text) > max && this.state.seq >= 0 && this.size > 0) {
      this.rotate();
      line = this.render(type, clean);
    }
    this.size += writeSync(this.fd, line.text);
    this.state = { index: this.state.index, seq: line.entry.seq, hash: line.entry.hash };
    this.anchor.write({ v: 1, ...this.state }, this.opts.hmacKey);
    return line.entry;
  }

  private render(type: AuditEntryType, data: Record<string, unknown>): { entry: AuditEntry; text: string } {
    const now = (this.opts.now ?? (() => new Date()))();
    const base = { v: 1 as const, seq: this.state.seq + 1, ts: now.toISOString(), type, prev: this.state.hash, data };
    const entry: AuditEntry = { ...base, hash: entryHash(base, this.opts.hmacKey) };
    return { entry, text: JSON.stringify(entry) + '\n' };
  }

  private writeHead(prevFile?: string): void {
    const head: HeadData = { index: this.state.index, alg: this.alg, ...(prevFile ? { prevFile: basename(prevFile) } : {}) };
    this.write('head', { ...head });
  }

  private rotate(): void {
    // Rotation is rare: the anchor follows each step at once, as a reader of the file set expects.
    this.anchor.flush();
    closeSync(this.fd);
    const rotated = rotatedName(this.opts.file, this.state.index);
    renameSync(this.opts.file, rotated);
    this.fd = openSync(this.opts.file, 'a', 0o600);
    this.size = 0;
    this.state = { ...this.state, index: this.state.index + 1 };
    this.writeHead(rotated);
    this.anchor.flush();
  }
}

interface ActiveScan {
  exists: boolean;
  index: number;
  last?: AuditEntry;
  endsWithNewline: boolean;
}

function scanActive(file: string): ActiveScan {
  if (!existsSync(file)) return { exists: false, index: 1, endsWithNewline: true };
  const text = readFileSync(file, 'utf8');
  let index = 1;
  let last: AuditEntry | undefined;
  for (const line of text.split('\n')) {
    const entry = line ? parseEntryLine(line) : undefined;
    if (!entry) continue;
    if (entry.type === 'head' && typeof entry.data.index === 'number') index = entry.data.index;
    if (!last || entry.seq > last.seq) last = entry;
  }
  return { exists: true, index, ...(last ? { last } : {}), endsWithNewline: text.length === 0 || text.endsWith('\n') };
}

/** Rotated siblings of `file`, oldest first. */
export function rotatedFiles(file: string): Array<{ index: number; path: string }> {
  const dir = dirname(file);
  const prefix = basename(file) + '.';
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.startsWith(prefix) && /^\d{6}$/.test(n.slice(prefix.length)))
    .map((n) => ({ index: Number(n.slice(prefix.length)), path: join(dir, n) }))
    .sort((a, b) => a.index - b.index);
}

function lastOfRotated(file: string): { index: number; entry: AuditEntry } | undefined {
  const newest = rotatedFiles(file).pop();
  if (!newest) return undefined;
  const entries = readFileSync(newest.path, 'utf8').split('\n').map((l) => (l ? parseEntryLine(l) : undefined));
  const last = entries.filter((e): e is AuditEntry => e !== undefined).pop();
  return last ? { index: newest.index, entry: last } : undefined;
}

function anchorAlerts(opts: AuditOptions, fileExists: boolean, state: ChainState): string[] {
  const anchor = readAnchor(anchorName(opts.file), opts.hmacKey);
  if (anchor.status === 'missing') {
    return fileExists || state.seq >= 0 ? ['audit anchor was missing when the log was opened; entries may have been cut off the end before this point'] : [];
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
