/**
 * The product configuration: the client's cluster configuration (clusters, auth, TLS) plus what
 * only the product needs — named policies, the audit log, the state directory (plans and
 * approvals) and sandbox limits. One JSON file holds both; without a file, `PVE_*` environment
 * variables describe a single cluster and the defaults apply.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { AuditError } from '../files/errors.js';
import type { WitnessOptions, WitnessTlsOptions } from '../audit/witness.js';
import { z } from 'zod';
import { CLUSTER_FILE_SHAPE, loadConfig, parseConfigObject, type PveConfig } from '../client/config.js';
import { PveConfigError } from '../client/errors.js';
import { Secret } from '../client/secret.js';
import { sandboxLimitsSchema, type SandboxLimits } from '../sandbox/limits.js';
import { parsePolicyConfig, PolicyConfigError, PolicyConfigSchema } from '../policy/policy-config.js';
import { Policy } from '../policy/policy.js';
import { PRESET_NAMES } from '../policy/presets.js';
import { defaultHaltFile } from '../safety/halt.js';
import { configuredStateDir, postgresPassword, resolvePostgres, stateSchema, type StateSettings } from './state-config.js';

export interface AppConfig {
  pve: PveConfig;
  /** The policy for a cluster: its `policy` names a preset or an entry of `policies`. */
  policyFor(cluster: string): Policy;
  audit: AuditSettings;
  /** Dry-run plans and operator approvals (shared by the server and `pve-code-mcp approve`): `state.dir`. */
  stateDir: string;
  /** Where the shared state lives: the state directory, and a PostgreSQL database when configured (state-config.ts). */
  state: StateSettings;
  /** The kill switch's file (src/safety/halt.ts): per host, shared by every server and CLI run. */
  halt: { file: string };
  sandbox: {
    workers?: number;
    warmWorkers: number;
    idleMs: number;
    perPrincipal?: number;
    confineWorker: boolean;
    limits?: Partial<SandboxLimits>;
    typecheck: TypecheckSettings;
    /** A tool call's whole deadline, from its arrival: queue, compile, preflight and run (src/run/deadline.ts). */
    callDeadlineMs: number;
  };
  /** The graceful stop of `serve` (docs/security.md, "Stopping the server"). */
  shutdown: { drainMs: number };
  /** Saved scripts offered to agents by name (src/runbook); absent: no runbooks. */
  runbooks?: { dir: string };
  /** Every configured secret value, scrubbed from all output. */
  secrets: string[];
  source: string;
  /** `serve --http`: listener, allowed hosts and origins, TLS, authentication, principal policies. */
  http: HttpSettings;
}

/** The JWT signature algorithms an OAuth access token may use (all of them unless `oauth.algorithms` narrows it). */
export const DEFAULT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/** The `http` section, resolved (paths absolute, secrets read, policy names resolved). */
export interface HttpSettings {
  host?: string;
  port?: number;
  publicUrl?: string;
  allowedHosts: string[];
  allowedOrigins: string[];
  tls?: { certFile: string; keyFile: string; reloadIntervalMs: number };
  /** The static bearer token (single-user mode). */
  token?: string;
  /** OAuth resource-server mode (see src/server/auth/oauth.ts). */
  oauth?: {
    issuer: string;
    audience?: string[];
    jwksUri?: string;
    authorizationServers?: string[];
    scopes: { read: string; write: string; approve: string };
    principalClaim: string;
    groupsClaim: string;
    clockToleranceSec: number;
    algorithms: string[];
    jwksCooldownSec: number;
  };
  /** Policy by principal or group, first match wins; a principal no rule matches gets `unmatched`. */
  principals: PrincipalPolicyRule[];
  /** What an OAuth principal no `principals` rule matches (for a cluster) gets; never the cluster's policy unless said so. */
  unmatched: UnmatchedPrincipals;
  /** Open MCP sessions per principal; past it the principal's own longest-idle session without a run in flight is closed. */
  sessionsPerPrincipal: number;
  /** Open MCP sessions in all. */
  maxSessions: number;
  /** The web console's OpenID Connect client (OAuth mode) and its session length (docs/console.md). */
  console: { clientId?: string; clientSecret?: string; sessionMinutes: number };
}

