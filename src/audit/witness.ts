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
 *    append to…); written synchronously, a failure throws;
 *  - `syslog`: one RFC 5424 message per record to a syslog daemon (rsyslog, syslog-ng, journald's
 *    syslog import) over UDP (the default: a lost record cannot be seen), TCP or TLS (RFC 6587
 *    octet counting: a refused or broken connection is reported); `audit verify --witness FILE`
 *    then reads an export of it (e.g. `journalctl -t pve-code-mcp -o cat > w.txt` or a grep of
 *    /var/log/syslog): any line that contains a record is read, whatever prefix the daemon added;
 *  - `https`: each record POSTed as JSON to an endpoint that must answer 2xx.
 * The network kinds never block the audit: records are queued and sent in the background
 * (witness-queue.ts, witness-syslog.ts, witness-https.ts), and every failure is reported through `WitnessHooks.onFailure`.
 *
 * Records are tagged like the anchor (HMAC with the audit key), so a forged record is reported.
 */
import { appendFileSync } from 'node:fs';
import { AuditError } from '../files/errors.js';
import { canonicalJson, hmacSha256Hex, sha256Hex } from '../safety/canonical.js';
import { HttpsWitness, type HttpsWitnessOptions } from './witness-https.js';
import type { QueuedWitness, WitnessHooks } from './witness-queue.js';
import { StreamSyslogWitness, UdpSyslogWitness, type SyslogWitnessOptions } from './witness-syslog.js';

export type { HttpsWitnessOptions } from './witness-https.js';
export type { WitnessTlsOptions } from './witness-net.js';
export type { WitnessHooks } from './witness-queue.js';
export type { SyslogWitnessOptions } from './witness-syslog.js';

export const WITNESS_MARK = 'pve-code-mcp-witness';

export type WitnessOptions = { file: string } | { syslog: SyslogWitnessOptions } | { https: HttpsWitnessOptions };

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
  /**
   * Record the chain's end without blocking. A file witness throws AuditError (`audit-witness`)
   * when it cannot append; the network kinds queue the record and report failures through the hooks.
   */
  write(record: WitnessRecord, key?: string | Buffer): void;
  /** Wait until the queued records are sent or failed, at most `timeoutMs` (what is left is reported). */
  flush(timeoutMs: number): Promise<void>;
  /** Stop taking records; the queued ones are still sent, then connections are released. */
  close(): void;
}

/**
 * Opens the witness; connections are made when the first record is sent. Without hooks, failures
 * of the network kinds go to stderr, once per run of failures. Throws AuditError (`audit-witness`)
 * for options that cannot work (a token or CA file that cannot be read, a URL that is not https).
 */
export function openWitness(options: WitnessOptions, hooks?: WitnessHooks): Witness {
  if ('file' in options) return new FileWitness(options.file);
  const report = hooks ?? stderrHooks();
  if ('https' in options) return new NetworkWitness(new HttpsWitness(options.https, report));
  const transport = options.syslog.transport ?? 'udp';
  return new NetworkWitness(transport === 'udp' ? new UdpSyslogWitness(options.syslog, report) : new StreamSyslogWitness(options.syslog, report));
}

function stderrHooks(): WitnessHooks {
  let failing = false;
  return {
    onFailure(message) {
      if (failing) return;
      failing = true;
      process.stderr.write(`pve-code-mcp: ${message}\n`);
    },
    onRecovered() {
      failing = false;
      process.stderr.write('pve-code-mcp: the audit witness takes records again\n');
    },
  };
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

  flush(): Promise<void> {
    return Promise.resolve();
  }

  close(): void {}
}

class NetworkWitness implements Witness {
  constructor(private readonly queue: QueuedWitness) {}

  get description(): string {
    return this.queue.description;
  }

  write(record: WitnessRecord, key?: string | Buffer): void {
    this.queue.enqueue({ seq: record.seq, ts: record.ts, line: witnessLine(record, key) });
  }

  flush(timeoutMs: number): Promise<void> {
    return this.queue.flush(timeoutMs);
  }

  close(): void {
    this.queue.close();
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
