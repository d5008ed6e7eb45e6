/**
 * `pve-code-mcp audit verify`: walk the whole chain (rotated files oldest first, then the active
 * file) and report every inconsistency:
 *   - edited:    an entry's hash does not match its content, the chain link to it is broken, or it
 *                is not the entry the witness recorded for its seq;
 *   - deleted:   seq numbers jump (entries missing in the middle);
 *   - reordered: seq numbers go backwards or repeat;
 *   - truncated: the log ends before its anchor or before what the witness recorded (entries cut
 *                off the end), or a rotated file ends before the next file's head says it should;
 *   - malformed: a line is not an entry at all;
 *   - alert:     the writer itself found the log inconsistent (anchor at reopen, a shrinking file,
 *                an unreachable witness);
 *   - anchor / algorithm / missing-file / witness: the sidecar, the keying, the file set or the
 *                witness is not what it must be.
 *
 * Not problems, shown on their own: alerts that explain an operational event (`cause`: a gap while
 * the audit could not be written, a torn tail cut off on open) are `explained`; `intent` entries
 * without an outcome (a `call` with `intent: <seq>`, or a `recovered` entry) are `openIntents`,
 * each with its writer and whether that writer is alive — a write in flight, or one a starting
 * server has yet to recover, never tampering.
 *
 * Writers may be running: the file set, the anchor and the witness's length are captured under the
 * writers' lock (open descriptors and sizes), so a verification never sees a half-rotated set or
 * an anchor ahead of the entries it read. Oldest files that retention removed are accepted when a
 * `prune` entry of the chain accounts for them (or with `allowPruned`).
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { LockError } from '../files/errors.js';
import { withFileLock, type FileLockOptions } from '../files/lock.js';
import { parseAnchor, type AnchorRead } from './anchor.js';
import { anchorName } from './entry.js';
import { rotatedFiles } from './file-scan.js';
import { verifyChain, type AuditVerification, type ChainOptions } from './verify-chain.js';
import { listWriters } from './writers.js';

export type { AuditNotice, AuditProblem, AuditProblemKind, AuditVerification, OpenIntent } from './verify-chain.js';

export interface VerifyOptions extends ChainOptions {
  /** A witness file (or an export of the syslog witness) to check the log against. */
  witness?: string;
  lock?: FileLockOptions;
}

interface Snapshot {
  files: Array<{ path: string; text: string }>;
  anchor: string | undefined;
  witness: string | undefined;
  witnessError?: string;
}

export function verifyAudit(file: string, opts: VerifyOptions = {}): AuditVerification {
  const warnings: string[] = [];
  const snap = snapshot(file, opts, warnings);
  return verifyChain(
    {
      name: file,
      files: snap.files,
      ...(opts.witness !== undefined
        ? { witness: { name: basename(opts.witness), ...(snap.witness !== undefined ? { text: snap.witness } : {}), ...(snap.witnessError ? { error: snap.witnessError } : {}) } }
        : {}),
      writers: () => new Map(listWriters(file).map((w) => [w.id, w])),
      checkEnd: (result, key) => checkAnchor(file, snap.anchor, key, result),
      warnings,
    },
    opts,
  );
}

function checkAnchor(file: string, text: string | undefined, key: string | Buffer | undefined, result: AuditVerification): void {
  const name = basename(file);
  if (!result.files.includes(file)) {
    result.problems.push({ kind: 'missing-file', file: name, message: `the active audit file ${name} is missing (only rotated files remain)` });
    return;
  }
  const anchor: AnchorRead = text === undefined ? { status: 'missing' } : parseAnchor(text, key);
  if (anchor.status === 'missing') {
    result.problems.push({ kind: 'anchor', file: name, message: `anchor ${basename(anchorName(file))} is missing: truncation of the log's end cannot be ruled out` });
    return;
  }
  if (anchor.status === 'invalid') {
    result.problems.push({ kind: 'anchor', file: name, message: `anchor ${basename(anchorName(file))}: ${anchor.reason}` });
    return;
  }
  const a = anchor.state;
  if (a.seq > result.lastSeq) {
    const n = a.seq - result.lastSeq;
    result.problems.push({
      kind: 'truncated',
      file: name,
      seq: result.lastSeq,
      message: `the log ends at seq ${result.lastSeq} but its anchor recorded seq ${a.seq}: ${n} entr${n === 1 ? 'y was' : 'ies were'} cut off the end`,
    });
  } else if (a.seq === result.lastSeq && a.hash !== result.lastHash) {
    result.problems.push({ kind: 'edited', file: name, seq: a.seq, message: `the last entry (seq ${a.seq}) is not the one the anchor recorded` });
  } else if (a.seq < result.lastSeq) {
    result.warnings.push(`${result.lastSeq - a.seq} entries after the anchor (seq ${a.seq}) are not anchored yet (the writer stopped between writing an entry and its anchor)`);
  }
}

