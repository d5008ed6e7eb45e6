/**
 * Client configuration: one or more named clusters from a JSON file, or a single cluster from
 * `PVE_*` environment variables. Validated with zod; every problem is reported with its key and
 * what to write instead. Secrets may be inline, `{ "env": "VAR" }` or `{ "file": "/path" }` and
 * end up as `Secret` objects that never print their value.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { TOKEN_ID_PATTERN, type TicketAuthOptions, type TokenAuthOptions } from './auth.js';
import { PveClient } from './client.js';
import { type ConfigIssue, PveConfigError } from './errors.js';
import type { PveLogger } from './logger.js';
import type { RetryOptions } from './retry.js';
import { Secret } from './secret.js';
import { parseFingerprint, type TlsOptions } from './tls.js';
import { MIN_MAX_RESPONSE_BYTES, type TimeoutOptions } from './transport.js';

export type SecretRef = string | { env: string } | { file: string };

/** Risk classes a cluster can give a token of its own (`tokens` in the config). */
export const TOKEN_CLASSES = ['read', 'write', 'destructive', 'privileged'] as const;
export type TokenClass = (typeof TOKEN_CLASSES)[number];

export interface ClusterConfig {
  name: string;
  url: string;
  /** The credentials of every call whose risk class has no token of its own in `tokens`. */
  auth: TokenAuthOptions | TicketAuthOptions;
  /**
   * Least privilege enforced by PVE too: calls of these classes go out with these API tokens
   * (a read token with PVEAuditor, say), so a misclassified call cannot do more than its class.
   */
  tokens?: Partial<Record<TokenClass, TokenAuthOptions>>;
  tls: TlsOptions;
  /** Name of the safety policy for this cluster; the safety layer resolves it. */
  policy?: string;
  /** Schema override: apidoc file path or URL, used instead of the cluster's own. */
  schema?: string;
  timeouts?: Partial<TimeoutOptions>;
  retry?: Partial<RetryOptions>;
  maxConcurrency?: number;
  /** The response-size cap in bytes (default 64 MiB, at least 16 MiB). */
  maxResponseBytes?: number;
  /**
   * Loaded with `degraded`: a secret of this cluster could not be read (a missing file or
   * variable). Its credentials are empty; `resolve()` reads them again (throws `PveConfigError`
   * while they are still missing).
   */
  unavailable?: { issues: readonly ConfigIssue[]; resolve(): Promise<ClusterConfig> };
}

export interface PveConfig {
  /** In file order; the env-var setup yields one cluster named `default`. */
  clusters: ClusterConfig[];
  /** Name of the cluster scripts use when they do not pick one. */
  defaultCluster: string;
  /** Schema cache directory override. */
  cacheDir?: string;
  /** `file:<path>` or `env`, for messages. */
  source: string;
}

export interface LoadConfigOptions {
  /** JSON config file. Without it, the `PVE_*` environment variables describe one cluster. */
  file?: string;
  /** Environment for `PVE_*` variables and `{ env }` secrets (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** A cluster whose secrets cannot be read is marked `unavailable` instead of failing the whole configuration. */
  degraded?: boolean;
}

/** A configured cluster's name; scripts name clusters the same way (`pve.cluster('lab')`). */
export const CLUSTER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
export const CLUSTER_NAME_RULE = 'cluster names are 1-63 letters, digits, _ . - (starting with a letter or digit)';
const CLUSTER_NAME = CLUSTER_NAME_PATTERN;

const secretRef = z.union([z.string().min(1), z.strictObject({ env: z.string().min(1) }), z.strictObject({ file: z.string().min(1) })], {
  error: 'give the secret as a string, { "env": "VAR_NAME" } or { "file": "/path/to/file" }',
});

const positiveMs = z.number().int().positive({ error: 'must be a positive number of milliseconds' });

