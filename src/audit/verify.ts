/**
 * `pve-code-mcp audit verify`: walk the whole chain (rotated files oldest first, then the active
 * file) and report every inconsistency:
 *   - edited:    an entry's hash does not match its content, or the chain link to it is broken;
 *   - deleted:   seq numbers jump (entries missing in the middle);
 *   - reordered: seq numbers go backwards or repeat;
 *   - truncated: the log ends before its anchor (entries cut off the end), or a rotated file ends
 *                before the next file's head says it should;
 *   - malformed: a line is not an entry at all;
 *   - alert:     the writer itself found the log inconsistent with its anchor when it reopened it;
 *   - anchor / algorithm / missing-file: the sidecar or file set is not what it must be.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { readAnchor } from './anchor.js';
import { anchorName, entryHash, GENESIS_HASH, parseEntryLine, type AuditEntry } from './entry.js';
import { rotatedFiles } from './log.js';

export type AuditProblemKind = 'edited' | 'deleted' | 'reordered' | 'truncated' | 'malformed' | 'alert' | 'anchor' | 'algorithm' | 'missing-file';

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
  problems: AuditProblem[];
  /** Not failures: e.g. entries written after the last anchor update (a crash between the two writes). */
  warnings: string[];
}

export interface VerifyOptions {
  /** The HMAC key the log was written with; required to verify an HMAC-protected log. */
  hmacKey?: string | Buffer;
  /** Accept a chain whose oldest files were removed on purpose (retention); the first file left anchors it. */
  allowPruned?: boolean;
}

export function verifyAudit(file: string, opts: VerifyOptions = {}): AuditVerification {
  const result: AuditVerification = { ok: false, files: [], entries: 0, lastSeq: -1, lastHash: GENESIS_HASH, runs: { started: 0, finished: 0 }, problems: [], warnings: [] };
  const files = [...rotatedFiles(file).map((f) => f.path), ...(existsSync(file) ? [file] : [])];
  if (files.length === 0) {
    result.problems.push({ kind: 'missing-file', file, message: `no audit log at ${file}` });
    return result;
  }
  result.files = files;
  const expectedAlg = opts.hmacKey !== undefined ? 'hmac-sha256' : 'sha256';
  let prevHash: string | undefined;
  let nextSeq: number | undefined;
  let expectedIndex: number | undefined;

  files.forEach((path, fileNo) => {
    const name = basename(path);
    const lines = readFileSync(path, 'utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    lines.forEach((line, i) => {
      const where = { file: name, line: i + 1 };
      const entry = parseEntryLine(line);
      if (!entry) {
        result.problems.push({ kind: 'malformed', ...where, message: `line ${i + 1} is not an audit entry` });
        return;
      }
      result.entries++;
      if (i === 0 || entry.type === 'head') {
        checkHead(entry, { name, lineNo: i + 1, fileNo, expectedIndex, expectedAlg, first: prevHash === undefined, allowPruned: opts.allowPruned ?? false }, result);
        if (typeof entry.data.index === 'number') expectedIndex = entry.data.index + 1;
      }
      if (entry.type === 'run-start') result.runs.started++;
      if (entry.type === 'run-end') result.runs.finished++;
      if (entry.type === 'alert') result.problems.push({ kind: 'alert', ...where, seq: entry.seq, message: String(entry.data.message ?? 'alert') });

      if (entryHash(entry, opts.hmacKey) !== entry.hash) {
        result.problems.push({ kind: 'edited', ...where, seq: entry.seq, message: `entry seq ${entry.seq} does not match its hash (content edited${opts.hmacKey === undefined ? ', or the log is HMAC-protected and needs the key' : ''})` });
      }
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

  checkAnchor(file, opts, result);
  result.ok = result.problems.length === 0;
  return result;
}

function checkHead(
  entry: AuditEntry,
  ctx: { name: string; lineNo: number; fileNo: number; expectedIndex: number | undefined; expectedAlg: string; first: boolean; allowPruned: boolean },
  result: AuditVerification,
): void {
  const where = { file: ctx.name, line: ctx.lineNo, seq: entry.seq };
  if (entry.type !== 'head') {
    result.problems.push({ kind: 'truncated', ...where, message: `${ctx.name} does not start with its head entry (the beginning of the file was removed)` });
    return;
  }
  if (entry.data.alg !== ctx.expectedAlg) {
    result.problems.push({ kind: 'algorithm', ...where, message: `${ctx.name} is chained with ${String(entry.data.alg)}, but ${ctx.expectedAlg} was expected (${ctx.expectedAlg === 'sha256' ? 'pass the HMAC key' : 'the log was not written with this key'})` });
  }
  if (ctx.first) {
    if (entry.seq !== 0 || entry.prev !== GENESIS_HASH) {
      if (!ctx.allowPruned) {
        result.problems.push({ kind: 'missing-file', ...where, message: `the chain starts at seq ${entry.seq} in ${ctx.name}: earlier audit files are missing (pass allowPruned if they were removed by retention)` });
      } else {
        result.warnings.push(`chain starts at seq ${entry.seq}: earlier files were pruned`);
      }
    }
  } else if (ctx.expectedIndex !== undefined && entry.data.index !== ctx.expectedIndex) {
    result.problems.push({ kind: 'missing-file', ...where, message: `${ctx.name} has index ${String(entry.data.index)} but index ${ctx.expectedIndex} was expected: an audit file is missing` });
  }
}

function checkAnchor(file: string, opts: VerifyOptions, result: AuditVerification): void {
  const name = basename(file);
  if (!existsSync(file)) {
    result.problems.push({ kind: 'missing-file', file: name, message: `the active audit file ${name} is missing (only rotated files remain)` });
    return;
  }
  const anchor = readAnchor(anchorName(file), opts.hmacKey);
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

/** Human-readable report for the CLI. */
export function formatVerification(v: AuditVerification): string {
  const head = v.ok
    ? `audit OK: ${v.entries} entries in ${v.files.length} file(s), ${v.runs.started} run(s), last seq ${v.lastSeq}`
    : `audit FAILED: ${v.problems.length} problem(s) in ${v.files.length} file(s), ${v.entries} entries read`;
  const problems = v.problems.map((p) => `  [${p.kind}] ${p.file}${p.line !== undefined ? `:${p.line}` : ''} ${p.message}`);
  const warnings = v.warnings.map((w) => `  warning: ${w}`);
  const unfinished = v.runs.started - v.runs.finished;
  const runs = unfinished > 0 ? [`  note: ${unfinished} run(s) have no run-end entry (still running, or the server stopped mid-run)`] : [];
  return [head, ...problems, ...warnings, ...runs].join('\n');
}
