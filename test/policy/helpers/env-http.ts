/**
 * The policy suites over Streamable HTTP with OAuth principals: the same simulator, config and
 * audit as the stdio env (`startPolicyState`), a real OpenID provider (oidc-provider) on
 * 127.0.0.1, and ONE built server (`serve --http` with `http.oauth`) for the whole file. Each
 * user gets its own MCP session with its own client-credentials token, so a run is decided by
 * the policy `http.principals` resolves for the principal making the call — not by a cluster
 * per policy.
 */
import type { RunAnswer } from '../../e2e/helpers/mcp.js';
import { spawnHttpServe } from '../../e2e/helpers/mcp.js';
import { connectOAuth, type OAuthConnected } from '../../e2e/helpers/oauth.js';
import { startIdp, type IdpClient, type RunningIdp } from '../../http/helpers/oidc.js';
import { runScript, startPolicyState, type PolicyState, type PolicyStateOptions, type RunOptions } from './env.js';

export interface PrincipalRule {
  user?: string;
  group?: string;
  clusters?: string[];
  policy: string;
}

export interface PolicyHttpEnvOptions extends PolicyStateOptions {
  policies: Record<string, Record<string, unknown>>;
  /** Cluster name → the policy configured on it (what `http.unmatched` starts from). */
  clusters: Record<string, string>;
  defaultCluster: string;
  /** `http.principals`, first match wins. */
  principals: PrincipalRule[];
  /** `http.unmatched`; absent: the server's default. */
  unmatched?: string;
  /** The identity provider's clients: one per user. */
  users: IdpClient[];
}

export interface PolicyHttpEnv extends PolicyState {
  configFile: string;
  url: string;
  idp: RunningIdp;
  /** The server's stderr so far. */
  stderr(): string;
  /** The user's MCP session, opened on first use and kept for the file; `scope` asks its token for fewer scopes (a session of its own). */
  session(user: string, scope?: string): Promise<OAuthConnected>;
  run(user: string, code: string, options?: RunOptions & { scope?: string }): Promise<RunAnswer>;
  /** An access token of the user for this server, for the HTTP endpoints beside MCP (/approvals). */
  token(user: string): Promise<string>;
}

export async function startPolicyHttpEnv(options: PolicyHttpEnvOptions): Promise<PolicyHttpEnv> {
  const state = await startPolicyState(options);
  const idp = await startIdp(options.users);
  const clusters = Object.fromEntries(Object.entries(options.clusters).map(([name, policy]) => [name, state.cluster(policy)]));
  const configFile = state.writeConfig({
    clusters,
    defaultCluster: options.defaultCluster,
    policies: options.policies,
    http: {
      oauth: { issuer: idp.issuer, clockToleranceSec: 0 },
      principals: options.principals,
      ...(options.unmatched ? { unmatched: options.unmatched } : {}),
    },
  });
  let server: Awaited<ReturnType<typeof spawnHttpServe>>;
  try {
    server = await spawnHttpServe({ configFile, env: state.env }, []);
  } catch (err) {
    await idp.close();
    await state.close();
    throw err;
  }
  const sessions = new Map<string, Promise<OAuthConnected>>();
  const userOf = (id: string): IdpClient => {
    const user = options.users.find((u) => u.id === id);
    if (!user) throw new Error(`no user '${id}' among the identity provider's clients`);
    return user;
  };
  const session = (user: string, scope?: string): Promise<OAuthConnected> => {
    const key = `${user} ${scope ?? ''}`;
    let s = sessions.get(key);
    if (!s) sessions.set(key, (s = connectOAuth(server.url, idp.issuer, userOf(user), { name: `${user}-agent`, ...(scope ? { scope } : {}) })));
    return s;
  };
  return {
    ...state,
    configFile,
    url: server.url,
    idp,
    stderr: () => server.stderr(),
    session,
    async run(user, code, { scope, ...opts } = {}) {
      return runScript(await session(user, scope), code, opts);
    },
    token: (user) => idp.token(user, server.url),
    async close() {
      for (const s of sessions.values()) await (await s.catch(() => undefined))?.close().catch(() => undefined);
      await server.close();
      await idp.close();
      await state.close();
    },
  };
}
