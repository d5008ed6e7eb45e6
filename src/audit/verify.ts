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
import { anchorName, entryHash, GENESIS_HASH, parseEntryLine, type AlertCause, type AuditEntry, type PrunedFile } from './entry.js';
import { rotatedFiles } from './file-scan.js';
import { parseWitness, type WitnessRecord } from './witness.js';
import { listWriters } from './writers.js';

const EXPLAINED: ReadonlySet<string> = new Set<AlertCause>(['audit-unavailable', 'torn-tail']);

/** An alert the writer wrote to explain an operational event (not a sign of tampering). */
export interface AuditNotice {
  cause: AlertCause;
  file: string;
  line: number;
  seq: number;
  ts: string;
  message: string;
}

/** An `intent` entry that no outcome (`call` with `intent`, or `recovered`) settles yet. */
export interface OpenIntent {
  seq: number;
  ts: string;
  writer: string;
  /** Whether its writer is registered and alive now (a write in flight), or gone (to be recovered). */
  alive: boolean;
  writerState: string;
  file: string;
  line: number;
}

export type AuditProblemKind = 'edited' | 'deleted' | 'reordered' | 'truncated' | 'malformed' | 'alert' | 'anchor' | 'algorithm' | 'missing-file' | 'witness';

export interface AuditProblem {
  kind: AuditProblemKind;
  file: string;
  line?: number;
  seq?: number;
  message: string;
}

export interface AuditVerification {
  ok: boolean;
  /** Files checked, oldest first. */
  files: string[];
  entries: number;
  lastSeq: number;
  lastHash: string;
  runs: { started: number; finished: number };
  /** Witness records of this chain that were checked (absent without a witness). */
  witnessed?: number;
  problems: AuditProblem[];
  /** Alerts that explain a gap or a cut torn tail: shown, not failures. */
  explained: AuditNotice[];
  /** Intents written and intents settled by an outcome. */
  intents: { written: number; settled: number };
  /** Intents without an outcome: not failures (in flight, or awaiting recovery). */
  openIntents: OpenIntent[];
  /** Not failures: e.g. entries written after the last anchor update (a crash between the two writes). */
  warnings: string[];
}

export interface VerifyOptions {
  /** The HMAC key the log was written with; required to verify an HMAC-protected log. */
  hmacKey?: string | Buffer;
  /** Accept a chain whose oldest files were removed on purpose (retention); the first file left anchors it. */
  allowPruned?: boolean;
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
  const result: AuditVerification = { ok: false, files: [], entries: 0, lastSeq: -1, lastHash: GENESIS_HASH, runs: { started: 0, finished: 0 }, problems: [], explained: [], intents: { written: 0, settled: 0 }, openIntents: [], warnings: [] };
  const snap = snapshot(file, opts, result.warnings);
  if (snap.files.length === 0) {
    result.problems.push({ kind: 'missing-file', file, message: `no audit log at ${file}` });
    return result;
  }
  result.files = snap.files.map((f) => f.path);
  const key = opts.hmacKey;

  if (snap.witnessError) result.problems.push({ kind: 'witness', file: basename(opts.witness as string), message: snap.witnessError });
  const witness = snap.witness !== undefined ? parseWitness(snap.witness, key) : undefined;
  for (const bad of witness?.invalid ?? []) {
    result.problems.push({ kind: 'witness', file: basename(opts.witness as string), line: bad.line, message: `witness record on line ${bad.line}: ${bad.reason}` });
  }

  let prevHash: string | undefined;
  let nextSeq: number | undefined;
  let expectedIndex: number | undefined;
  let start: { seq: number; prev: string; file: string; line: number } | undefined;
  let keyedSeen = false;
  let unkeyedBeforeKey = 0;
  let activeAlg: string | undefined;
  let chain: string | undefined;
  const prunes: Array<PrunedFile & { seq: number; reason: string }> = [];
  // Only the entries a witness record names are kept (a long log does not fit in memory twice).
  const witnessSeqs = new Set(witness?.records.map((r) => r.seq) ?? []);
  const seen = new Map<number, { seq: number; hash: string; file: string; line: number }>();
  const intents = new Map<number, { seq: number; ts: string; writer: string; file: string; line: number }>();

