/**
 * The product configuration: the client's cluster configuration (clusters, auth, TLS) plus what
 * only the product needs — named policies, the audit log, where the state lives, sandbox limits,
 * the HTTP host. One JSON file holds both; without a file, `PVE_*` environment variables describe
 * a single cluster and the defaults apply. Each section is resolved by its own module here.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { configFileOf, loadConfig, parseConfigObject, type PveConfig } from '../../client/config.js';
import { PveConfigError } from '../../client/errors.js';
import { Secret } from '../../client/secret.js';
import { parsePolicyConfig, PolicyConfigError } from '../../policy/policy-config.js';
import { Policy } from '../../policy/policy.js';
import { PRESET_NAMES } from '../../policy/presets.js';
import { sandboxLimitsSchema, type SandboxLimits } from '../../sandbox/limits.js';
import { auditSchema, resolveAudit, type AuditSettings } from './audit-settings.js';
import { httpSchema, resolveHttp, type HttpSettings } from './http-settings.js';
import { absolute } from './paths.js';
import { configuredStateDir, defaultStateDir, haltSchema, postgresPassword, resolveHaltFile, resolvePostgres, stateSchema, type StateSettings } from './state-settings.js';

export interface AppConfig {
  pve: PveConfig;
  /** The policy for a cluster: its `policy` names a preset or an entry of `policies`. */
  policyFor(cluster: string): Policy;
  audit: AuditSettings;
  /** Dry-run plans and operator approvals (shared by the server and `pve-code-mcp approve`): `state.dir`. */
  stateDir: string;
  /** Where the shared state lives: the state directory, and a PostgreSQL database when configured (state-settings.ts). */
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

/**
 * The audit, state and halt settings alone, for `audit verify`, `approve`, `halt` and `resume`: no
 * cluster configuration is needed (a config file's clusters are not validated), and no key is
 * generated (only read) unless `createKey` (a command that appends to the log, as a server would).
 */
export function loadStateSettings(options: { file?: string; env?: Record<string, string | undefined>; stateDir?: string; createKey?: boolean } = {}): {
  stateDir: string;
  state: StateSettings;
  audit: AuditSettings;
  haltFile: string;
  source: string;
} {
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
    product = {
      ...(j.audit !== undefined ? { audit: j.audit } : {}),
      ...(j.stateDir !== undefined ? { stateDir: j.stateDir } : {}),
      ...(j.state !== undefined ? { state: j.state } : {}),
      ...(j.halt !== undefined ? { halt: j.halt } : {}),
    };
    baseDir = dirname(resolve(options.file));
    source = `file:${options.file}`;
  }
  const parsed = z.strictObject({ audit: auditSchema, stateDir: z.string().min(1).optional(), state: stateSchema, halt: haltSchema }).safeParse(product);
  if (!parsed.success)
    throw new PveConfigError(
      parsed.error.issues.map((i) => ({ key: i.path.map(String).join('.'), message: i.message })),
      options.file ?? source,
    );
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

export const productSchema = z.strictObject({
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
export async function parseAppConfig(json: unknown, options: { source: string; baseDir: string; env?: Record<string, string | undefined>; policy?: string; degraded?: boolean }): Promise<AppConfig> {
  const env = options.env ?? process.env;
  const where = configFileOf(options.source) ?? options.source;
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

function assemble(pve: PveConfig, product: z.output<typeof productSchema>, env: Record<string, string | undefined>, baseDir: string, policyOverride: string | undefined): AppConfig {
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