/**
 * `http.unmatched`: `read-only` (default) each cluster's policy restricted to reads; `refuse` no
 * access (403 when no rule matches on any cluster); `cluster` each cluster's own policy (the
 * behaviour before this option, now only by choice); any other value names a policy.
 */
export type UnmatchedPrincipals = { kind: 'read-only' } | { kind: 'refuse' } | { kind: 'cluster' } | { kind: 'policy'; policy: Policy };

/** One line for logs and `config check`: what a principal no rule matches gets. */
export function describeUnmatched(u: UnmatchedPrincipals): string {
  switch (u.kind) {
    case 'read-only':
      return "each cluster's policy restricted to reads (http.unmatched: read-only, the default)";
    case 'refuse':
      return 'no access: refused with 403 (http.unmatched: refuse)';
    case 'cluster':
      return "each cluster's own policy, writes included (http.unmatched: cluster)";
    case 'policy':
      return `policy '${u.policy.name}' on every cluster (http.unmatched: ${u.policy.name})`;
  }
}

export interface PrincipalPolicyRule {
  user?: string;
  group?: string;
  /** The clusters the rule applies to; absent: all. */
  clusters?: string[];
  policy: Policy;
}

const secretRefSchema = z.union([z.string().min(16, 'use at least 16 characters'), z.strictObject({ env: z.string().min(1) }), z.strictObject({ file: z.string().min(1) })]);
const httpUrl = z.url({ protocol: /^https?$/, message: 'expected an http(s) URL' });

const httpSchema = z
  .strictObject({
    /** Listen address (default 127.0.0.1); `0.0.0.0` or `::` for every interface. */
    host: z.string().min(1).optional(),
    port: z.number().int().min(0).max(65_535).optional(),
    /** The MCP endpoint's URL as clients reach it (DNS name, reverse proxy): printed, allowed as Host, the OAuth resource. */
    publicUrl: httpUrl.optional(),
    /** More Host header values to accept: names (any port), name:port, addresses. */
    allowedHosts: z.array(z.string().min(1)).default([]),
    /** Browser origins allowed to call the server (CORS), e.g. http://localhost:6274 for the MCP Inspector. */
    allowedOrigins: z.array(z.string().min(1)).default([]),
    tls: z
      .strictObject({
        cert: z.string().min(1),
        key: z.string().min(1),
        /** How often the files are checked for a renewed certificate. */
        reloadSeconds: z.number().min(1).max(86_400).default(10),
      })
      .optional(),
    /** The static bearer token (single user); default PVE_MCP_TOKEN or a random one. */
    token: secretRefSchema.optional(),
    oauth: z
      .strictObject({
        issuer: httpUrl,
        audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
        jwksUri: httpUrl.optional(),
        authorizationServers: z.array(httpUrl).min(1).optional(),
        scopes: z
          .strictObject({
            read: z.string().min(1).default('pve:read'),
            write: z.string().min(1).default('pve:write'),
            approve: z.string().min(1).default('pve:approve'),
          })
          .prefault({}),
        principalClaim: z.string().min(1).default('sub'),
        groupsClaim: z.string().min(1).default('groups'),
        clockToleranceSec: z.number().min(0).max(300).default(30),
        algorithms: z.array(z.enum(DEFAULT_ALGORITHMS)).min(1).default([...DEFAULT_ALGORITHMS]),
        jwksCooldownSec: z.number().min(0).max(3_600).default(30),
      })
      .optional(),
    principals: z
      .array(
        z
          .strictObject({ user: z.string().min(1).optional(), group: z.string().min(1).optional(), clusters: z.array(z.string().min(1)).min(1).optional(), policy: z.string().min(1) })
          .refine((r) => (r.user === undefined) !== (r.group === undefined), { message: 'a rule names either a user or a group' }),
      )
      .default([]),
    /**
     * What an OAuth principal no `principals` rule matches gets: `read-only` (default: each
     * cluster's policy restricted to reads), `refuse`, `cluster` (each cluster's own policy), or a
     * policy name (preset or `policies` entry).
     */
    unmatched: z.string().min(1).default('read-only'),
    /** Open MCP sessions per principal (default 16); past it that principal's longest-idle session without a run in flight is closed. */
    sessionsPerPrincipal: z.number().int().min(1).max(10_000).default(16),
    /** Open MCP sessions in all (default 256); past it the longest-idle session without a run in flight of the principal holding the most is closed. */
    maxSessions: z.number().int().min(1).max(100_000).default(256),
    /** The web console under /console/: its OpenID Connect client at the identity provider (OAuth mode), session length. */
    console: z
      .strictObject({
        clientId: z.string().min(1).optional(),
        /** Environment variable holding the client secret (confidential clients; a public client uses PKCE alone). */
        clientSecretEnv: z.string().min(1).optional(),
        sessionMinutes: z.number().int().min(1).max(24 * 60).default(60),
      })
      .prefault({}),
  })
  .refine((h) => !(h.token !== undefined && h.oauth !== undefined), { message: 'give either token (one user) or oauth (an identity provider), not both' })
  .prefault({});

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

