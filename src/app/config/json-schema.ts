/**
 * The config file's JSON Schema, generated from the same zod schemas that validate it, with a
 * description of each top-level key for editors.
 */
import { z } from 'zod';
import { CLUSTER_FILE_SHAPE } from '../../client/config.js';
import { PolicyConfigSchema } from '../../policy/policy-config.js';
import { productSchema } from './app-config.js';

/** Descriptions shown by editors; the zod schemas carry the rules, these say what each key is for. */
const KEY_DESCRIPTIONS: Record<string, string> = {
  $schema: 'Path or URL of this JSON Schema (pve-code-mcp config schema prints it; the package ships it as schema/config.schema.json).',
  defaultCluster: 'The cluster scripts use when they do not pick one (default: the first).',
  cacheDir: 'Schema cache directory (default ~/.cache/pve-code-mcp).',
  clusters: 'Proxmox VE clusters by name: url, auth (tokenId + secret, or username + password), tls (fingerprint or caFile), policy.',
  policies: 'Named policies: preset, allow/deny/privileged operation patterns (METHOD /path/glob), target rules, scopes, approval, budget. Checked against each cluster by pve-code-mcp config check.',
  audit:
    'The hash-chained audit log: file, hmacKey (default: a key generated on first use), rotation and retention, durability (fsync or os: how durable the intent of a change is before it is sent), witness.',
  stateDir: 'The old name of state.dir.',
  state:
    'Where plans, approvals, the audit, the intents and the kill switch live: dir (the state directory, default ~/.local/state/pve-code-mcp) and, for several serve --http replicas, postgres (url as a string, { env } or { file }; poolMax, connectTimeoutMs, statementTimeoutMs, recoverEveryMs). docs/deployment.md.',
  sandbox: "Sandbox workers, worker confinement, limits, the type-check process, and callDeadlineMs: a tool call's whole deadline (queue, compile, preflight and run; default 55000).",
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
