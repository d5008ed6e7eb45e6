/**
 * The `audit` section of the config: the log's file, its HMAC key (generated on first use outside
 * the audit's directory), rotation and retention, the durability of intents, and the witness.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import type { WitnessOptions, WitnessTlsOptions } from '../../audit/witness.js';
import { AuditError } from '../../files/errors.js';
import { absolute } from './paths.js';

/**
 * The audit log's settings (`audit` section). Keyed by default: without `hmacKey`, a key is read
 * from (or generated on first use into) `defaultAuditKeyFile()`, outside the audit directory.
 */
export interface AuditSettings {
  file: string;
  /** Absent only when the operator chose an unkeyed log (`"hmacKey": false`, `PVE_AUDIT_UNKEYED=1`). */
  hmacKey?: string;
  /** Where the key came from: `file:<path>`, `env:<VAR>`, `config`, or `none` (unkeyed by choice). */
  keySource: string;
  /** Rotate the active file past this size. */
  maxBytes: number;
  retention: { maxTotalBytes: number; maxAgeMs: number };
  /** Intents: fdatasync each (`fsync`) or leave them to the page cache (`os`). */
  durability: 'fsync' | 'os';
  witness?: WitnessOptions;
}

/** How a network witness's certificate is trusted: pinned SHA-256 fingerprint, or a CA file (default: the system store). */
const witnessTlsSchema = z.strictObject({ fingerprint: z.string().min(1).optional(), caFile: z.string().min(1).optional() });

export const auditSchema = z
  .strictObject({
    file: z.string().min(1).optional(),
    /** A key (≥ 16 characters), `{ env }`, `{ file }`, or `false` for an unkeyed log (plain SHA-256). */
    hmacKey: z.union([z.string().min(16, 'use at least 16 characters'), z.strictObject({ env: z.string().min(1) }), z.strictObject({ file: z.string().min(1) }), z.literal(false)]).optional(),
    maxFileMb: z.number().min(0.01).max(4096).default(16),
    /** All audit files together; the oldest rotated files are removed past it (0 = no limit). */
    maxTotalMb: z.number().min(0).max(1_048_576).default(1024),
    /** Rotated files whose last entry is older are removed (0 = no limit). */
    maxAgeDays: z.number().min(0).max(36_500).default(365),
    /**
     * How durable a change's intent is before the change is sent: `fsync` (fdatasync per intent,
     * survives a power loss) or `os` (the page cache: survives the process being killed, not the
     * machine losing power). docs/security.md, "Write-ahead intents".
     */
    durability: z.enum(['fsync', 'os']).default('fsync'),
    /** Where the chain's end is copied: a file, syslog (udp loses records silently; tcp/tls report failures) or an HTTPS endpoint. */
    witness: z
      .union([
        z.strictObject({ file: z.string().min(1) }),
        z.strictObject({
          syslog: z.strictObject({
            host: z.string().min(1),
            /** Default 514 (udp, tcp), 6514 (tls). */
            port: z.number().int().min(1).max(65_535).optional(),
            facility: z.number().int().min(0).max(23).optional(),
            transport: z.enum(['udp', 'tcp', 'tls']).default('udp'),
            tls: witnessTlsSchema.optional(),
            timeoutSeconds: z.number().min(0.1).max(300).default(10),
          }),
        }),
        z.strictObject({
          https: z.strictObject({
            url: z.url({ protocol: /^https$/, message: 'expected an https URL' }),
            /** Bearer token sent with each record. */
            token: z.union([z.strictObject({ env: z.string().min(1) }), z.strictObject({ file: z.string().min(1) })]).optional(),
            tls: witnessTlsSchema.optional(),
            timeoutSeconds: z.number().min(0.1).max(300).default(10),
          }),
        }),
      ])
      .optional(),
  })
  .prefault({});

/** `$XDG_CONFIG_HOME/pve-code-mcp/audit.key`, else `~/.config/pve-code-mcp/audit.key`; `PVE_AUDIT_KEY_FILE` overrides. */
export function defaultAuditKeyFile(env: Record<string, string | undefined> = process.env): string {
  const explicit = env.PVE_AUDIT_KEY_FILE?.trim();
  if (explicit) return resolve(explicit);
  const xdg = env.XDG_CONFIG_HOME?.trim();
  return join(xdg ? xdg : join(homedir(), '.config'), 'pve-code-mcp', 'audit.key');
}

/**
 * Read the audit key file; with `create`, generate it (32 random bytes, hex, mode 0600, directory
 * 0700) when it does not exist. Two processes creating it at once both end up with the one key.
 * A key file others can read or write is refused: the key is what makes the log forgery-evident.
 */