const authSchema = z
  .strictObject({
    tokenId: z.string().regex(TOKEN_ID_PATTERN, { error: 'expected user@realm!tokenname, e.g. "root@pam!mcp"' }).optional(),
    secret: secretRef.optional(),
    username: z.string().min(1).optional(),
    password: secretRef.optional(),
    realm: z.string().min(1).optional(),
    renewAfterMs: positiveMs.optional(),
  })
  .superRefine((auth, ctx) => {
    const token = auth.tokenId !== undefined || auth.secret !== undefined;
    const user = auth.username !== undefined || auth.password !== undefined;
    if (token && user) {
      ctx.addIssue({ code: 'custom', message: 'give either tokenId + secret (API token) or username + password, not both' });
    } else if (token) {
      if (auth.tokenId === undefined) ctx.addIssue({ code: 'custom', path: ['tokenId'], message: 'missing: the token ID, e.g. "root@pam!mcp"' });
      if (auth.secret === undefined) ctx.addIssue({ code: 'custom', path: ['secret'], message: "missing: the token's secret (a UUID)" });
      if (auth.realm !== undefined || auth.renewAfterMs !== undefined) {
        ctx.addIssue({ code: 'custom', message: 'realm and renewAfterMs apply to username/password login only' });
      }
    } else if (user) {
      if (auth.username === undefined) ctx.addIssue({ code: 'custom', path: ['username'], message: 'missing: e.g. "root" or "admin@pve"' });
      if (auth.password === undefined) ctx.addIssue({ code: 'custom', path: ['password'], message: 'missing: the password' });
      if (auth.username?.includes('@') && auth.realm !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['realm'], message: 'username already names a realm: drop "realm" or the "@realm" part' });
      }
    } else {
      ctx.addIssue({ code: 'custom', message: 'missing: give tokenId + secret (API token, recommended) or username + password' });
    }
  });

const tlsSchema = z
  .strictObject({
    fingerprint: z
      .string()
      .refine((v) => parseFingerprint(v) !== undefined, {
        error: 'not a SHA-256 fingerprint: copy it from the node (Certificates view), 32 hex bytes like AB:CD:…:EF',
      })
      .optional(),
    caFile: z.string().min(1).optional(),
    insecure: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .refine((tls) => !(tls.insecure && tls.fingerprint), {
    error: 'choose one: "fingerprint" (verify by pin) or "insecure" (no verification)',
  });

const classTokenSchema = z.strictObject({
  tokenId: z.string().regex(TOKEN_ID_PATTERN, { error: 'expected user@realm!tokenname, e.g. "mcp@pve!read"' }),
  secret: secretRef,
});

const clusterSchema = z.strictObject({
  url: z.string().regex(/^https:\/\/[^\s/]+/, { error: 'expected https://<host>:8006' }),
  auth: authSchema,
  tokens: z.strictObject(Object.fromEntries(TOKEN_CLASSES.map((c) => [c, classTokenSchema.optional()])) as Record<TokenClass, z.ZodOptional<typeof classTokenSchema>>).optional(),
  tls: tlsSchema.optional(),
  policy: z.string().min(1).optional(),
  schema: z.string().min(1).optional(),
  timeouts: z.strictObject({ connectMs: positiveMs, headersMs: positiveMs, bodyMs: positiveMs, bodyTotalMs: positiveMs, requestMs: positiveMs }).partial().optional(),
  retry: z
    .strictObject({
      attempts: z.number().int().min(1).max(10, { error: 'at most 10 tries' }),
      baseDelayMs: positiveMs,
      maxDelayMs: positiveMs,
    })
    .partial()
    .optional(),
  maxConcurrency: z.number().int().min(1).max(64, { error: 'between 1 and 64' }).optional(),
  maxResponseBytes: z
    .number()
    .int()
    .min(MIN_MAX_RESPONSE_BYTES, { error: `at least ${MIN_MAX_RESPONSE_BYTES} bytes (16 MiB, what the sandbox can hand a script)` })
    .optional(),
});

/** The cluster part of a config file, for the JSON Schema (`configJsonSchema` in app/config/json-schema.ts). */
export const CLUSTER_FILE_SHAPE = {
  $schema: z.string().optional(),
  defaultCluster: z.string().optional(),
  cacheDir: z.string().min(1).optional(),
  clusters: z.record(z.string().regex(CLUSTER_NAME), clusterSchema),
};

const fileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    defaultCluster: z.string().optional(),
    cacheDir: z.string().min(1).optional(),
    clusters: z
      .record(z.string().regex(CLUSTER_NAME, { error: 'cluster names use letters, digits, "_", "." and "-"' }), clusterSchema)
      .refine((c) => Object.keys(c).length > 0, { error: 'add at least one cluster, e.g. { "pve": { "url": …, "auth": … } }' }),
  })
  .superRefine((cfg, ctx) => {
    if (cfg.defaultCluster !== undefined && !(cfg.defaultCluster in cfg.clusters)) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaultCluster'],
        message: `no cluster named '${cfg.defaultCluster}': use one of ${Object.keys(cfg.clusters).join(', ')}`,
      });
    }
  });