const auditSchema = z
  .strictObject({
    file: z.string().min(1).optional(),
    /** A key (≥ 16 characters), `{ env }`, `{ file }`, or `false` for an unkeyed log (plain SHA-256). */
    hmacKey: z
      .union([z.string().min(16, 'use at least 16 characters'), z.strictObject({ env: z.string().min(1) }), z.strictObject({ file: z.string().min(1) }), z.literal(false)])
      .optional(),
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

/** The kill switch (`halt` section): `file` overrides `PVE_HALT_FILE` and the default (src/safety/halt.ts). */
const haltSchema = z.strictObject({ file: z.string().min(1).optional() }).prefault({});

function resolveHaltFile(raw: z.output<typeof haltSchema>, env: Record<string, string | undefined>, baseDir: string): string {
  return raw.file ? absolute(baseDir, raw.file) : defaultHaltFile(env);
}

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
          throw new AuditError('audit-key', `cannot create the audit key ${path} (${(createErr as NodeJS.ErrnoException).code ?? (createErr as Error).message}): set audit.hmacKey, PVE_AUDIT_KEY_FILE, or choose an unkeyed log`);
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

type AuditRaw = z.output<typeof auditSchema>;

/** Files named by the witness (witness file, CA, token file) are relative to the config file. */
function resolveWitness(raw: NonNullable<AuditRaw['witness']>, baseDir: string): WitnessOptions {
  if ('file' in raw) return { file: absolute(baseDir, raw.file) };
  const tls = (t: { fingerprint?: string | undefined; caFile?: string | undefined } | undefined): { tls?: WitnessTlsOptions } =>
    t ? { tls: { ...(t.fingerprint !== undefined ? { fingerprint: t.fingerprint } : {}), ...(t.caFile !== undefined ? { caFile: absolute(baseDir, t.caFile) } : {}) } } : {};
  if ('syslog' in raw) {
    const { host, port, facility, transport, timeoutSeconds } = raw.syslog;
    return { syslog: { host, transport, timeoutMs: Math.round(timeoutSeconds * 1000), ...(port !== undefined ? { port } : {}), ...(facility !== undefined ? { facility } : {}), ...tls(raw.syslog.tls) } };
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
function resolveAudit(raw: AuditRaw, ctx: { env: Record<string, string | undefined>; baseDir: string; stateDir: string; createKey: boolean }, issues: Array<{ key: string; message: string }>): AuditSettings {
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

/**
 * The audit, state and halt settings alone, for `audit verify`, `approve`, `halt` and `resume`: no
 * cluster configuration is needed (a config file's clusters are not validated), and no key is
 * generated (only read) unless `createKey` (a command that appends to the log, as a server would).
 */
export function loadStateSettings(
  options: { file?: string; env?: Record<string, string | undefined>; stateDir?: string; createKey?: boolean } = {},
): { stateDir: string; state: StateSettings; audit: AuditSettings; haltFile: string; source: string } {
  const env = options.env ?? process.env;
  let product: Record<string, unknown> = {};
  let baseDir = process.cwd();
  let source = 'environment';
  if (options.file) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(options.file, 'utf8'));
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new PveConfigError([{ key: '(file)', message: `cannot read ${options.file} as JSON (${why}): check the path and syntax` }], options.file);
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new PveConfigError([{ key: '(root)', message: 'the config must be a JSON object' }], options.file);
    const j = json as Record<string, unknown>;
    product = { ...(j.audit !== undefined ? { audit: j.audit } : {}), ...(j.stateDir !== undefined ? { stateDir: j.stateDir } : {}), ...(j.state !== undefined ? { state: j.state } : {}), ...(j.halt !== undefined ? { halt: j.halt } : {}) };
    baseDir = dirname(resolve(options.file));
    source = `file:${options.file}`;
  }
  const parsed = z.strictObject({ audit: auditSchema, stateDir: z.string().min(1).optional(), state: stateSchema, halt: haltSchema }).safeParse(product);
  if (!parsed.success) throw new PveConfigError(parsed.error.issues.map((i) => ({ key: i.path.map(String).join('.'), message: i.message })), options.file ?? source);
  const issues: Array<{ key: string; message: string }> = [];
  const configured = configuredStateDir(parsed.data, baseDir, issues);
  const stateDir = options.stateDir ? resolve(options.stateDir) : (configured ?? (env.PVE_STATE_DIR ? resolve(env.PVE_STATE_DIR) : defaultStateDir(env)));
  const audit = resolveAudit(parsed.data.audit, { env, baseDir, stateDir, createKey: options.createKey ?? false }, issues);
  const postgres = resolvePostgres(parsed.data.state?.postgres, { env, baseDir }, issues);
  if (issues.length > 0) throw new PveConfigError(issues, options.file ?? source);
  return { stateDir, state: { dir: stateDir, ...(postgres ? { postgres } : {}) }, audit, haltFile: resolveHaltFile(parsed.data.halt, env, baseDir), source };
}

/** The type-check process (see `TypeCheckService`); every field has a default. */
const typecheckSchema = z.strictObject({
  /** Time for a check's type phase; past it only syntax and path checks apply. */
  budgetMs: z.number().int().min(10).max(60_000).default(1_000),
  /** Replace the process after this many checks (its language service grows with each one). */
  recycleAfterChecks: z.number().int().min(1).max(10_000_000).default(1_000),
  /** Replace the process once its RSS passes this. */
  maxRssMb: z.number().int().min(128).max(65_536).default(512),
  /** Checks waiting for the process; past it a check is skipped (the script runs unchecked, with a warning). */
  maxQueue: z.number().int().min(1).max(10_000).default(64),
  /** The process leaves after this long without a check; the next check starts it again (~1.2 s for PVE 9.1). 0: it never leaves. */
  idleMs: z.number().int().min(0).max(86_400_000).default(60_000),
});
export type TypecheckSettings = z.output<typeof typecheckSchema>;

const PRODUCT_KEYS = ['policies', 'audit', 'stateDir', 'state', 'sandbox', 'http', 'shutdown', 'halt', 'runbooks'] as const;

const productSchema = z.strictObject({
  policies: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'policy names use letters, digits, _ . -'), z.unknown()).default({}),
  audit: auditSchema,
  stateDir: z.string().min(1).optional(),
  state: stateSchema,
  sandbox: z
    .strictObject({
      /** Runs at once, one sandbox worker each: the most workers alive (default 2). Workers start on demand. */
      workers: z.number().int().min(1).max(16).optional(),
      /** Workers kept alive while idle, so a run after a pause does not wait for a process start (capped at workers). */
      warmWorkers: z.number().int().min(0).max(16).default(1),
      /** A worker unused this long leaves (down to warmWorkers; a kept one that loaded TypeScript is swapped for a fresh one). 0: never. */
      idleMs: z.number().int().min(0).max(86_400_000).default(60_000),
      /** Workers one principal (an HTTP user; 'local' over stdio) may hold at once, so one that floods or hangs leaves the rest to others (default: all but one of workers, at least 1). */
      perPrincipal: z.number().int().min(1).max(16).optional(),
      /** Node's permission model around each sandbox worker (see worker-launch.ts); off only where it cannot run. */
      confineWorker: z.boolean().default(true),
      limits: sandboxLimitsSchema.partial().optional(),
      typecheck: typecheckSchema.prefault({}),
      /**
       * A tool call's whole deadline, from the moment it arrives: the wait for a worker, the
       * compile, the preflight and the run. Below the MCP SDK client's 60 s default request
       * timeout, so the answer (partial, if it must be) reaches the client.
       */
      callDeadlineMs: z.number().int().min(1_000).max(3_600_000).default(55_000),
    })
    // prefault, not default: the empty object is parsed, so the nested defaults fill in.
    .prefault({}),
  http: httpSchema,
  shutdown: z
    .strictObject({
      /** How long a stopping server waits for the tool calls in flight to be answered (their runs are cancelled). */
      drainMs: z.number().int().min(0).max(600_000).default(10_000),
    })
    .prefault({}),
  halt: haltSchema,
  runbooks: z
    .strictObject({
      /** A folder of script files (`NAME.ts`) agents may run by name through run_script; relative to the config file. */
      dir: z.string().min(1),
    })
    .optional(),
});

export interface LoadAppConfigOptions {
  file?: string;
  env?: Record<string, string | undefined>;
  /** Overrides `PVE_POLICY`/the config for every cluster (e.g. `--policy operator`). */
  policy?: string;
  /** `serve`: a cluster whose secret cannot be read is marked unavailable instead of failing the configuration. */
  degraded?: boolean;
}

/** `$XDG_STATE_HOME/pve-code-mcp`, else `~/.local/state/pve-code-mcp`. */
export function defaultStateDir(env: Record<string, string | undefined> = process.env): string {
  const xdg = env.XDG_STATE_HOME?.trim();
  return join(xdg ? xdg : join(homedir(), '.local', 'state'), 'pve-code-mcp');
}

export async function loadAppConfig(options: LoadAppConfigOptions = {}): Promise<AppConfig> {
  const env = options.env ?? process.env;
  if (!options.file) {
    const pve = await loadConfig({ env, ...(options.degraded ? { degraded: true } : {}) });
    return assemble(pve, productSchema.parse({ ...(env.PVE_STATE_DIR ? { stateDir: env.PVE_STATE_DIR } : {}) }), env, process.cwd(), options.policy);
  }
  const file = options.file;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new PveConfigError([{ key: '(file)', message: `cannot read ${file} as JSON (${why}): check the path and syntax` }], file);
  }
  return parseAppConfig(json, {
    source: `file:${file}`,
    baseDir: dirname(resolve(file)),
    env,
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.degraded ? { degraded: true } : {}),
  });
}

