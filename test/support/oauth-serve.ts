/**
 * The setup the OAuth end-to-end tests share: the simulated cluster's environment, a test OpenID
 * provider (test/http/helpers/oidc.ts) with the test's clients, and the built `serve --http`
 * under a config the test derives from the environment's; `close` ends the agents the test
 * connected, then the server, the provider and the environment.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startE2eEnv, type E2eEnv } from '../e2e/helpers/harness.js';
import { spawnHttpServe } from '../e2e/helpers/mcp.js';
import { startIdp, type IdpClient } from '../http/helpers/oidc.js';

export type Idp = Awaited<ReturnType<typeof startIdp>>;
export type HttpServe = Awaited<ReturnType<typeof spawnHttpServe>>;

export interface OAuthServe<A extends { close(): Promise<void> }> {
  env: E2eEnv;
  idp: Idp;
  server: HttpServe;
  url: string;
  /** Connected agents to close with the rest (the test adds them as it connects them). */
  agents: A[];
  close(): Promise<void>;
}

export interface OAuthServeOptions {
  clients: IdpClient[];
  sandbox: Record<string, unknown>;
  /** The server's config, from the environment's own (parsed) and the provider's issuer. */
  config(base: Record<string, unknown>, env: E2eEnv, idp: Idp): Record<string, unknown>;
  /** Extra environment variables of the server process. */
  serverEnv?: Record<string, string>;
}

export async function startOAuthServe<A extends { close(): Promise<void> }>(options: OAuthServeOptions): Promise<OAuthServe<A>> {
  const env = await startE2eEnv({ sandbox: options.sandbox });
  const idp = await startIdp(options.clients);
  const base = JSON.parse(readFileSync(env.configFile, 'utf8')) as Record<string, unknown>;
  const file = join(env.dir, 'oauth-serve.json');
  writeFileSync(file, JSON.stringify(options.config(base, env, idp), null, 2), { mode: 0o600 });
  const server = await spawnHttpServe({ configFile: file, env: { ...env.env, ...options.serverEnv } }, []);
  const agents: A[] = [];
  return {
    env,
    idp,
    server,
    url: server.url,
    agents,
    async close() {
      for (const a of agents) await a.close().catch(() => undefined);
      await server.close();
      await idp.close();
      await env.close();
    },
  };
}