type RawFile = z.infer<typeof fileSchema>;
type RawCluster = z.infer<typeof clusterSchema>;

export async function loadConfig(options: LoadConfigOptions = {}): Promise<PveConfig> {
  const env = options.env ?? process.env;
  if (options.file) return loadFile(options.file, env, options.degraded);
  return loadEnv(env, options.degraded);
}

/**
 * The clients of one cluster's per-class tokens (`tokens`), keyed by class. Calls of a class
 * without one use the cluster's main client. Close them with `client.close()`.
 */
export function createClassClients(cluster: ClusterConfig, options: { logger?: PveLogger } = {}): Partial<Record<TokenClass, PveClient>> {
  const out: Partial<Record<TokenClass, PveClient>> = {};
  for (const cls of TOKEN_CLASSES) {
    const auth = cluster.tokens?.[cls];
    if (!auth) continue;
    out[cls] = new PveClient({
      name: `${cluster.name} (${cls} token)`,
      url: cluster.url,
      auth,
      tls: cluster.tls,
      timeouts: cluster.timeouts,
      retry: cluster.retry,
      maxConcurrency: cluster.maxConcurrency,
      maxResponseBytes: cluster.maxResponseBytes,
      logger: options.logger,
    });
  }
  return out;
}

/** One `PveClient` per configured cluster, keyed by name. Close them with `client.close()`. */
export function createClients(config: PveConfig, options: { logger?: PveLogger } = {}): Map<string, PveClient> {
  const clients = new Map<string, PveClient>();
  try {
    for (const cluster of config.clusters) {
      clients.set(
        cluster.name,
        new PveClient({
          name: cluster.name,
          url: cluster.url,
          auth: cluster.auth,
          tls: cluster.tls,
          timeouts: cluster.timeouts,
          retry: cluster.retry,
          maxConcurrency: cluster.maxConcurrency,
          maxResponseBytes: cluster.maxResponseBytes,
          logger: options.logger,
        }),
      );
    }
  } catch (err) {
    for (const client of clients.values()) void client.close();
    throw err;
  }
  return clients;
}

async function loadFile(file: string, env: Record<string, string | undefined>, degraded?: boolean): Promise<PveConfig> {
  const source = `file:${file}`;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new PveConfigError([{ key: '(file)', message: `cannot read ${file} (${code}): check the path and permissions` }]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new PveConfigError([{ key: '(file)', message: `not valid JSON: ${(err as Error).message}` }], file);
  }
  return parseConfigObject(json, { source, env, baseDir: dirname(resolve(file)), ...(degraded ? { degraded } : {}) });
}

/** The config file a config's `source` names (`file:<path>`), or undefined for the environment and the demo. */
export function configFileOf(source: string): string | undefined {
  return source.startsWith('file:') ? source.slice(5) : undefined;
}

/**
 * Validate an already-parsed config object (the product's config file carries more sections and
 * hands only the cluster part here). Relative paths resolve against `baseDir`.
 */
export async function parseConfigObject(json: unknown, options: { source: string; env?: Record<string, string | undefined>; baseDir: string; degraded?: boolean }): Promise<PveConfig> {
  const parsed = fileSchema.safeParse(json);
  const where = configFileOf(options.source) ?? options.source;
  if (!parsed.success) throw new PveConfigError(zodIssues(parsed.error), where);
  return build(parsed.data, options.source, options.env ?? process.env, options.baseDir, (key) => key, options.degraded);
}

/** Maps config keys back to the env variable that set them, so env errors name the variable. */
const ENV_KEYS: Record<string, string> = {
  'clusters.default.url': 'PVE_URL',
  'clusters.default.auth.tokenId': 'PVE_TOKEN_ID',
  'clusters.default.auth.secret': 'PVE_TOKEN_SECRET',
  'clusters.default.auth.username': 'PVE_USERNAME',
  'clusters.default.auth.password': 'PVE_PASSWORD',
  'clusters.default.auth.realm': 'PVE_REALM',
  'clusters.default.auth': 'PVE_TOKEN_ID/PVE_TOKEN_SECRET or PVE_USERNAME/PVE_PASSWORD',
  'clusters.default.tls.fingerprint': 'PVE_FINGERPRINT',
  'clusters.default.tls.caFile': 'PVE_CA_FILE',
  'clusters.default.tls': 'PVE_FINGERPRINT/PVE_INSECURE',
  'clusters.default.policy': 'PVE_POLICY',
  'clusters.default.schema': 'PVE_SCHEMA',
};