/** Validate a config object (what a config file holds); relative paths resolve against `baseDir`. */
export async function parseAppConfig(
  json: unknown,
  options: { source: string; baseDir: string; env?: Record<string, string | undefined>; policy?: string; degraded?: boolean },
): Promise<AppConfig> {
  const env = options.env ?? process.env;
  const where = options.source.startsWith('file:') ? options.source.slice(5) : options.source;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new PveConfigError([{ key: '(root)', message: 'the config must be a JSON object with "clusters"' }], where);
  }
  const clientPart: Record<string, unknown> = {};
  const productPart: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    if ((PRODUCT_KEYS as readonly string[]).includes(key)) productPart[key] = value;
    else clientPart[key] = value;
  }
  const pve = await parseConfigObject(clientPart, { source: options.source, env, baseDir: options.baseDir, ...(options.degraded ? { degraded: true } : {}) });
  const parsed = productSchema.safeParse(productPart);
  if (!parsed.success) {
    throw new PveConfigError(
      parsed.error.issues.map((i) => ({ key: i.path.map(String).join('.'), message: i.message })),
      where,
    );
  }
  return assemble(pve, parsed.data, env, options.baseDir, options.policy);
}

function assemble(
  pve: PveConfig,
  product: z.output<typeof productSchema>,
  env: Record<string, string | undefined>,
  baseDir: string,
  policyOverride: string | undefined,
): AppConfig {
  const policies = new Map<string, Policy>();
  const issues: Array<{ key: string; message: string }> = [];
  const stateDir = configuredStateDir(product, baseDir, issues) ?? defaultStateDir(env);
  const postgres = resolvePostgres(product.state?.postgres, { env, baseDir }, issues);
  for (const [name, raw] of Object.entries(product.policies)) {
    try {
      policies.set(name, new Policy(parsePolicyConfig({ name, ...(raw as object) })));
    } catch (err) {
      const problems = err instanceof PolicyConfigError ? err.problems : [String(err)];
      for (const p of problems) issues.push({ key: `policies.${name}`, message: p });
    }
  }
  const resolvePolicy = (ref: string | undefined, key: string): Policy | undefined => {
    const name = ref ?? 'read-only';
    const named = policies.get(name);
    if (named) return named;
    if ((PRESET_NAMES as readonly string[]).includes(name)) return Policy.fromConfig({ preset: name });
    issues.push({
      key,
      message: `no policy named '${name}': use a preset (${PRESET_NAMES.join(', ')}) or define it under "policies"`,
    });
    return undefined;
  };
  const perCluster = new Map<string, Policy>();
  for (const cluster of pve.clusters) {
    const policy = resolvePolicy(policyOverride ?? cluster.policy, policyOverride ? '--policy' : `clusters.${cluster.name}.policy`);
    if (policy) perCluster.set(cluster.name, policy);
  }
  const audit = resolveAudit(product.audit, { env, baseDir, stateDir, createKey: true }, issues);
  const http = resolveHttp(product.http, { env, baseDir, clusters: pve.clusters.map((c) => c.name), policy: (ref, key) => resolvePolicy(ref, key) }, issues);
  if (issues.length > 0) throw new PveConfigError(issues, pve.source);

  const secrets: string[] = [];
  for (const c of pve.clusters) {
    secrets.push(Secret.from(c.auth.kind === 'token' ? c.auth.secret : c.auth.password).reveal());
    for (const token of Object.values(c.tokens ?? {})) secrets.push(Secret.from(token.secret).reveal());
  }
  if (audit.hmacKey) secrets.push(audit.hmacKey);
  if (http.token) secrets.push(http.token);
  if (http.console.clientSecret) secrets.push(http.console.clientSecret);
  const databasePassword = postgresPassword(postgres);
  if (databasePassword) secrets.push(databasePassword);
  return {
    http,
    pve,
    policyFor: (cluster) => {
      const p = perCluster.get(cluster);
      if (!p) throw new PveConfigError([{ key: `clusters.${cluster}`, message: 'no such cluster in the configuration' }], pve.source);
      return p;
    },
    audit,
    stateDir,
    state: { dir: stateDir, ...(postgres ? { postgres } : {}) },
    halt: { file: resolveHaltFile(product.halt, env, baseDir) },
    sandbox: {
      ...(product.sandbox.workers !== undefined ? { workers: product.sandbox.workers } : {}),
      warmWorkers: product.sandbox.warmWorkers,
      idleMs: product.sandbox.idleMs,
      ...(product.sandbox.perPrincipal !== undefined ? { perPrincipal: product.sandbox.perPrincipal } : {}),
      confineWorker: product.sandbox.confineWorker,
      ...(product.sandbox.limits ? { limits: product.sandbox.limits as Partial<SandboxLimits> } : {}),
      typecheck: product.sandbox.typecheck,
      callDeadlineMs: product.sandbox.callDeadlineMs,
    },
    shutdown: { drainMs: product.shutdown.drainMs },
    ...(product.runbooks ? { runbooks: { dir: absolute(baseDir, product.runbooks.dir) } } : {}),
    secrets,
    source: pve.source,
  };
}

