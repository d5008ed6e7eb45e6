/**
 * The `state` section of the config: where plans, approvals, the audit and the intents live — the
 * state directory (the embedded file store, the default) and, for several `serve --http` replicas,
 * a shared PostgreSQL database. `stateDir` is kept as the old name of `state.dir`.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { defaultHaltFile } from '../../safety/halt.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_POOL_MAX, DEFAULT_STATEMENT_TIMEOUT_MS, type PostgresSettings } from '../../state/postgres/settings.js';
import { absolute, type ConfigIssues } from './paths.js';

/** How often a server on PostgreSQL looks for intents of replicas that died (src/app/intent-recovery.ts). */
export const DEFAULT_RECOVER_EVERY_MS = 30_000;

const postgresSchema = z.strictObject({
  /** `postgres://user:password@host:5432/database`, or where to read it: `{ "env": "NAME" }`, `{ "file": "path" }`. */
  url: z.union([z.string().min(1), z.strictObject({ env: z.string().min(1) }), z.strictObject({ file: z.string().min(1) })]),
  /** Connections this process keeps open (besides one for its audit writer's lock). */
  poolMax: z.number().int().min(1).max(64).default(DEFAULT_POOL_MAX),
  /** How long to wait for a connection; past it the operation fails closed. */
  connectTimeoutMs: z.number().int().min(100).max(120_000).default(DEFAULT_CONNECT_TIMEOUT_MS),
  /** How long one statement may take; past it the operation fails closed. */
  statementTimeoutMs: z.number().int().min(100).max(120_000).default(DEFAULT_STATEMENT_TIMEOUT_MS),
  /** How often a running server settles the intents of replicas that died (0: only at start). */
  recoverEveryMs: z.number().int().min(0).max(86_400_000).default(DEFAULT_RECOVER_EVERY_MS),
});

export const stateSchema = z
  .strictObject({
    /** The state directory: plans and approvals, and the audit log unless `audit.file` says otherwise. */
    dir: z.string().min(1).optional(),
    postgres: postgresSchema.optional(),
  })
  .optional();

export interface StateSettings {
  dir: string;
  /** The shared store: plans, approvals, the audit, the intents and the kill switch live there. */
  postgres?: PostgresSettings & { recoverEveryMs: number };
}

/** The state directory as configured (`state.dir`, or its old name `stateDir`), relative to the config file. */
export function configuredStateDir(raw: { state?: z.output<typeof stateSchema>; stateDir?: string | undefined }, baseDir: string, issues: ConfigIssues): string | undefined {
  const dir = raw.state?.dir;
  if (dir !== undefined && raw.stateDir !== undefined && absolute(baseDir, dir) !== absolute(baseDir, raw.stateDir)) {
    issues.push({ key: 'stateDir', message: 'stateDir is the old name of state.dir and names another directory: keep only state.dir' });
  }
  const chosen = dir ?? raw.stateDir;
  return chosen === undefined ? undefined : absolute(baseDir, chosen);
}

/** The PostgreSQL settings with the URL read from where the config points. */
export function resolvePostgres(raw: z.output<typeof postgresSchema> | undefined, ctx: { env: Record<string, string | undefined>; baseDir: string }, issues: ConfigIssues): StateSettings['postgres'] {
  if (!raw) return undefined;
  const key = 'state.postgres.url';
  let url: string | undefined;
  if (typeof raw.url === 'string') url = raw.url;
  else if ('env' in raw.url) {
    url = ctx.env[raw.url.env]?.trim();
    if (!url) issues.push({ key, message: `environment variable ${raw.url.env} is not set: export it or remove the key` });
  } else {
    const file = absolute(ctx.baseDir, raw.url.file);
    try {
      url = readFileSync(file, 'utf8').trim();
    } catch (err) {
      issues.push({ key, message: `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` });
    }
  }
  if (url === undefined || url === '') return undefined;
  if (!/^postgres(ql)?:\/\/[^/]/.test(url)) {
    issues.push({ key, message: 'expected a URL like postgres://user:password@host:5432/database' });
    return undefined;
  }
  return { url, poolMax: raw.poolMax, connectTimeoutMs: raw.connectTimeoutMs, statementTimeoutMs: raw.statementTimeoutMs, recoverEveryMs: raw.recoverEveryMs };
}

/** The password in a PostgreSQL URL, to be scrubbed from all output like every other secret. */
export function postgresPassword(settings: StateSettings['postgres']): string | undefined {
  if (!settings) return undefined;
  try {
    const password = decodeURIComponent(new URL(settings.url).password);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}

/** The kill switch (`halt` section): `file` overrides `PVE_HALT_FILE` and the default (src/safety/halt.ts). */
export const haltSchema = z.strictObject({ file: z.string().min(1).optional() }).prefault({});

export function resolveHaltFile(raw: z.output<typeof haltSchema>, env: Record<string, string | undefined>, baseDir: string): string {
  return raw.file ? absolute(baseDir, raw.file) : defaultHaltFile(env);
}

/** `$XDG_STATE_HOME/pve-code-mcp`, else `~/.local/state/pve-code-mcp`. */
export function defaultStateDir(env: Record<string, string | undefined> = process.env): string {
  const xdg = env.XDG_STATE_HOME?.trim();
  return join(xdg ? xdg : join(homedir(), '.local', 'state'), 'pve-code-mcp');
}