async function loadEnv(env: Record<string, string | undefined>, degraded?: boolean): Promise<PveConfig> {
  const get = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const url = get('PVE_URL');
  if (!url) {
    throw new PveConfigError([
      {
        key: 'PVE_URL',
        message: 'not set: export PVE_URL=https://<host>:8006 with PVE_TOKEN_ID and PVE_TOKEN_SECRET ' + '(or PVE_USERNAME and PVE_PASSWORD), or pass a config file',
      },
    ]);
  }
  const insecure = parseBool(get('PVE_INSECURE'));
  if (insecure === 'invalid') {
    throw new PveConfigError([{ key: 'PVE_INSECURE', message: 'use 1/0, true/false, yes/no' }]);
  }
  const tokenId = get('PVE_TOKEN_ID');
  const tokenSecret = get('PVE_TOKEN_SECRET');
  const username = get('PVE_USERNAME');
  const password = get('PVE_PASSWORD');
  const raw = {
    url,
    auth: dropUndefined({
      tokenId,
      // Secrets stay env references so they are read (and reported) like file-configured ones.
      secret: tokenSecret ? { env: 'PVE_TOKEN_SECRET' } : undefined,
      username,
      password: password ? { env: 'PVE_PASSWORD' } : undefined,
      realm: get('PVE_REALM'),
    }),
    tls: dropUndefined({ fingerprint: get('PVE_FINGERPRINT'), caFile: get('PVE_CA_FILE'), insecure }),
    policy: get('PVE_POLICY'),
    schema: get('PVE_SCHEMA'),
  };
  const parsed = fileSchema.safeParse({ clusters: { default: dropUndefined(raw) } });
  const toEnv = (key: string): string => ENV_KEYS[key] ?? key;
  if (!parsed.success) {
    throw new PveConfigError(
      zodIssues(parsed.error).map((i) => ({ ...i, key: toEnv(i.key) })),
      'environment variables',
    );
  }
  return build(parsed.data, 'env', env, process.cwd(), toEnv, degraded);
}

async function build(raw: RawFile, source: string, env: Record<string, string | undefined>, baseDir: string, keyName: (key: string) => string, degraded = false): Promise<PveConfig> {
  const issues: ConfigIssue[] = [];
  const clusters: ClusterConfig[] = [];
  const where = source === 'env' ? 'environment variables' : source.slice(5);
  for (const [name, c] of Object.entries(raw.clusters)) {
    const built = await buildCluster(name, c, env, baseDir, keyName);
    if (built.issues.length === 0 || !degraded) {
      issues.push(...built.issues);
      clusters.push(built.cluster);
      continue;
    }
    // Degraded: this cluster waits for its secrets; the others start.
    clusters.push({
      ...built.cluster,
      unavailable: {
        issues: built.issues,
        async resolve() {
          const again = await buildCluster(name, c, env, baseDir, keyName);
          if (again.issues.length > 0) throw new PveConfigError(again.issues, where);
          return again.cluster;
        },
      },
    });
  }
  if (issues.length > 0) throw new PveConfigError(issues, where);
  const first = clusters[0]!.name;
  return {
    clusters,
    defaultCluster: raw.defaultCluster ?? first,
    ...optional('cacheDir', raw.cacheDir ? resolvePath(baseDir, raw.cacheDir) : undefined),
    source,
  };
}