/** The `http` section: paths against the config's directory, the token read, rule policies resolved. */
function resolveHttp(
  raw: z.output<typeof httpSchema>,
  ctx: { env: Record<string, string | undefined>; baseDir: string; clusters: string[]; policy(ref: string, key: string): Policy | undefined },
  issues: Array<{ key: string; message: string }>,
): HttpSettings {
  let token: string | undefined;
  const ref = raw.token;
  if (typeof ref === 'string') token = ref;
  else if (ref && 'env' in ref) {
    token = ctx.env[ref.env];
    if (!token) issues.push({ key: 'http.token', message: `environment variable ${ref.env} is not set: export it or remove the key` });
  } else if (ref && 'file' in ref) {
    const file = absolute(ctx.baseDir, ref.file);
    try {
      token = readFileSync(file, 'utf8').trim();
    } catch (err) {
      issues.push({ key: 'http.token', message: `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` });
    }
  }
  if (token !== undefined && token.length > 0 && token.length < 16) issues.push({ key: 'http.token', message: 'the token must be at least 16 characters' });
  const principals: PrincipalPolicyRule[] = [];
  raw.principals.forEach((rule, i) => {
    const key = `http.principals.${i}`;
    for (const c of rule.clusters ?? []) {
      if (!ctx.clusters.includes(c)) issues.push({ key: `${key}.clusters`, message: `no cluster named '${c}' (clusters: ${ctx.clusters.join(', ')})` });
    }
    const policy = ctx.policy(rule.policy, `${key}.policy`);
    if (policy) principals.push({ ...(rule.user ? { user: rule.user } : {}), ...(rule.group ? { group: rule.group } : {}), ...(rule.clusters ? { clusters: rule.clusters } : {}), policy });
  });
  const u = raw.unmatched;
  let unmatched: UnmatchedPrincipals = { kind: 'read-only' };
  if (u === 'refuse' || u === 'cluster') unmatched = { kind: u };
  else if (u !== 'read-only') {
    const policy = ctx.policy(u, 'http.unmatched');
    if (policy) unmatched = { kind: 'policy', policy };
  }
  const o = raw.oauth;
  return {
    ...(raw.host !== undefined ? { host: raw.host } : {}),
    ...(raw.port !== undefined ? { port: raw.port } : {}),
    ...(raw.publicUrl !== undefined ? { publicUrl: raw.publicUrl } : {}),
    allowedHosts: raw.allowedHosts,
    allowedOrigins: raw.allowedOrigins,
    ...(raw.tls ? { tls: { certFile: absolute(ctx.baseDir, raw.tls.cert), keyFile: absolute(ctx.baseDir, raw.tls.key), reloadIntervalMs: Math.round(raw.tls.reloadSeconds * 1000) } } : {}),
    ...(token ? { token } : {}),
    ...(o
      ? {
          oauth: {
            issuer: o.issuer,
            ...(o.audience !== undefined ? { audience: typeof o.audience === 'string' ? [o.audience] : o.audience } : {}),
            ...(o.jwksUri ? { jwksUri: o.jwksUri } : {}),
            ...(o.authorizationServers ? { authorizationServers: o.authorizationServers } : {}),
            scopes: o.scopes,
            principalClaim: o.principalClaim,
            groupsClaim: o.groupsClaim,
            clockToleranceSec: o.clockToleranceSec,
            algorithms: o.algorithms,
            jwksCooldownSec: o.jwksCooldownSec,
          },
        }
      : {}),
    principals,
    unmatched,
    sessionsPerPrincipal: raw.sessionsPerPrincipal,
    maxSessions: raw.maxSessions,
    console: consoleSettings(raw.console, ctx.env, issues),
  };
}

