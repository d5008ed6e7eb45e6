/**
 * `audit verify` against the database, and `audit export` to the JSONL format of the file log.
 *
 * Both read the chain in one REPEATABLE READ transaction (one snapshot, however many replicas
 * append meanwhile): the entry lines in the order of their `seq` column and the chain's head row.
 * Verify runs the same checks as on files (verify-chain.ts): an edited line breaks its hash, a
 * deleted row leaves a seq gap, rows whose seq column and line disagree show as reordered; the
 * head row plays the anchor (rows cut off the end while the head says more), and the witness,
 * when given, holds what an attacker who rewrites the database cannot take back. Open intents are
 * listed with their writer's liveness (its database lock, postgres-writers.ts).
 *
 * Export writes the chain as the file log would have: one file per part of the chain (a part
 * starts at each `head` entry; the key's algorithm changed there), the last at the given path and
 * the earlier ones under the rotated names, and the anchor beside it recording the head row —
 * so `audit verify FILE` checks the export with the same key, and still sees rows that were cut.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { AuditError } from '../files/errors.js';
import type { PostgresState } from '../state/postgres/sql.js';
import { writeAnchor } from './anchor.js';
import { anchorName, rotatedName } from './entry.js';
import { chainLines, DEFAULT_AUDIT_CHAIN, readHead, type ChainHead } from './postgres-chain.js';
import { listPostgresWriters } from './postgres-writers.js';
import { verifyChain, type AuditVerification, type ChainOptions } from './verify-chain.js';

export interface PostgresVerifyOptions extends ChainOptions {
  /** The chain to verify (default `audit`). */
  chain?: string;
  /** A witness file (or an export of the syslog witness) to check the chain against. */
  witness?: string;
}

interface ChainPart {
  index: number;
  alg: string | undefined;
  lines: string[];
}

interface ChainSnapshot {
  head: ChainHead | undefined;
  parts: ChainPart[];
}

function snapshot(db: PostgresState, chain: string): ChainSnapshot {
  return db.transaction((tx) => {
    tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const head = readHead(tx, chain);
    return { head, parts: partsOf(chainLines(tx, chain)) };
  });
}

/** Split the lines at each `head` entry (a cheap look at its type; the verifier parses everything). */
function partsOf(lines: string[]): ChainPart[] {
  const parts: ChainPart[] = [];
  for (const line of lines) {
    let head: { index?: unknown; alg?: unknown } | undefined;
    try {
      const e = JSON.parse(line) as { type?: unknown; data?: { index?: unknown; alg?: unknown } };
      if (e?.type === 'head') head = e.data ?? {};
    } catch {
      // Not an entry: the verifier reports it where it stands.
    }
    if (head || parts.length === 0) {
      const index = typeof head?.index === 'number' ? head.index : (parts.at(-1)?.index ?? 0) + 1;
      parts.push({ index, alg: typeof head?.alg === 'string' ? head.alg : undefined, lines: [] });
    }
    (parts.at(-1) as ChainPart).lines.push(line);
  }
  return parts;
}

export function verifyPostgresAudit(db: PostgresState, opts: PostgresVerifyOptions = {}): AuditVerification {
  const chain = opts.chain ?? DEFAULT_AUDIT_CHAIN;
  const snap = snapshot(db, chain);
  const name = `chain '${chain}'`;
  let witness: { name: string; text?: string; error?: string } | undefined;
  if (opts.witness !== undefined) {
    try {
      witness = { name: basename(opts.witness), text: readFileSync(opts.witness, 'utf8') };
    } catch (err) {
      witness = { name: basename(opts.witness), error: `cannot read the witness ${opts.witness} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
    }
  }
  return verifyChain(
    {
      name,
      files: snap.parts.map((p) => ({ path: snap.parts.length > 1 ? `${name} part ${p.index}` : name, text: p.lines.join('\n') })),
      ...(witness ? { witness } : {}),
      writers: () => new Map(listPostgresWriters(db).map((w) => [w.id, w])),
      checkEnd: (result) => checkHead(name, snap.head, result),
    },
    opts,
  );
}

/** The head row is where the chain must end (it moves in the same transaction as each entry). */
function checkHead(name: string, head: ChainHead | undefined, result: AuditVerification): void {
  if (!head) {
    result.problems.push({ kind: 'anchor', file: name, message: `the head row of ${name} is missing from audit_chain: truncation of the chain's end cannot be ruled out` });
  } else if (head.seq > result.lastSeq) {
    const n = head.seq - result.lastSeq;
    result.problems.push({
      kind: 'truncated',
      file: name,
      seq: result.lastSeq,
      message: `the entries end at seq ${result.lastSeq} but the chain's head row records seq ${head.seq}: ${n} entr${n === 1 ? 'y was' : 'ies were'} cut off the end`,
    });
  } else if (head.seq === result.lastSeq && head.hash !== result.lastHash) {
    result.problems.push({ kind: 'edited', file: name, seq: head.seq, message: `the last entry (seq ${head.seq}) is not the one the chain's head row records` });
  } else if (head.seq < result.lastSeq) {
    result.problems.push({
      kind: 'anchor',
      file: name,
      seq: result.lastSeq,
      message: `entries run to seq ${result.lastSeq} past the chain's head row (seq ${head.seq}): rows were added outside the audit, or the head row was set back`,
    });
  }
}

export interface ExportResult {
  /** The files written, oldest part first (the last is the path asked for). */
  files: string[];
  entries: number;
  lastSeq: number;
}

/**
 * Write the chain to `out` (and earlier parts to its rotated names) with its anchor. Refuses to
 * overwrite: an old export mixed with a new one would not verify.
 */
export function exportPostgresAudit(db: PostgresState, out: string, opts: { chain?: string; hmacKey?: string | Buffer } = {}): ExportResult {
  const chain = opts.chain ?? DEFAULT_AUDIT_CHAIN;
  const snap = snapshot(db, chain);
  if (snap.parts.length === 0 || !snap.head) throw new AuditError('audit-unavailable', `the audit chain '${chain}' in ${db.where} has no entries: nothing to export`);
  const last = snap.parts.at(-1) as ChainPart;
  const paths = snap.parts.map((p) => (p === last ? out : rotatedName(out, p.index)));
  for (const path of [...paths, anchorName(out)]) {
    if (existsSync(path)) throw new AuditError('audit-unavailable', `${path} exists: export to a new path (an old export mixed with this one would not verify)`);
  }
  snap.parts.forEach((p, i) => writeFileSync(paths[i] as string, p.lines.map((l) => `${l}\n`).join(''), { mode: 0o600, flag: 'wx' }));
  // The anchor is tagged with the key only when the last part is keyed, as the file log does.
  writeAnchor(anchorName(out), { v: 1, index: last.index, seq: snap.head.seq, hash: snap.head.hash }, last.alg === 'hmac-sha256' ? opts.hmacKey : undefined);
  return { files: paths, entries: snap.parts.reduce((n, p) => n + p.lines.length, 0), lastSeq: snap.head.seq };
}
