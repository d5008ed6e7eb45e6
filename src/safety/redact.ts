/**
 * Redaction of credentials in everything that leaves the host: bridge results, errors, logs,
 * plans and the audit.
 *
 * Two independent layers:
 * - key-based: parameters and response fields whose name says "secret" (passwords, cloud-init
 *   passwords, tickets, CSRF tokens, TFA codes and recovery keys, token values, private keys…);
 *   a few names (`value`, `key`, `data`) are only secret under specific API paths;
 * - value-based: a `SecretScrubber` knows exact secret strings (the API token secret, passwords
 *   from the configuration) and removes them wherever they appear, whatever the key.
 */

import { isSecretName } from '../script/secret-names.js';

export const REDACTED = '[redacted]';

/**
 * Names that are only secret under some API paths: `value` is the token secret returned by token
 * creation and the one-time code in TFA calls; `key` is a PEM private key for custom certificates
 * and ACME; `data` holds DNS-plugin credentials. Elsewhere (`pending` lists, config keys) they are
 * ordinary data and must stay readable.
 */
const PATH_SCOPED_SECRETS: Array<{ key: string; path: RegExp }> = [
  { key: 'value', path: /^\/access\// },
  { key: 'key', path: /^\/nodes\/[^/]+\/certificates\/|^\/cluster\/acme\// },
  { key: 'data', path: /^\/cluster\/acme\/plugins/ },
];

export function isSensitiveKey(key: string, apiPath?: string): boolean {
  if (isSecretName(key)) return true;
  if (apiPath === undefined) return false;
  const lower = key.toLowerCase();
  return PATH_SCOPED_SECRETS.some((rule) => rule.key === lower && rule.path.test(apiPath));
}

/** Objects nested this deep (or deeper) are replaced by `REDACTED` rather than walked. */
export const MAX_REDACT_DEPTH = 256;

/**
 * Deep copy of JSON data with secret fields replaced by `REDACTED` and known secret strings
 * scrubbed. `apiPath` (concrete or template) enables the path-scoped names.
 * Also handles PVE's `{ key, value }` pairs (the `pending` config list): when `key` names a
 * secret option, its `value`/`pending` are redacted.
 */
export function redactData(value: unknown, apiPath?: string, scrubber?: SecretScrubber): unknown {
  return walk(value, { apiPath, scrubber, redactKeys: true }, 0);
}

/**
 * Secrets inside text bodies, where no JSON key marks them: cloud-init dumps (`password: …`,
 * a `chpasswd` list of `user:password` lines), guest configs extracted from backups
 * (`cipassword: …`), task log lines (`password=…`). A line whose key is a secret by the same
 * rules as JSON keys (`isSensitiveKey`) keeps its key and loses its value.
 */
export function redactText(text: string, scrubber?: SecretScrubber): string {
  if (!/[:=]/.test(text)) return scrubber ? scrubber.scrub(text) : text;
  let credentialList = -1;
  const lines = text.split('\n').map((line) => {
    const indent = /^\s*/.exec(line)?.[0].length ?? 0;
    if (credentialList >= 0) {
      if (line.trim() !== '' && indent <= credentialList) credentialList = -1;
      else {
        const entry = /^(\s*-?\s*[^\s:]+:)(.+)$/.exec(line);
        if (entry && !/^\s*-?\s*(?:name|type|lock_passwd):/.test(line)) return `${entry[1]}${REDACTED}`;
      }
    }
    // `chpasswd:` → `list: |` (or `users:`) holds user:password pairs.
    if (/^\s*(?:list|users):\s*\|?\s*$/.test(line) && /chpasswd/.test(text)) credentialList = indent;
    const m = /^(\s*-?\s*["']?)([A-Za-z0-9_.-]+)(["']?\s*[:=]\s*)(\S.*)$/.exec(line);
    if (m && isSensitiveKey(m[2] as string) && !/^\|\s*$/.test(m[4] as string)) return `${m[1]}${m[2]}${m[3]}${REDACTED}`;
    // `… password=abc …` inside a line (command lines in task logs).
    return line.replace(/(^|[\s,;?&])([A-Za-z0-9_.-]+)=([^\s,;&]+)/g, (all, pre: string, key: string) => (isSensitiveKey(key) ? `${pre}${key}=${REDACTED}` : all));
  });
  const out = lines.join('\n');
  return scrubber ? scrubber.scrub(out) : out;
}

/**
 * `redactData` for JSON data nobody else holds, such as a response body the client has just
 * parsed: secrets are overwritten where they are and the same value is returned. A copy of a
 * 10,000-guest listing would be a second object graph three times the size of the parsed one
 * (null-prototype objects are dictionary-mode in V8), the largest allocation of a big read.
 */
export function redactInPlace(value: unknown, apiPath?: string, scrubber?: SecretScrubber): unknown {
  return rewrite(value, { apiPath, scrubber, redactKeys: true }, 0);
}

interface WalkOptions {
  apiPath: string | undefined;
  scrubber: SecretScrubber | undefined;
  redactKeys: boolean;
}

function walk(value: unknown, opts: WalkOptions, depth: number): unknown {
  if (typeof value === 'string') return scrubString(value, opts, depth);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_REDACT_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => walk(v, opts, depth + 1));
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const pairIsSecret = isSecretPair(src, opts);
  for (const key of Object.keys(src)) {
    const v = src[key];
    out[key] = isSecretField(key, v, pairIsSecret, opts) ? REDACTED : walk(v, opts, depth + 1);
  }
  return out;
}

/** `walk` without the copy: only values that change are written back (own data keys, so `__proto__` too). */
function rewrite(value: unknown, opts: WalkOptions, depth: number): unknown {
  if (typeof value === 'string') return scrubString(value, opts, depth);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_REDACT_DEPTH) return REDACTED;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const next = rewrite(v, opts, depth + 1);
      if (next !== v) value[i] = next;
    }
    return value;
  }
  const obj = value as Record<string, unknown>;
  const pairIsSecret = isSecretPair(obj, opts);
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    const next = isSecretField(key, v, pairIsSecret, opts) ? REDACTED : rewrite(v, opts, depth + 1);
    if (next !== v) Object.defineProperty(obj, key, { value: next, writable: true, enumerable: true, configurable: true });
  }
  return obj;
}