function consoleSettings(raw: z.output<typeof httpSchema>['console'], env: Record<string, string | undefined>, issues: Array<{ key: string; message: string }>): HttpSettings['console'] {
  let clientSecret: string | undefined;
  if (raw.clientSecretEnv !== undefined) {
    clientSecret = env[raw.clientSecretEnv];
    if (!clientSecret) issues.push({ key: 'http.console.clientSecretEnv', message: `environment variable ${raw.clientSecretEnv} is not set: export it or remove the key` });
  }
  return { ...(raw.clientId !== undefined ? { clientId: raw.clientId } : {}), ...(clientSecret ? { clientSecret } : {}), sessionMinutes: raw.sessionMinutes };
}

function absolute(baseDir: string, path: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

/** Descriptions shown by editors; the zod schemas carry the rules, these say what each key is for. */
const KEY_DESCRIPTIONS: Record<string, string> = {
  $schema: 'Path or URL of this JSON Schema (pve-code-mcp config schema prints it; the package ships it as schema/config.schema.json).',
  defaultCluster: 'The cluster scripts use when they do not pick one (default: the first).',
  cacheDir: 'Schema cache directory (default ~/.cache/pve-code-mcp).',
  clusters: 'Proxmox VE clusters by name: url, auth (tokenId + secret, or username + password), tls (fingerprint or caFile), policy.',
  policies: 'Named policies: preset, allow/deny/privileged operation patterns (METHOD /path/glob), target rules, scopes, approval, budget. Checked against each cluster by pve-code-mcp config check.',
  audit: 'The hash-chained audit log: file, hmacKey (default: a key generated on first use), rotation and retention, durability (fsync or os: how durable the intent of a change is before it is sent), witness.',
  stateDir: 'The old name of state.dir.',
  state: 'Where plans, approvals, the audit, the intents and the kill switch live: dir (the state directory, default ~/.local/state/pve-code-mcp) and, for several serve --http replicas, postgres (url as a string, { env } or { file }; poolMax, connectTimeoutMs, statementTimeoutMs, recoverEveryMs). docs/deployment.md.',
  sandbox: 'Sandbox workers, worker confinement, limits, the type-check process, and callDeadlineMs: a tool call\'s whole deadline (queue, compile, preflight and run; default 55000).',
  shutdown: 'serve: drainMs, how long a stopping server waits for the tool calls in flight to be answered (default 10000); past it they are answered that their outcome is unknown.',
  halt: 'The kill switch: file (default /etc/pve-code-mcp/halt when that directory exists, else ~/.config/pve-code-mcp/halt; PVE_HALT_FILE) whose existence stops every change. pve-code-mcp halt / resume.',
  http: 'serve --http: listen address, publicUrl, allowedHosts/allowedOrigins, tls (cert, key, reloaded), token (one user) or oauth (an identity provider: issuer, audience, scopes), console (the web console: OpenID Connect clientId, clientSecretEnv, sessionMinutes), principals (policy by user or group), unmatched (what a principal no rule matches gets: read-only, refuse, cluster or a policy name), sessionsPerPrincipal and maxSessions.',
};

/**
 * The JSON Schema of the config file, generated from the same zod schemas that validate it (input
 * side: keys with defaults are optional). Shipped as `schema/config.schema.json` and printed by
 * `pve-code-mcp config schema`; a config file points at it with `"$schema"`.
 */
export function configJsonSchema(): Record<string, unknown> {
  const file = z.strictObject({
    ...CLUSTER_FILE_SHAPE,
    ...productSchema.shape,
    policies: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/), PolicyConfigSchema).optional(),
  });
  const schema = z.toJSONSchema(file, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };
  for (const [key, description] of Object.entries(KEY_DESCRIPTIONS)) {
    const prop = schema.properties[key];
    if (prop) schema.properties[key] = { description, ...prop };
  }
  return {
    $schema: schema.$schema,
    title: 'pve-code-mcp configuration',
    description: 'Clusters, policies, audit, state and sandbox settings of pve-code-mcp (README.md, "Connecting a real cluster").',
    ...schema,
    required: ['clusters'],
  };
}
