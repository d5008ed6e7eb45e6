/**
 * The API schema of the connected cluster: `/pve-docs/api-viewer/apidoc.js` (served without auth)
 * plus `/version`, so the SDK types match what the cluster really offers. Each fetched schema is
 * cached under the user's cache directory, keyed by PVE version and content hash, and the last one
 * a cluster served is used when the cluster cannot be reached. A configured `schema` (file or URL)
 * replaces all of this.
 *
 * Cache-first (`cacheFirst`, what `serve` asks for): when the cache holds the schema this cluster
 * served last, that one is the model at once, and `checkCluster` fetches the cluster's copy in the
 * background (the 4 MB apidoc.js of PVE 9.1 and its parse are then off the path to the first
 * answer); a copy that differs replaces it. Without a cached schema the start fetches as before.
 *
 * Cache layout (`<cacheDir>` = `$XDG_CACHE_HOME/pve-code-mcp` or `~/.cache/pve-code-mcp`):
 *   schemas/apidoc-<version>-<sha256 prefix>.js   the schema text, shared by clusters
 *   clusters/<name>-<url hash>.json               which schema that cluster served last
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { loadSchemaFromFile, loadSchemaFromString, loadSchemaFromUrl } from '../schema/loader.js';
import type { ApiModel } from '../schema/model.js';
import type { PveClient, PveVersion } from './client.js';
import { isPveError } from './error-codes.js';
import { PveSchemaUnavailableError } from './errors.js';
import { type PveLogger, stderrLogger } from './logger.js';
import { hasRetryableStatus } from './retry.js';

export const APIDOC_PATH = '/pve-docs/api-viewer/apidoc.js';

export interface LoadClusterSchemaOptions {
  /** Override: apidoc file path or http(s) URL. */
  schema?: string;
  /** Cache directory (default: see `defaultCacheDir`). */
  cacheDir?: string;
  /** For `defaultCacheDir` (default `process.env`). */
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** Per request to the cluster (default 60 s). */
  timeoutMs?: number;
  logger?: PveLogger;
  /** Answer from this cluster's cached schema when there is one; `checkCluster` then compares it with the cluster's. */
  cacheFirst?: boolean;
}

export interface LoadedSchema {
  /** A schema read from the cache is parsed on first access, so a spread (`{ ...loaded }`) would parse it: copy fields by name. */
  readonly model: ApiModel;
  /** Where the model came from this time. */
  origin: 'override' | 'cluster' | 'cache';
  /** The cluster's version (live, or as recorded in the cache); absent for overrides. */
  version?: PveVersion;
  /** SHA-256 of the schema text (cluster and cache origins). */
  contentHash?: string;
  /** The cache file written or read. */
  cachePath?: string;
  /** Why the cache was used instead of the cluster. */
  fallbackReason?: string;
  /**
   * A cache-first load: fetch the cluster's schema now and compare it (content hash and version)
   * with this one. Resolves to the cluster's schema — the same `model` object when nothing
   * differs, a new model (and a new cache entry) when something does; rejects as a fetch does
   * (unreachable, refused, TLS pin), and then this one stays in use.
   */
  checkCluster?: (signal?: AbortSignal) => Promise<LoadedSchema>;
}

/** `$XDG_CACHE_HOME/pve-code-mcp`, else `~/.cache/pve-code-mcp`. */
export function defaultCacheDir(env: Record<string, string | undefined> = process.env): string {
  const xdg = env.XDG_CACHE_HOME?.trim();
  return join(xdg ? xdg : join(homedir(), '.cache'), 'pve-code-mcp');
}

const cacheEntrySchema = z.object({
  url: z.string(),
  file: z.string(),
  contentHash: z.string().regex(/^[0-9a-f]{64}$/),
  version: z.looseObject({ version: z.string() }),
  fetchedAt: z.string(),
});

type CacheEntry = z.infer<typeof cacheEntrySchema>;

export async function loadClusterSchema(client: PveClient, options: LoadClusterSchemaOptions = {}): Promise<LoadedSchema> {
  if (options.schema) return { model: await loadOverride(client, options.schema, options), origin: 'override' };

  const cacheDir = options.cacheDir ?? defaultCacheDir(options.env);
  if (options.cacheFirst) {
    const cached = await readCached(client, cacheDir);
    if (cached) {
      cached.checkCluster = (signal) => fetchClusterSchema(client, cacheDir, { ...options, ...(signal ? { signal } : {}) }, cached);
      return cached;
    }
  }
  return fetchClusterSchema(client, cacheDir, options);
}

/** The cluster's schema, fetched now (the cache only when the cluster is silent); `known`: reuse its model when the text is the same. */
async function fetchClusterSchema(client: PveClient, cacheDir: string, options: LoadClusterSchemaOptions, known?: LoadedSchema): Promise<LoadedSchema> {
  const logger = options.logger ?? stderrLogger;
  const requestOpts = { signal: options.signal, timeoutMs: options.timeoutMs ?? 60_000 };
  let version: PveVersion;
  let text: string;
  try {
    [version, text] = await Promise.all([client.version(requestOpts), client.getStaticFile(APIDOC_PATH, requestOpts)]);
  } catch (err) {
    if (!isUnreachable(err) || known) throw err;
    return loadFromCache(client, cacheDir, err);
  }

  const contentHash = sha256(text);
  // The same text is the same model: a version string that moved alone does not rebuild (or build) it.
  const same = known !== undefined && known.contentHash === contentHash;
  const model = same ? undefined : loadSchemaFromString(text, { kind: 'cluster', location: client.baseUrl + APIDOC_PATH });
  let cachePath: string | undefined;
  try {
    cachePath = await writeCache(client, cacheDir, text, contentHash, version, same ? known.cachePath : undefined);
  } catch (err) {
    // A read-only home must not stop the server; it only loses the offline fallback.
    logger.warn(`cannot cache the schema of cluster '${client.name}' in ${cacheDir}: ${(err as Error).message}`);
  }
  const fields = { origin: 'cluster' as const, version, contentHash, ...(cachePath ? { cachePath } : {}) };
  if (model) return { model, ...fields };
  const from = known as LoadedSchema;
  return {
    get model() {
      return from.model;
    },
    ...fields,
  };
}