  snap.files.forEach(({ path, text }, fileNo) => {
    const name = basename(path);
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    // The hash key of this file follows its head's algorithm (see checkAlgorithm).
    let fileKey: string | Buffer | undefined = key;
    lines.forEach((line, i) => {
      const where = { file: name, line: i + 1 };
      const entry = parseEntryLine(line);
      if (!entry) {
        result.problems.push({ kind: 'malformed', ...where, message: `line ${i + 1} is not an audit entry` });
        return;
      }
      result.entries++;
      if (i === 0 || entry.type === 'head') {
        if (entry.type !== 'head') {
          result.problems.push({ kind: 'truncated', ...where, seq: entry.seq, message: `${name} does not start with its head entry (the beginning of the file was removed)` });
        } else {
          const alg = String(entry.data.alg);
          if (typeof entry.data.chain === 'string') chain = entry.data.chain;
          if (fileNo === snap.files.length - 1) activeAlg = alg;
          if (key !== undefined) {
            if (alg === 'sha256' && !keyedSeen) {
              fileKey = undefined;
              unkeyedBeforeKey++;
            } else if (alg === 'sha256') {
              result.problems.push({ kind: 'algorithm', ...where, seq: entry.seq, message: `${name} is chained with plain sha256 after keyed files: a keyed log does not go back to unkeyed (rewritten without the key?)` });
            } else if (alg === 'hmac-sha256') {
              keyedSeen = true;
            } else {
              result.problems.push({ kind: 'algorithm', ...where, seq: entry.seq, message: `${name} names an unknown algorithm '${alg}'` });
            }
          } else if (alg !== 'sha256') {
            result.problems.push({ kind: 'algorithm', ...where, seq: entry.seq, message: `${name} is chained with ${alg}, but no key was given: pass the HMAC key the log was written with` });
          }
          if (prevHash !== undefined && expectedIndex !== undefined && entry.data.index !== expectedIndex) {
            result.problems.push({ kind: 'missing-file', ...where, seq: entry.seq, message: `${name} has index ${String(entry.data.index)} but index ${expectedIndex} was expected: an audit file is missing` });
          }
          if (typeof entry.data.index === 'number') expectedIndex = entry.data.index + 1;
        }
      }
      if (start === undefined) start = { seq: entry.seq, prev: entry.prev, file: name, line: i + 1 };
      if (entry.type === 'run-start') result.runs.started++;
      if (entry.type === 'run-end') result.runs.finished++;
      if (entry.type === 'alert') {
        const cause = entry.data.cause;
        const message = String(entry.data.message ?? 'alert');
        if (typeof cause === 'string' && EXPLAINED.has(cause)) result.explained.push({ cause: cause as AlertCause, ...where, seq: entry.seq, ts: entry.ts, message });
        else result.problems.push({ kind: 'alert', ...where, seq: entry.seq, message });
      }
      if (entry.type === 'intent') {
        result.intents.written++;
        intents.set(entry.seq, { seq: entry.seq, ts: entry.ts, writer: String(entry.data.writer ?? '?'), ...where });
      } else if ((entry.type === 'call' || entry.type === 'recovered') && typeof entry.data.intent === 'number' && intents.delete(entry.data.intent)) {
        result.intents.settled++;
      }

      const authentic = entryHash(entry, fileKey) === entry.hash;
      if (!authentic) {
        result.problems.push({ kind: 'edited', ...where, seq: entry.seq, message: `entry seq ${entry.seq} does not match its hash (content edited${key === undefined ? ', or the log is HMAC-protected and needs the key' : ''})` });
      } else if (entry.type === 'prune') {
        prunes.push(...prunedFiles(entry));
      }
      if (witnessSeqs.has(entry.seq) && !seen.has(entry.seq)) seen.set(entry.seq, { seq: entry.seq, hash: entry.hash, ...where });
      if (nextSeq !== undefined && prevHash !== undefined) {
        if (entry.seq > nextSeq) {
          const n = entry.seq - nextSeq;
          result.problems.push({ kind: i === 0 ? 'truncated' : 'deleted', ...where, seq: entry.seq, message: `${n} entr${n === 1 ? 'y' : 'ies'} missing before seq ${entry.seq} (expected seq ${nextSeq})${i === 0 ? ', cut off the end of the previous file' : ''}` });
        } else if (entry.seq < nextSeq) {
          result.problems.push({ kind: 'reordered', ...where, seq: entry.seq, message: `seq ${entry.seq} appears after seq ${nextSeq - 1} (entries reordered or duplicated)` });
        } else if (entry.prev !== prevHash) {
          result.problems.push({ kind: 'edited', ...where, seq: entry.seq, message: `chain broken at seq ${entry.seq}: it does not link to the entry before it (that entry was edited or replaced)` });
        }
      }
      // Resynchronize on the entry just read so one tampering is reported once, not cascaded.
      prevHash = entry.hash;
      nextSeq = entry.seq + 1;
      result.lastSeq = entry.seq;
      result.lastHash = entry.hash;
    });
  });