/** Task log lines (`[{n, t}]`) sit two levels down. */
const LOG_PATH = /\/tasks\/[^/]+\/log$|\/tasks\/\{upid\}\/log$/;

/** A whole text body, or a task log line, is redacted as text; other strings only lose known secrets. */
function scrubString(value: string, opts: WalkOptions, depth: number): string {
  if (opts.redactKeys && (depth === 0 || (depth === 2 && opts.apiPath !== undefined && LOG_PATH.test(opts.apiPath)))) return redactText(value, opts.scrubber);
  return opts.scrubber ? opts.scrubber.scrub(value) : value;
}

/** `{ key: 'cipassword', value: …, pending: … }`: the pair's value is as secret as the option it names. */
function isSecretPair(obj: Record<string, unknown>, opts: WalkOptions): boolean {
  const pairKey = opts.redactKeys && Object.hasOwn(obj, 'key') ? obj.key : undefined;
  return typeof pairKey === 'string' && isSensitiveKey(pairKey, opts.apiPath);
}

function isSecretField(key: string, v: unknown, pairIsSecret: boolean, opts: WalkOptions): boolean {
  if (!opts.redactKeys || v === undefined) return false;
  if (v !== null && v !== '' && isSensitiveKey(key, opts.apiPath)) return true;
  return pairIsSecret && (key === 'value' || key === 'pending');
}

/** Shortest secret the scrubber accepts: shorter strings would erase ordinary text everywhere. */
export const MIN_SCRUB_LENGTH = 6;

/**
 * Removes exact secret strings (and their JSON-escaped and URL-encoded forms) from text.
 * Apply it to every string that leaves the host; key-based redaction cannot catch a secret that
 * a script copied into an ordinary field or a log line.
 */
export class SecretScrubber {
  private readonly needles = new Set<string>();

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  add(secret: string | undefined): void {
    if (typeof secret !== 'string' || secret.length < MIN_SCRUB_LENGTH) return;
    this.needles.add(secret);
    this.needles.add(JSON.stringify(secret).slice(1, -1));
    this.needles.add(encodeURIComponent(secret));
  }

  get size(): number {
    return this.needles.size;
  }

  /** A scrubber that also knows these secrets (one run's), leaving this one as it is. */
  with(extra: Iterable<string>): SecretScrubber {
    const copy = new SecretScrubber();
    for (const n of this.needles) copy.needles.add(n);
    for (const s of extra) copy.add(s);
    return copy;
  }

  scrub(text: string): string {
    let out = text;
    for (const needle of this.needles) {
      if (out.includes(needle)) out = out.split(needle).join(REDACTED);
    }
    return out;
  }

  /** Deep copy of JSON data with every string scrubbed. */
  scrubDeep<T>(value: T): T {
    return walk(value, { apiPath: undefined, scrubber: this, redactKeys: false }, 0) as T;
  }
}
