/**
 * The checks of `audit verify` over a chain read as text, whatever stored it: the files of the
 * state directory (verify.ts reads them under the writers' lock) or the entries of the database in
 * seq order (postgres-verify.ts). What each problem kind means is in verify.ts. The store supplies
 * what is its own: where the chain must end (the file's anchor, the database's head row) and
 * whether the writers of open intents still live.
 */
import { basename } from 'node:path';
import { entryHash, GENESIS_HASH, parseEntryLine, type AlertCause, type AuditEntry, type PrunedFile } from './entry.js';
import { parseWitness, type WitnessRecord } from './witness.js';

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

export interface ChainOptions {
  /** The HMAC key the log was written with; required to verify an HMAC-protected log. */
  hmacKey?: string | Buffer;
  /** Accept a chain whose oldest files were removed on purpose (retention); the first file left anchors it. */
  allowPruned?: boolean;
}

/** One chain as read, with what only its store can check. */
export interface ChainInput {
  /** What is verified, for messages: the active file, or the database's chain. */
  name: string;
  /** The chain's parts, oldest first: each file of the set, or the database's entries in seq order (one part). */
  files: Array<{ path: string; text: string }>;
  /** The witness to check against: its name for messages, its text, or why it could not be read. */
  witness?: { name: string; text?: string; error?: string };
  /** Whether the writers that open intents name are alive now, by writer id. */
  writers(): Map<string, { alive: boolean; reason: string }>;
  /** Check where the chain must end (anchor, head row) against `result.lastSeq`/`lastHash`; `key` is the active part's. */
  checkEnd(result: AuditVerification, key: string | Buffer | undefined): void;
  /** Said while reading (e.g. verified without the writers' lock). */
  warnings?: string[];
}

