/**
 * The external witness: a copy of the chain's end (chain id, file index, seq, hash) written outside
 * the audit directory every time the anchor moves, so that `audit verify --witness` can check the
 * log against records an attacker of the audit directory cannot take back.
 *
 * The anchor alone cannot show a truncation that is paired with an older, authentic anchor (the
 * attacker saved one): the witness can, because every record it holds names an entry the log
 * must still contain, with that hash. The hash of entry N pins entries 0..N through the chain.
 *
 * Kinds:
 *  - `file`: one line per record appended to a path the operator chose (another file system, a
 *    file made append-only with `chattr +a`, a path owned by another user the server may only
 *    append to…);
 *  - `syslog`: one RFC 5424 message per record over UDP to a syslog daemon (rsyslog, syslog-ng,
 *    journald's syslog import); `audit verify --witness FILE` then reads an export of it (e.g.
 *    `journalctl -t pve-code-mcp -o cat > w.txt` or a grep of /var/log/syslog): any line that
 *    contains a record is read, whatever prefix the daemon added.
 *
 * Records are tagged like the anchor (HMAC with the audit key), so a forged record is reported.
 */
import { appendFileSync } from 'node:fs';
import { createSocket, type Socket } from 'node:dgram';
import { hostname } from 'node:os';
import { AuditError } from '../files/errors.js';
import { canonicalJson, hmacSha256Hex, sha256Hex } from '../safety/canonical.js';

export const WITNESS_MARK = 'pve-code-mcp-witness';

export type WitnessOptions = { file: string } | { syslog: { host: string; port?: number; facility?: number } };

export interface WitnessRecord {
  chain: string;
  index: number;
  seq: number;
  hash: string;
  ts: string;
}

function tagOf(record: WitnessRecord, key?: string | Buffer): string {
  const text = canonicalJson(record);
  return key !== undefined ? hmacSha256Hex(key, text) : sha256Hex(text);
}

export function witnessLine(record: WitnessRecord, key?: string | Buffer): string {
  return JSON.stringify({ [WITNESS_MARK]: 1, ...record, tag: tagOf(record, key) });
}

export interface Witness {
  readonly description: string;
  /** Record the chain's end; throws AuditError (`audit-witness`) when a file witness cannot be written. */
  write(record: WitnessRecord, key?: string | Buffer): void;
  close(): void;
}

export interface WitnessHooks {
  /** An asynchronous transport could not publish a record (the log writes an alert). */
  onFailure(message: string): void;
}

export function openWitness(options: WitnessOptions, _hooks?: WitnessHooks): Witness {
  if ('file' in options) return new FileWitness(options.file);
  return new SyslogWitness(options.syslog.host, options.syslog.port ?? 514, options.syslog.facility ?? 13);
}

class FileWitness implements Witness {
  constructor(private readonly path: string) {}

  get description(): string {
    return `file ${this.path}`;
  }

  write(record: WitnessRecord, key?: string | Buffer): void {
    try {
      appendFileSync(this.path, witnessLine(record, key) + '\n', { mode: 0o600 });
    } catch (err) {
      throw new AuditError('audit-witness', `cannot append to the audit witness ${this.path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): check the path and its permissions`);
    }
  }

  close(): void {}
}

/** Fire-and-forget: UDP syslog has no acknowledgement; verification reads the daemon's export. */
class SyslogWitness implements Witness {
  private readonly socket: Socket;
  private readonly host = hostname().replace(/[^\x21-\x7e]/g, '') || '-';
  private pending = 0;
  private closing = false;

  constructor(
    private readonly target: string,
    private readonly port: number,
    private readonly facility: number,
  ) {
    this.socket = createSocket(target.includes(':') ? 'udp6' : 'udp4');
    this.socket.on('error', () => undefined);
    this.socket.unref();
  }

  get description(): string {
    return `syslog udp://${this.target}:${this.port}`;
  }

  write(record: WitnessRecord, key?: string | Buffer): void {
    // <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG, severity 6 (informational).
    const message = `<${this.facility * 8 + 6}>1 ${record.ts} ${this.host} pve-code-mcp ${process.pid} audit - ${witnessLine(record, key)}`;
    this.pending++;
    this.socket.send(message, this.port, this.target, () => {
      this.pending--;
      if (this.closing && this.pending === 0) this.socket.close();
    });
  }

  /** Closes once the messages already handed to the socket are sent. */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    if (this.pending === 0) this.socket.close();
  }
}

export interface WitnessReading {
  records: Array<WitnessRecord & { line: number }>;
  /** Lines that carry a record that is malformed or whose tag does not match. */
  invalid: Array<{ line: number; reason: string }>;
}

/** Every witness record in `text` (lines without one are ignored: syslog exports hold other messages). */
export function parseWitness(text: string, key?: string | Buffer): WitnessReading {
  const out: WitnessReading = { records: [], invalid: [] };
  text.split('\n').forEach((raw, i) => {
    const at = raw.indexOf(`{"${WITNESS_MARK}"`);
    if (at < 0) return;
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(raw.slice(at).trim()) as Record<string, unknown>;
    } catch {
      out.invalid.push({ line: i + 1, reason: 'not valid JSON' });
      return;
    }
    if (typeof r.chain !== 'string' || !Number.isSafeInteger(r.index) || !Number.isSafeInteger(r.seq) || typeof r.hash !== 'string' || typeof r.ts !== 'string' || typeof r.tag !== 'string') {
      out.invalid.push({ line: i + 1, reason: 'lacks chain/index/seq/hash/ts/tag' });
      return;
    }
    const record: WitnessRecord = { chain: r.chain, index: r.index as number, seq: r.seq as number, hash: r.hash, ts: r.ts };
    if (tagOf(record, key) !== r.tag) {
      out.invalid.push({ line: i + 1, reason: key !== undefined ? 'its tag does not match (forged, or a different key)' : 'its tag does not match (edited, or written with a key)' });
      return;
    }
    out.records.push({ ...record, line: i + 1 });
  });
  return out;
}
