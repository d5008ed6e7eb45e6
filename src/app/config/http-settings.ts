/**
 * The `http` section of the config (`serve --http`): listener, allowed hosts and origins, TLS, the
 * static token or OAuth, the console's OpenID Connect client, and the policy of each principal.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Policy } from '../../policy/policy.js';
import { absolute } from './paths.js';

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

export const httpSchema = z
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
        algorithms: z
          .array(z.enum(DEFAULT_ALGORITHMS))
          .min(1)
          .default([...DEFAULT_ALGORITHMS]),
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
        sessionMinutes: z
          .number()
          .int()
          .min(1)
          .max(24 * 60)
          .default(60),
      })
      .prefault({}),
  })
  .refine((h) => !(h.token !== undefined && h.oauth !== undefined), { message: 'give either token (one user) or oauth (an identity provider), not both' })
  .prefault({});

/** The `http` section: paths against the config's directory, the token read, rule policies resolved. */
export function resolveHttp(
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