export function verifyChain(input: ChainInput, opts: ChainOptions = {}): AuditVerification {
  const result: AuditVerification = {
    ok: false,
    files: [],
    entries: 0,
    lastSeq: -1,
    lastHash: GENESIS_HASH,
    runs: { started: 0, finished: 0 },
    problems: [],
    explained: [],
    intents: { written: 0, settled: 0 },
    openIntents: [],
    warnings: [],
  };
  result.warnings.push(...(input.warnings ?? []));
  if (input.files.length === 0) {
    result.problems.push({ kind: 'missing-file', file: input.name, message: `no audit log at ${input.name}` });
    return result;
  }
  const snap = { files: input.files };
  result.files = snap.files.map((f) => f.path);
  const key = opts.hmacKey;

  if (input.witness?.error) result.problems.push({ kind: 'witness', file: input.witness.name, message: input.witness.error });
  const witness = input.witness?.text !== undefined ? parseWitness(input.witness.text, key) : undefined;
  for (const bad of witness?.invalid ?? []) {
    result.problems.push({ kind: 'witness', file: input.witness?.name ?? 'witness', line: bad.line, message: `witness record on line ${bad.line}: ${bad.reason}` });
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
              result.problems.push({
                kind: 'algorithm',
                ...where,
                seq: entry.seq,
                message: `${name} is chained with plain sha256 after keyed files: a keyed log does not go back to unkeyed (rewritten without the key?)`,
              });
            } else if (alg === 'hmac-sha256') {
              keyedSeen = true;
            } else {
              result.problems.push({ kind: 'algorithm', ...where, seq: entry.seq, message: `${name} names an unknown algorithm '${alg}'` });
            }
          } else if (alg !== 'sha256') {
            result.problems.push({ kind: 'algorithm', ...where, seq: entry.seq, message: `${name} is chained with ${alg}, but no key was given: pass the HMAC key the log was written with` });
          }
          if (prevHash !== undefined && expectedIndex !== undefined && entry.data.index !== expectedIndex) {
            result.problems.push({
              kind: 'missing-file',
              ...where,
              seq: entry.seq,
              message: `${name} has index ${String(entry.data.index)} but index ${expectedIndex} was expected: an audit file is missing`,
            });
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
        result.problems.push({
          kind: 'edited',
          ...where,
          seq: entry.seq,
          message: `entry seq ${entry.seq} does not match its hash (content edited${key === undefined ? ', or the log is HMAC-protected and needs the key' : ''})`,
        });
      } else if (entry.type === 'prune') {
        prunes.push(...prunedFiles(entry));
      }
      if (witnessSeqs.has(entry.seq) && !seen.has(entry.seq)) seen.set(entry.seq, { seq: entry.seq, hash: entry.hash, ...where });
      if (nextSeq !== undefined && prevHash !== undefined) {
        if (entry.seq > nextSeq) {
          const n = entry.seq - nextSeq;
          result.problems.push({
            kind: i === 0 ? 'truncated' : 'deleted',
            ...where,
            seq: entry.seq,
            message: `${n} entr${n === 1 ? 'y' : 'ies'} missing before seq ${entry.seq} (expected seq ${nextSeq})${i === 0 ? ', cut off the end of the previous file' : ''}`,
          });
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
    result.problems.push({
      kind: 'algorithm',
      file: basename(input.name),
      message: 'no audit file is keyed, but a key was given: the log was not written with this key (or was rewritten without it)',
    });
  } else if (unkeyedBeforeKey > 0) {
    result.warnings.push(`${unkeyedBeforeKey} older file(s) were written before keyed mode (plain SHA-256); the first keyed file's head pins their content`);
  }
  if (intents.size > 0) {
    const writers = input.writers();
    for (const i of intents.values()) {
      const w = writers.get(i.writer);
      result.openIntents.push({ ...i, alive: w?.alive ?? false, writerState: w ? w.reason : 'not registered (it closed, or its registration was retired)' });
    }
  }
  checkStart(start, prunes, opts, result);
  input.checkEnd(result, activeAlg === 'hmac-sha256' ? key : undefined);
  if (witness) checkWitness(witness.records, chain, seen, start?.seq ?? 0, input.witness?.name ?? 'witness', result);
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

function checkStart(
  start: { seq: number; prev: string; file: string; line: number } | undefined,
  prunes: Array<PrunedFile & { seq: number; reason: string }>,
  opts: ChainOptions,
  result: AuditVerification,
): void {
  if (!start || (start.seq === 0 && start.prev === GENESIS_HASH)) return;
  const covered = prunes.find((p) => p.lastSeq === start.seq - 1 && p.lastHash === start.prev);
  if (covered) {
    const count = prunes.filter((p) => p.seq === covered.seq).length;
    result.warnings.push(`the chain starts at seq ${start.seq}: retention removed the oldest file(s) (${count} at entry seq ${covered.seq}: ${covered.reason})`);
  } else if (opts.allowPruned) {
    result.warnings.push(`chain starts at seq ${start.seq}: earlier files were pruned`);
  } else {
    result.problems.push({
      kind: 'missing-file',
      file: start.file,
      line: start.line,
      seq: start.seq,
      message: `the chain starts at seq ${start.seq} in ${start.file}: earlier audit files are missing and no prune entry accounts for them (pass allowPruned if they were removed on purpose)`,
    });
  }
}

function checkWitness(
  records: WitnessRecord[],
  chain: string | undefined,
  bySeq: Map<number, { seq: number; hash: string; file: string; line: number }>,
  first: number,
  name: string,
  result: AuditVerification,
): void {
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
      result.problems.push({
        kind: 'edited',
        file: entry.file,
        line: entry.line,
        seq: r.seq,
        message: `entry seq ${r.seq} is not the one the witness recorded at ${r.ts}: the log was rewritten from there on`,
      });
    } else if (!entry && r.seq >= first && r.seq <= result.lastSeq) {
      result.problems.push({ kind: 'deleted', file: name, seq: r.seq, message: `the witness recorded seq ${r.seq} at ${r.ts}, which is not in the log` });
    }
  }
  if (newest.seq > result.lastSeq) {
    const n = newest.seq - result.lastSeq;
    result.problems.push({
      kind: 'truncated',
      file: name,
      seq: result.lastSeq,
      message: `the witness recorded seq ${newest.seq} at ${newest.ts} but the log ends at seq ${result.lastSeq}: ${n} entr${n === 1 ? 'y was' : 'ies were'} cut off the end (with an older anchor restored, if the anchor did not say so)`,
    });
  }
}