  if (key !== undefined && !keyedSeen && result.entries > 0) {
    result.problems.push({ kind: 'algorithm', file: basename(file), message: 'no audit file is keyed, but a key was given: the log was not written with this key (or was rewritten without it)' });
  } else if (unkeyedBeforeKey > 0) {
    result.warnings.push(`${unkeyedBeforeKey} older file(s) were written before keyed mode (plain SHA-256); the first keyed file's head pins their content`);
  }
  if (intents.size > 0) {
    const writers = new Map(listWriters(file).map((w) => [w.id, w]));
    for (const i of intents.values()) {
      const w = writers.get(i.writer);
      result.openIntents.push({ ...i, alive: w?.alive ?? false, writerState: w ? w.reason : 'not registered (it closed, or its registration was retired)' });
    }
  }
  checkStart(start, prunes, opts, result);
  checkAnchor(file, snap.anchor, activeAlg === 'hmac-sha256' ? key : undefined, result);
  if (witness) checkWitness(witness.records, chain, seen, start?.seq ?? 0, opts.witness as string, result);
  result.ok = result.problems.length === 0;
  return result;
}

function prunedFiles(entry: AuditEntry): Array<PrunedFile & { seq: number; reason: string }> {
  const removed = Array.isArray(entry.data.removed) ? (entry.data.removed as unknown[]) : [];
  const out: Array<PrunedFile & { seq: number; reason: string }> = [];
  for (const r of removed) {
    const f = r as Partial<PrunedFile>;
    if (typeof f.lastSeq === 'number' && typeof f.lastHash === 'string' && typeof f.file === 'string') {
      out.push({ ...(f as PrunedFile), seq: entry.seq, reason: String(entry.data.reason ?? 'retention') });
    }
  }
  return out;
}

