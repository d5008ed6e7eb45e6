/**
 * The product configuration: the client's cluster configuration (clusters, auth, TLS) plus what
 * only the product needs — named policies, the audit log, the state directory (plans and
 * approvals) and sandbox limits. One JSON file holds both; without a file, `PVE_*` environment
 * variables describe a single cluster and the defaults apply.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { loadConfig, parseConfigObject, type PveConfig } from '../client/config.js';
import { PveConfigError } from '../client/errors.js';
import { Secret } from '../client/secret.js';
import { sandboxLimitsSchema, type SandboxLimits } from '../sandbox/limits.js';
import { parsePolicyConfig, PolicyConfigError } from '../policy/policy-config.js';
import { Policy } from '../policy/policy.js';
import { PRESET_NAMES } from '../policy/presets.js';

export interface AppConfig {
  pve: PveConfig;
  /** The policy for a cluster: its `policy` names a preset or an entry of `policies`. */
  policyFor(cluster: string): Policy;
  audit: { file: string; hmacKey?: string };
  /** Dry-run plans and operator approvals (shared by the server and `pve-code-mcp approve`). */
  stateDir: string;
  sandbox: { workers?: number; confineWorker: boolean; limits?: Partial<SandboxLimits>; typecheck: TypecheckSettings };
  /** Every configured secret value, scrubbed from all output. */
  secrets: string[];
  source: string;
}

/** The type-check process (see `CheckerProcess`); every field has a default. */
const typecheckSchema = z.strictObject({
  /** Time for a check's type phase; past it only syntax and path checks apply. */
  budgetMs: z.number().int().min(10).max(60_000).default(1_000),
  /** Replace the process after this many checks (its language service grows with each one). */
  recycleAfterChecks: z.number().int().min(1).max(10_000_000).default(1_000),
  /** Replace the process once its RSS passes this. */
  maxRssMb: z.number().int().min(128).max(65_536).default(512),
  /** Checks waiting for the process; past it a check is skipped (the script runs unchecked, with a warning). */
  maxQueue: z.number().int().min(1).max(10_000).default(64),
});
export type TypecheckSettings = z.output<typeof typecheckSchema>;

const PRODUCT_KEYS = ['policies', 'audit', 'stateDir', 'sandbox'] as const;

const productSchema = z.strictObject({
  policies: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'policy names use letters, digits, _ . -'), z.unknown()).default({}),
  audit: z
    .strictObject({
      file: z.string().min(1).optional(),
      hmacKey: z.union([z.string().min(16, 'use at least 16 characters'), z.strictObject({ env: z.string().min(1) })]).optional(),
    })
    .default({}),
  stateDir: z.string().min(1).optional(),
  sandbox: z
    .strictObject({
      workers: z.number().int().min(1).max(16).optional(),
      /** Node's permission model around each sandbox worker (see worker-launch.ts); off only where it cannot run. */
      confineWorker: z.boolean().default(true),
      limits: sandboxLimitsSchema.partial().optional(),
      typecheck: typecheckSchema.prefault({}),
    })
    // prefault, not default: the empty object is parsed, so the nested defaults fill in.
    .prefault({}),
});

export interface LoadAppConfigOptions {
  file?: string;
  env?: Record<string, string | undefined>;
  /** Overrides `PVE_POLICY`/the config for every cluster (e.g. `--policy operator`). */
  policy?: string;
}

/** `$XDG_STATE_HOME/pve-code-mcp`, else `~/.local/state/pve-code-mcp`. */
export function defaultStateDir(env: Record<string, string | undefined> = process.env): string {
  const xdg = env.XDG_STATE_HOME?.trim();
  return join(xdg ? xdg : join(homedir(), '.local', 'state'), 'pve-code-mcp');
}

export async function loadAppConfig(options: LoadAppConfigOptions = {}): Promise<AppConfig> {
  const env = options.env ?? process.env;
  if (!options.file) {
    const pve = await loadConfig({ env });
    return assemble(pve, productSchema.parse({}), env, process.cwd(), options.policy, env.PVE_STATE_DIR);
  }
  const file = options.file;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new PveConfigError([{ key: '(file)', message: `cannot read ${file} as JSON (${why}): check the path and syntax` }], file);
  }
  return parseAppConfig(json, { source: `file:${file}`, baseDir: dirname(resolve(file)), env, ...(options.policy ? { policy: options.policy } : {}) });
}

/** Validate a config object (what a config file holds); relative paths resolve against `baseDir`. */
export async function parseAppConfig(
  json: unknown,
  options: { source: string; baseDir: string; env?: Record<string, string | undefined>; policy?: string },
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
  const pve = await parseConfigObject(clientPart, { source: options.source, env, baseDir: options.baseDir });
  const parsed = productSchema.safeParse(productPart);
  if (!parsed.success) {
    throw new PveConfigError(
      parsed.error.issues.map((i) => ({ key: i.path.map(String).join('.'), message: i.message })),
      where,
    );
  }
  return assemble(pve, parsed.data, env, options.baseDir, options.policy, parsed.data.stateDir);
}

function assemble(
  pve: PveConfig,
  product: z.output<typeof productSchema>,
  env: Record<string, string | undefined>,
  baseDir: string,
  policyOverride: string | undefined,
  stateDirRaw: string | undefined,
): AppConfig {
  const stateDir = stateDirRaw ? absolute(baseDir, stateDirRaw) : defaultStateDir(env);
  const policies = new Map<string, Policy>();
  const issues: Array<{ key: string; message: string }> = [];
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
  let hmacKey: string | undefined;
  const keyRef = product.audit.hmacKey;
  if (typeof keyRef === 'string') hmacKey = keyRef;
  else if (keyRef) {
    hmacKey = env[keyRef.env];
    if (!hmacKey) issues.push({ key: 'audit.hmacKey', message: `environment variable ${keyRef.env} is not set: export it or remove the key` });
  }
  if (issues.length > 0) throw new PveConfigError(issues, pve.source);

  const secrets: string[] = [];
  for (const c of pve.clusters) {
    secrets.push(Secret.from(c.auth.kind === 'token' ? c.auth.secret : c.auth.password).reveal());
    for (const token of Object.values(c.tokens ?? {})) secrets.push(Secret.from(token.secret).reveal());
  }
  if (hmacKey) secrets.push(hmacKey);
  return {
    pve,
    policyFor: (cluster) => {
      const p = perCluster.get(cluster);
      if (!p) throw new PveConfigError([{ key: `clusters.${cluster}`, message: 'no such cluster in the configuration' }], pve.source);
      return p;
    },
    audit: {
      file: product.audit.file ? absolute(baseDir, product.audit.file) : join(stateDir, 'audit.jsonl'),
      ...(hmacKey ? { hmacKey } : {}),
    },
    stateDir,
    sandbox: {
      ...(product.sandbox.workers !== undefined ? { workers: product.sandbox.workers } : {}),
      confineWorker: product.sandbox.confineWorker,
      ...(product.sandbox.limits ? { limits: product.sandbox.limits as Partial<SandboxLimits> } : {}),
      typecheck: product.sandbox.typecheck,
    },
    secrets,
    source: pve.source,
  };
}

function absolute(baseDir: string, path: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}