/** The files, the anchor and the witness as the writers left them at one instant (under their lock). */
function snapshot(file: string, opts: VerifyOptions, warnings: string[]): Snapshot {
  let witnessError: string | undefined;
  const take = (): { fds: Array<{ path: string; fd: number; size: number }>; anchor: string | undefined; witness: { fd: number; size: number } | undefined } => {
    const fds: Array<{ path: string; fd: number; size: number }> = [];
    for (const path of [...rotatedFiles(file).map((f) => f.path), ...(existsSync(file) ? [file] : [])]) {
      const fd = openSync(path, 'r');
      fds.push({ path, fd, size: fstatSync(fd).size });
    }
    let anchor: string | undefined;
    try {
      anchor = readAll(openSync(anchorName(file), 'r'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    let witness: { fd: number; size: number } | undefined;
    if (opts.witness !== undefined) {
      try {
        const fd = openSync(opts.witness, 'r');
        witness = { fd, size: fstatSync(fd).size };
      } catch (err) {
        witnessError = `cannot read the witness ${opts.witness} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
      }
    }
    return { fds, anchor, witness };
  };
  let taken: ReturnType<typeof take>;
  try {
    taken = existsSync(file) || rotatedFiles(file).length > 0 ? withFileLock(file, take, { timeoutMs: 3_000, ...opts.lock }) : take();
  } catch (err) {
    if (!(err instanceof LockError)) throw err;
    warnings.push(`verified without the writers' lock (${err.message}): if a writer is running, its newest entries may look inconsistent`);
    taken = take();
  }
  const files = taken.fds.map(({ path, fd, size }) => ({ path, text: readAll(fd, size) }));
  return { files, anchor: taken.anchor, witness: taken.witness ? readAll(taken.witness.fd, taken.witness.size) : undefined, ...(witnessError ? { witnessError } : {}) };
}

/** Read `size` bytes (default: all) from `fd`, then close it. */
function readAll(fd: number, size?: number): string {
  try {
    const length = size ?? fstatSync(fd).size;
    const buf = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const n = readSync(fd, buf, done, length - done, done);
      if (n === 0) break;
      done += n;
    }
    return buf.subarray(0, done).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Human-readable report for the CLI. */
export function formatVerification(v: AuditVerification): string {
  const head = v.ok
    ? `audit OK: ${v.entries} entries in ${v.files.length} file(s), ${v.runs.started} run(s), last seq ${v.lastSeq}${v.witnessed !== undefined ? `, ${v.witnessed} witness record(s) matched` : ''}`
    : `audit FAILED: ${v.problems.length} problem(s) in ${v.files.length} file(s), ${v.entries} entries read`;
  const problems = v.problems.map((p) => `  [${p.kind}] ${p.file}${p.line !== undefined ? `:${p.line}` : ''} ${p.message}`);
  const explained = v.explained.map((e) => `  explained [${e.cause}] ${e.file}:${e.line} seq ${e.seq} at ${e.ts}: ${e.message}`);
  const open = v.openIntents.map(
    (i) => `  open intent seq ${i.seq} (${i.file}:${i.line}, ${i.ts}) of writer ${i.writer}, ${i.alive ? 'alive: in flight' : 'gone: to be recovered by a starting server'} — ${i.writerState}`,
  );
  const intents = v.intents.written > 0 ? [`  intents: ${v.intents.written} written, ${v.intents.settled} settled by an outcome, ${v.openIntents.length} open`] : [];
  const warnings = v.warnings.map((w) => `  warning: ${w}`);
  const unfinished = v.runs.started - v.runs.finished;
  const runs = unfinished > 0 ? [`  note: ${unfinished} run(s) have no run-end entry (still running, or the server stopped mid-run)`] : [];
  return [head, ...problems, ...explained, ...intents, ...open, ...warnings, ...runs].join('\n');
}