function checkStart(start: { seq: number; prev: string; file: string; line: number } | undefined, prunes: Array<PrunedFile & { seq: number; reason: string }>, opts: VerifyOptions, result: AuditVerification): void {
  if (!start || (start.seq === 0 && start.prev === GENESIS_HASH)) return;
  const covered = prunes.find((p) => p.lastSeq === start.seq - 1 && p.lastHash === start.prev);
  if (covered) {
    const count = prunes.filter((p) => p.seq === covered.seq).length;
    result.warnings.push(`the chain starts at seq ${start.seq}: retention removed the oldest file(s) (${count} at entry seq ${covered.seq}: ${covered.reason})`);
  } else if (opts.allowPruned) {
    result.warnings.push(`chain starts at seq ${start.seq}: earlier files were pruned`);
  } else {
    result.problems.push({ kind: 'missing-file', file: start.file, line: start.line, seq: start.seq, message: `the chain starts at seq ${start.seq} in ${start.file}: earlier audit files are missing and no prune entry accounts for them (pass allowPruned if they were removed on purpose)` });
  }
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
    result.problems.push({ kind: 'truncated', file: name, seq: result.lastSeq, message: `the log ends at seq ${result.lastSeq} but its anchor recorded seq ${a.seq}: ${n} entr${n === 1 ? 'y was' : 'ies were'} cut off the end` });
  } else if (a.seq === result.lastSeq && a.hash !== result.lastHash) {
    result.problems.push({ kind: 'edited', file: name, seq: a.seq, message: `the last entry (seq ${a.seq}) is not the one the anchor recorded` });
  } else if (a.seq < result.lastSeq) {
    result.warnings.push(`${result.lastSeq - a.seq} entries after the anchor (seq ${a.seq}) are not anchored yet (the writer stopped between writing an entry and its anchor)`);
  }
}

function checkWitness(
  records: WitnessRecord[],
  chain: string | undefined,
  bySeq: Map<number, { seq: number; hash: string; file: string; line: number }>,
  first: number,
  witnessPath: string,
  result: AuditVerification,
): void {
  const name = basename(witnessPath);
  if (chain === undefined) {
    result.problems.push({ kind: 'witness', file: name, message: 'the log has no chain id (written before witnesses existed): it cannot be matched with a witness' });
    return;
  }
  const mine = records.filter((r) => r.chain === chain);
  result.witnessed = mine.length;
  if (mine.length === 0) {
    result.warnings.push(`the witness ${name} holds no record of this chain (${chain}): nothing to check against`);
    return;
  }
  let newest = mine[0] as WitnessRecord;
  for (const r of mine) {
    if (r.seq > newest.seq) newest = r;
    const entry = bySeq.get(r.seq);
    if (entry && entry.hash !== r.hash) {
      result.problems.push({ kind: 'edited', file: entry.file, line: entry.line, seq: r.seq, message: `entry seq ${r.seq} is not the one the witness recorded at ${r.ts}: the log was rewritten from there on` });
    } else if (!entry && r.seq >= first && r.seq <= result.lastSeq) {
      result.problems.push({ kind: 'deleted', file: name, seq: r.seq, message: `the witness recorded seq ${r.seq} at ${r.ts}, which is not in the log` });
    }
  }
  if (newest.seq > result.lastSeq) {
    const n = newest.seq - result.lastSeq;
    result.problems.push({ kind: 'truncated', file: name, seq: result.lastSeq, message: `the witness recorded seq ${newest.seq} at ${newest.ts} but the log ends at seq ${result.lastSeq}: ${n} entr${n === 1 ? 'y was' : 'ies were'} cut off the end (with an older anchor restored, if the anchor did not say so)` });
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
  const open = v.openIntents.map((i) => `  open intent seq ${i.seq} (${i.file}:${i.line}, ${i.ts}) of writer ${i.writer}, ${i.alive ? 'alive: in flight' : 'gone: to be recovered by a starting server'} — ${i.writerState}`);
  const intents = v.intents.written > 0 ? [`  intents: ${v.intents.written} written, ${v.intents.settled} settled by an outcome, ${v.openIntents.length} open`] : [];
  const warnings = v.warnings.map((w) => `  warning: ${w}`);
  const unfinished = v.runs.started - v.runs.finished;
  const runs = unfinished > 0 ? [`  note: ${unfinished} run(s) have no run-end entry (still running, or the server stopped mid-run)`] : [];
  return [head, ...problems, ...explained, ...intents, ...open, ...warnings, ...runs].join('\n');
}