/** One cluster's configuration with its secrets read; problems with them are returned, not thrown. */
async function buildCluster(
  name: string,
  c: RawCluster,
  env: Record<string, string | undefined>,
  baseDir: string,
  keyName: (key: string) => string,
): Promise<{ cluster: ClusterConfig; issues: ConfigIssue[] }> {
  const issues: ConfigIssue[] = [];
  const prefix = `clusters.${name}`;
  const secret = async (ref: SecretRef, key: string): Promise<Secret> => {
    const result = await resolveSecret(ref, env, baseDir);
    if (typeof result === 'string') {
      issues.push({ key: keyName(`${prefix}.${key}`), message: result });
      return new Secret('');
    }
    return result;
  };
  // A token secret travels in the Authorization header: a character it cannot carry is the
  // config's mistake (often a pasted placeholder), not a connection failure.
  const tokenSecret = async (ref: SecretRef, key: string): Promise<Secret> => {
    const value = await secret(ref, key);
    const problem = headerProblem(value.reveal());
    if (problem) issues.push({ key: keyName(`${prefix}.${key}`), message: problem });
    return value;
  };
  const cluster: ClusterConfig = {
    name,
    url: c.url,
    auth: c.auth.tokenId
      ? { kind: 'token', tokenId: c.auth.tokenId, secret: await tokenSecret(c.auth.secret!, 'auth.secret') }
      : {
          kind: 'ticket',
          username: c.auth.username!,
          password: await secret(c.auth.password!, 'auth.password'),
          ...(c.auth.realm ? { realm: c.auth.realm } : {}),
          ...(c.auth.renewAfterMs ? { renewAfterMs: c.auth.renewAfterMs } : {}),
        },
    ...(c.tokens ? { tokens: await classTokens(c.tokens, (ref, cls) => tokenSecret(ref, `tokens.${cls}.secret`)) } : {}),
    tls: tlsOptions(c, baseDir),
    ...optional('policy', c.policy),
    ...optional('schema', c.schema && !/^https?:\/\//.test(c.schema) ? resolvePath(baseDir, c.schema) : c.schema),
    ...optional('timeouts', c.timeouts),
    ...optional('retry', c.retry),
    ...optional('maxConcurrency', c.maxConcurrency),
    ...optional('maxResponseBytes', c.maxResponseBytes),
  };
  return { cluster, issues };
}

async function classTokens(raw: NonNullable<RawCluster['tokens']>, secret: (ref: SecretRef, cls: TokenClass) => Promise<Secret>): Promise<Partial<Record<TokenClass, TokenAuthOptions>>> {
  const out: Partial<Record<TokenClass, TokenAuthOptions>> = {};
  for (const cls of TOKEN_CLASSES) {
    const t = raw[cls];
    if (t) out[cls] = { kind: 'token', tokenId: t.tokenId, secret: await secret(t.secret, cls) };
  }
  return out;
}

function tlsOptions(c: RawCluster, baseDir: string): TlsOptions {
  const tls: TlsOptions = {};
  if (c.tls?.fingerprint) tls.fingerprint = parseFingerprint(c.tls.fingerprint)!;
  if (c.tls?.caFile) tls.caFile = resolvePath(baseDir, c.tls.caFile);
  if (c.tls?.insecure) tls.insecure = true;
  return tls;
}

/**
 * Why `value` cannot go into an HTTP header (the first character outside visible ASCII, named by
 * code point and position, never the secret itself); undefined when it can. An empty value is
 * reported where it was read.
 */
export function headerProblem(value: string): string | undefined {
  const at = [...value].findIndex((ch) => !/^[\x21-\x7e]$/.test(ch));
  if (value === '' || at < 0) return undefined;
  const ch = [...value][at] as string;
  const code = `U+${(ch.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
  return `the token secret has a character an HTTP header cannot carry (${code} at character ${at + 1}); a PVE token secret is a UUID such as 0a1b2c3d-1111-2222-3333-444455556666: copy it exactly as PVE showed it when the token was created (a placeholder or a stray space or line break lands here)`;
}

/** A Secret, or the problem as a message. */
async function resolveSecret(ref: SecretRef, env: Record<string, string | undefined>, baseDir: string): Promise<Secret | string> {
  if (typeof ref === 'string') return new Secret(ref);
  if ('env' in ref) {
    const value = env[ref.env];
    if (value === undefined || value === '') {
      return `environment variable ${ref.env} is not set: export it, or give the secret inline or as { "file": … }`;
    }
    return new Secret(value);
  }
  const path = resolvePath(baseDir, ref.file);
  try {
    const value = (await readFile(path, 'utf8')).replace(/\r?\n$/, '');
    if (value === '') return `${path} is empty: put the secret in it`;
    return new Secret(value);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    return `cannot read ${path} (${code}): check the path and that this user may read it`;
  }
}

function zodIssues(error: z.ZodError): ConfigIssue[] {
  return error.issues.map((issue) => {
    const key = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return { key, message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}: remove or fix the spelling` };
    }
    return { key, message: issue.message };
  });
}

function parseBool(value: string | undefined): boolean | undefined | 'invalid' {
  if (value === undefined) return undefined;
  const v = value.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return 'invalid';
}

function resolvePath(baseDir: string, path: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

function dropUndefined<T extends Record<string, unknown>>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
