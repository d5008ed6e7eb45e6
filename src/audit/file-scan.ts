/**
 * Reading audit files from their ends: the head and the last complete entry of a file (without
 * reading it whole), and the rotated siblings of the active file. Shared by the writer (log.ts),
 * the recovery of intents (intents.ts) and the readers (verify.ts, run-changes.ts).
 */
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseEntryLine, type AuditAlgorithm, type AuditEntry } from './entry.js';

export interface FileScan {
  exists: boolean;
  index: number;
  alg?: AuditAlgorithm;
  chain?: string;
  last?: AuditEntry;
  /** Where the last complete entry (parsed, newline-terminated) ends; what follows is a torn tail. */
  end: number;
}

const CHUNK = 64 * 1024;

/** The head and the last entry of an audit file, read from its two ends (not the whole file). */
export function inspectFile(path: string): FileScan {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, index: 1, end: 0 };
    throw err;
  }
  try {
    return inspectFd(fd, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

export function inspectFd(fd: number, size: number): FileScan {
  const scan: FileScan = { exists: true, index: 1, end: 0 };
  if (size === 0) return scan;
  const first = firstLine(fd, size);
  const head = first !== undefined ? parseEntryLine(first) : undefined;
  if (head?.type === 'head') {
    if (typeof head.data.index === 'number') scan.index = head.data.index;
    if (head.data.alg === 'sha256' || head.data.alg === 'hmac-sha256') scan.alg = head.data.alg;
    if (typeof head.data.chain === 'string') scan.chain = head.data.chain;
  }
  const tail = lastEntry(fd, size);
  scan.end = tail.end;
  if (tail.entry) scan.last = tail.entry;
  return scan;
}

export function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return buf.subarray(0, done);
}

function firstLine(fd: number, size: number): string | undefined {
  let collected = Buffer.alloc(0);
  for (let pos = 0; pos < size; pos += CHUNK) {
    const chunk = readAt(fd, pos, Math.min(CHUNK, size - pos));
    const nl = chunk.indexOf(0x0a);
    if (nl >= 0) return Buffer.concat([collected, chunk.subarray(0, nl)]).toString('utf8');
    collected = Buffer.concat([collected, chunk]);
    if (collected.length > 1024 * 1024) return undefined;
  }
  return collected.toString('utf8');
}

/**
 * The last complete entry (well-formed and newline-terminated), reading backwards from the end,
 * and the offset just after it. Bytes after a final newline are a torn line whatever they hold: a
 * whole entry is written with its newline in one buffer.
 */
function lastEntry(fd: number, size: number): { entry?: AuditEntry; end: number } {
  let pos = size; // file offset of buf[0]
  let buf = Buffer.alloc(0); // bytes from `pos` on that are not parsed yet
  let terminated = false; // whether the bytes in `buf` are followed by a newline
  for (;;) {
    let stop = buf.length;
    for (let nl = stop > 0 ? buf.lastIndexOf(0x0a, stop - 1) : -1; nl >= 0; nl = stop > 0 ? buf.lastIndexOf(0x0a, stop - 1) : -1) {
      const entry = terminated ? parseEntryLine(buf.subarray(nl + 1, stop).toString('utf8')) : undefined;
      if (entry) return { entry, end: pos + stop + 1 };
      terminated = true;
      stop = nl;
    }
    if (pos === 0) {
      const entry = terminated && stop > 0 ? parseEntryLine(buf.subarray(0, stop).toString('utf8')) : undefined;
      return entry ? { entry, end: stop + 1 } : { end: 0 };
    }
    const len = Math.min(CHUNK, pos);
    pos -= len;
    buf = Buffer.concat([readAt(fd, pos, len), buf.subarray(0, stop)]);
  }
}

/** The last complete entry of an audit file (undefined when it has none, or does not exist). */
export function lastEntryOf(path: string): AuditEntry | undefined {
  return inspectFile(path).last;
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

export function newestRotated(file: string): { index: number; path: string; last?: AuditEntry; chain?: string } | undefined {
  const newest = rotatedFiles(file).pop();
  if (!newest) return undefined;
  const found = inspectFile(newest.path);
  return { ...newest, ...(found.last ? { last: found.last } : {}), ...(found.chain ? { chain: found.chain } : {}) };
}