export function readAuditKeyFile(path: string, options: { create: boolean }): string | undefined {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const st = statSync(path);
      if ((st.mode & 0o077) !== 0) {
        throw new AuditError('audit-key', `the audit key ${path} is accessible to other users (mode ${(st.mode & 0o777).toString(8)}): run chmod 600 ${path}`);
      }
      const key = readFileSync(path, 'utf8').trim();
      if (key.length < 16) throw new AuditError('audit-key', `the audit key ${path} is shorter than 16 characters: remove it to have a new one generated, or write a longer one`);
      return key;
    } catch (err) {
      if (err instanceof AuditError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new AuditError('audit-key', `cannot read the audit key ${path} (${code ?? (err as Error).message})`);
      if (!options.create) return undefined;
      try {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        writeFileSync(path, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
      } catch (createErr) {
        // EEXIST: another process generated it first; read theirs.
        if ((createErr as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new AuditError(
            'audit-key',
            `cannot create the audit key ${path} (${(createErr as NodeJS.ErrnoException).code ?? (createErr as Error).message}): set audit.hmacKey, PVE_AUDIT_KEY_FILE, or choose an unkeyed log`,
          );
        }
      }
    }
  }
  return readAuditKeyFile(path, { create: false });
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export type AuditRaw = z.output<typeof auditSchema>;

/** Files named by the witness (witness file, CA, token file) are relative to the config file. */
function resolveWitness(raw: NonNullable<AuditRaw['witness']>, baseDir: string): WitnessOptions {
  if ('file' in raw) return { file: absolute(baseDir, raw.file) };
  const tls = (t: { fingerprint?: string | undefined; caFile?: string | undefined } | undefined): { tls?: WitnessTlsOptions } =>
    t ? { tls: { ...(t.fingerprint !== undefined ? { fingerprint: t.fingerprint } : {}), ...(t.caFile !== undefined ? { caFile: absolute(baseDir, t.caFile) } : {}) } } : {};
  if ('syslog' in raw) {
    const { host, port, facility, transport, timeoutSeconds } = raw.syslog;
    return {
      syslog: { host, transport, timeoutMs: Math.round(timeoutSeconds * 1000), ...(port !== undefined ? { port } : {}), ...(facility !== undefined ? { facility } : {}), ...tls(raw.syslog.tls) },
    };
  }
  const { url, token, timeoutSeconds } = raw.https;
  return {
    https: {
      url,
      timeoutMs: Math.round(timeoutSeconds * 1000),
      ...(token ? { token: 'file' in token ? { file: absolute(baseDir, token.file) } : { env: token.env } } : {}),
      ...tls(raw.https.tls),
    },
  };
}

/** Resolve the audit section: file, key (generated on first use when `createKey`), limits, witness. */
export function resolveAudit(
  raw: AuditRaw,
  ctx: { env: Record<string, string | undefined>; baseDir: string; stateDir: string; createKey: boolean },
  issues: Array<{ key: string; message: string }>,
): AuditSettings {
  const file = raw.file ? absolute(ctx.baseDir, raw.file) : join(ctx.stateDir, 'audit.jsonl');
  const base: Omit<AuditSettings, 'keySource' | 'hmacKey'> = {
    file,
    maxBytes: Math.round(raw.maxFileMb * 1024 * 1024),
    retention: { maxTotalBytes: Math.round(raw.maxTotalMb * 1024 * 1024), maxAgeMs: Math.round(raw.maxAgeDays * 86_400_000) },
    durability: raw.durability,
    ...(raw.witness ? { witness: resolveWitness(raw.witness, ctx.baseDir) } : {}),
  };
  const witness = base.witness;
  if (witness && 'file' in witness && isInside(dirname(file), witness.file)) {
    issues.push({ key: 'audit.witness.file', message: 'the witness must be outside the audit directory (someone who can rewrite the log must not reach it)' });
  }
  const ref = raw.hmacKey;
  const unkeyedEnv = ctx.env.PVE_AUDIT_UNKEYED?.trim();
  if (ref === false || (ref === undefined && unkeyedEnv !== undefined && unkeyedEnv !== '' && unkeyedEnv !== '0')) return { ...base, keySource: 'none' };
  if (typeof ref === 'string') return { ...base, hmacKey: ref, keySource: 'config' };
  if (ref && 'env' in ref) {
    const key = ctx.env[ref.env];
    if (!key) issues.push({ key: 'audit.hmacKey', message: `environment variable ${ref.env} is not set: export it or remove the key` });
    return { ...base, ...(key ? { hmacKey: key } : {}), keySource: `env:${ref.env}` };
  }
  const keyFile = ref && 'file' in ref ? absolute(ctx.baseDir, ref.file) : defaultAuditKeyFile(ctx.env);
  if (isInside(dirname(file), keyFile)) {
    issues.push({ key: 'audit.hmacKey', message: `the key file ${keyFile} is inside the audit directory: keep it elsewhere (whoever can rewrite the log must not find the key beside it)` });
    return { ...base, keySource: `file:${keyFile}` };
  }
  try {
    const key = readAuditKeyFile(keyFile, { create: ctx.createKey });
    return { ...base, ...(key ? { hmacKey: key } : {}), keySource: `file:${keyFile}` };
  } catch (err) {
    issues.push({ key: 'audit.hmacKey', message: err instanceof Error ? err.message : String(err) });
    return { ...base, keySource: `file:${keyFile}` };
  }
}