async function loadOverride(client: PveClient, schema: string, options: LoadClusterSchemaOptions): Promise<ApiModel> {
  if (!/^https?:\/\//i.test(schema)) return loadSchemaFromFile(schema);
  const url = new URL(schema);
  const base = new URL(client.baseUrl);
  // The cluster's own origin goes through the client so TLS pinning/CA settings apply.
  if (base.origin === url.origin) {
    const path = url.pathname.startsWith(base.pathname) ? url.pathname.slice(base.pathname.replace(/\/$/, '').length) : url.pathname;
    const text = await client.getStaticFile(path, { signal: options.signal, timeoutMs: options.timeoutMs });
    return loadSchemaFromString(text, { kind: 'url', location: schema });
  }
  return loadSchemaFromUrl(schema, options.signal ? { signal: options.signal } : {});
}

/** Cluster down or not answering — as opposed to refusing us (auth, TLS pin, permissions). */
function isUnreachable(err: unknown): boolean {
  if (!isPveError(err)) return false;
  switch (err.code) {
    case 'pve-connection':
    case 'pve-outcome-unknown':
    case 'pve-timeout':
      return true;
    default:
      // A proxy or node not answering (502/503/504/595/596) — never a TLS trust failure (the cache
      // must not hide a changed certificate) nor any other: the cache stands in only for silence.
      return hasRetryableStatus(err);
  }
}

async function loadFromCache(client: PveClient, cacheDir: string, cause: unknown): Promise<LoadedSchema> {
  const cached = await readCached(client, cacheDir);
  if (!cached) throw new PveSchemaUnavailableError(client.name, cause);
  cached.fallbackReason = cause instanceof Error ? cause.message : String(cause);
  return cached;
}

/** The schema this cluster served last, verified against its recorded hash; undefined when there is none (or it was altered). */
async function readCached(client: PveClient, cacheDir: string): Promise<LoadedSchema | undefined> {
  const entry = await readCacheEntry(indexPath(client, cacheDir));
  if (!entry) return undefined;
  const cachePath = join(cacheDir, 'schemas', entry.file);
  let text: string;
  try {
    text = await readFile(cachePath, 'utf8');
  } catch {
    return undefined;
  }
  // A truncated or edited cache file must not become the SDK's source of truth.
  if (sha256(text) !== entry.contentHash) return undefined;
  // Parsed on first use (~0.1 s of CPU for PVE 9.1): not on the way to the first tools/list.
  let model: ApiModel | undefined;
  let source: string | undefined = text;
  return {
    get model() {
      if (!model) {
        model = loadSchemaFromString(source as string, { kind: 'cache', location: cachePath });
        source = undefined;
      }
      return model;
    },
    origin: 'cache',
    version: entry.version as PveVersion,
    contentHash: entry.contentHash,
    cachePath,
  };
}

/**
 * `verified`: the cached file this start read and checked against the same hash. It is not read
 * and hashed again: 4 MB for PVE 9.1, a string and a buffer that glibc kept as ~6 MB of the
 * server's RSS after the background check (docs/benchmarks.md, "session 11"). Should it have
 * been altered since, the next start's check finds that and fetches the cluster's copy.
 */
async function writeCache(client: PveClient, cacheDir: string, text: string, contentHash: string, version: PveVersion, verified?: string): Promise<string> {
  const file = `apidoc-${safeName(version.version)}-${contentHash.slice(0, 16)}.js`;
  const schemaPath = join(cacheDir, 'schemas', file);
  await mkdir(join(cacheDir, 'schemas'), { recursive: true });
  await mkdir(join(cacheDir, 'clusters'), { recursive: true });
  if (verified !== schemaPath) {
    const existing = await readFile(schemaPath, 'utf8').catch(() => undefined);
    if (existing === undefined || sha256(existing) !== contentHash) await writeAtomic(schemaPath, text);
  }
  const entry: CacheEntry = { url: client.baseUrl, file, contentHash, version, fetchedAt: new Date().toISOString() };
  await writeAtomic(indexPath(client, cacheDir), JSON.stringify(entry, null, 2) + '\n');
  return schemaPath;
}

async function readCacheEntry(path: string): Promise<CacheEntry | undefined> {
  try {
    const parsed = cacheEntrySchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function indexPath(client: PveClient, cacheDir: string): string {
  return join(cacheDir, 'clusters', `${safeName(client.name)}-${sha256(client.baseUrl).slice(0, 12)}.json`);
}

/** Write-then-rename so a crash never leaves a half-written cache file behind. */
async function writeAtomic(path: string, content: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, content, { mode: 0o600 });
  await rename(tmp, path);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function safeName(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]/g, '_');
}
