/**
 * `pve-code-mcp serve --http`: the Streamable HTTP listener, its authentication (bearer token or
 * OAuth), and the web console where people can sign in. Its own module so a stdio start, which
 * answers the first tools/list on a desktop client's launch, never loads any of it.
 */
import type { Product, RunPrincipal } from '../../app/product.js';
import { describeUnmatched } from '../../app/config/http-settings.js';
import { ApprovalStore } from '../../safety/approval.js';
import { HttpConfigError } from '../../server/auth/errors.js';
import { auditIdentity } from '../../server/auth/principal.js';
import { principalOf, principalResolver, unmatchedRefusal } from '../../server/auth/run-principal.js';
import { startHttpServer, type HttpServerOptions } from '../../server/http.js';
import { createMcpServer } from '../../server/mcp.js';
import type { ToolCallDrain } from '../../server/drain.js';
import { createWebConsole } from '../../server/console/setup.js';
import { UrlApprovals } from '../../server/console/url-approvals.js';
import { productExplorer } from '../../server/console/explorer.js';
import { EXIT, intOpt, stringOpt, UsageError, type CliIo, type ParsedArgs } from '../args.js';
import type { StopSignals } from '../context.js';

/** What `serveProduct` shares with the HTTP transport: the drain, the signals and the graceful stop. */
export interface Serving {
  calls: ToolCallDrain;
  signals: StopSignals;
  stop(cause: string): Promise<number>;
  /** Once the server answers: starts the kept sandbox workers and what runs beside the start. */
  started(): void;
}

/** Serves over Streamable HTTP until a signal or the listener closing; then the graceful stop. */
export async function serveHttp(product: Product, args: ParsedArgs, io: CliIo, serving: Serving): Promise<number> {
  const { calls, signals, stop } = serving;
  // The web console, with URL-mode approvals, where people can log in to it: OAuth mode with a console client.
  const cfg = product.config;
  const oauth = cfg.http.oauth;
  const plans = product.state.approvals;
  const urls = oauth && cfg.http.console.clientId ? new UrlApprovals((planId) => shownPlan(plans, planId)) : undefined;
  const webConsole =
    urls &&
    createWebConsole({
      stateDir: cfg.stateDir,
      store: plans,
      audit: { file: cfg.audit.file, ...(cfg.audit.hmacKey ? { hmacKey: cfg.audit.hmacKey } : {}), ...(product.state.postgres ? { postgres: product.state.postgres } : {}) },
      appendApproval: (data) => product.audit.append('approval', data),
      sessionMinutes: cfg.http.console.sessionMinutes,
      ...(oauth && cfg.http.console.clientId
        ? {
            oidc: {
              issuer: oauth.issuer,
              clientId: cfg.http.console.clientId,
              ...(cfg.http.console.clientSecret ? { clientSecret: cfg.http.console.clientSecret } : {}),
              scopes: [oauth.scopes.read, oauth.scopes.write, oauth.scopes.approve],
              algorithms: oauth.algorithms,
              clockToleranceSec: oauth.clockToleranceSec,
            },
          }
        : {}),
      ...(urls ? { urls } : {}),
      // The explorer applies the signed-in person's policy, as the MCP endpoint would to its token.
      explorer: productExplorer(product, (user) => (user.principal ? withConsole(resolve(user.principal)) : undefined)),
    });
  const options = {
    ...httpOptions(product, args, io),
    calls,
    // A balancer takes a stopping replica out at once, and one whose shared state does not answer.
    health: () => (calls.isStopping ? { ok: false as const, reason: 'stopping' } : product.state.health()),
    ...(webConsole ? { console: webConsole } : {}),
  };
  // Hints name the console's page of a plan once it has an address.
  const withConsole = (p: RunPrincipal): RunPrincipal => (urls?.available ? { ...p, consolePage: (planId: string) => urls.planUrl(planId) } : p);
  const { principals, unmatched } = product.config.http;
  const resolve = principalResolver(principals, unmatched);
  options.admit = unmatchedRefusal(
    principals,
    unmatched,
    product.config.pve.clusters.map((c) => c.name),
  );
  let http: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    http = await startHttpServer(
      // The session's principal (its views: instructions, hints, policies) and each request's (its runs).
      // The run_script view links a plan's console page only where this server serves the console.
      (opener) =>
        createMcpServer(product, {
          session: withConsole(resolve(opener)),
          ...(urls ? { urls, consoleUrl: () => (urls.available ? new URL('/console', http.url).href : undefined) } : {}),
          principal: (extra) => {
            const p = principalOf(extra.authInfo);
            return p ? withConsole(resolve(p)) : undefined;
          },
        }),
      options,
    );
  } catch (err) {
    if (!(err instanceof HttpConfigError)) throw err;
    io.err(`pve-code-mcp serve: ${err.message}`);
    return EXIT.config;
  }
  const auth =
    http.mode === 'oauth'
      ? `OAuth: access tokens from ${product.config.http.oauth?.issuer ?? '?'} for resource ${http.url}\nProtected-resource metadata: ${http.metadataUrl ?? '?'}`
      : `Authorization: Bearer ${http.token}`;
  if (http.mode === 'oauth') io.err(`pve-code-mcp: principals no http.principals rule matches get ${describeUnmatched(unmatched)}`);
  const consoleLine = urls
    ? `Console: ${new URL('/console/', http.url).href} (sign in with ${oauth?.issuer ?? '?'})`
    : `Console: pve-code-mcp console on this host${oauth ? ' (or set http.console.clientId to serve it here, signed in with the identity provider)' : ''}`;
  io.err(`MCP over Streamable HTTP: ${http.url}\n${auth}\n${consoleLine}\nAccepted Host headers: ${http.allowedHosts.join(', ')}\n(Ctrl-C to stop)`);
  serving.started();
  const cause = await Promise.race([signals.first.then((s) => `${s} received`), http.listenerClosed]);
  // The listener stays open meanwhile: a client that calls now is told the server is stopping.
  const code = await stop(cause);
  await http.close();
  return code;
}

/** A repeatable option, each value also split on commas. */
function listOpt(args: ParsedArgs, name: string): string[] {
  const v = args.values[name];
  const values = Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
  return values
    .flatMap((x) => x.split(','))
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** The HTTP listener's settings: command-line flags over the config's "http" section over PVE_MCP_TOKEN. */
function httpOptions(product: Product, args: ParsedArgs, io: CliIo): HttpServerOptions {
  const cfg = product.config.http;
  const oauth = cfg.oauth;
  const flagToken = stringOpt(args, 'token');
  if (oauth && flagToken) throw new UsageError('--token is the single-user mode; this config has "http": {"oauth": …}, so clients bring access tokens from the identity provider instead');
  const token = flagToken ?? cfg.token ?? process.env.PVE_MCP_TOKEN;
  const host = stringOpt(args, 'host') ?? cfg.host;
  const publicUrl = stringOpt(args, 'public-url') ?? cfg.publicUrl;
  const certFile = stringOpt(args, 'tls-cert');
  const keyFile = stringOpt(args, 'tls-key');
  if ((certFile === undefined) !== (keyFile === undefined)) throw new UsageError('--tls-cert and --tls-key go together: give both files (PEM)');
  const tls = certFile && keyFile ? { certFile, keyFile } : cfg.tls;
  const auditLog = product.audit;
  const options: HttpServerOptions = {
    ...(host ? { host } : {}),
    port: intOpt(args, 'port') ?? cfg.port ?? 8765,
    ...(oauth ? { oauth } : token ? { token } : {}),
    allowedHosts: [...cfg.allowedHosts, ...listOpt(args, 'allowed-host')],
    allowedOrigins: [...cfg.allowedOrigins, ...listOpt(args, 'allowed-origin')],
    ...(publicUrl ? { publicUrl } : {}),
    ...(tls ? { tls } : {}),
    maxSessions: cfg.maxSessions,
    maxSessionsPerPrincipal: cfg.sessionsPerPrincipal,
    ...(oauth ? { approvals: product.state.approvals } : {}),
    onApproved: (e) => {
      auditLog.append('approval', { via: 'http', planId: e.planId, approvedBy: e.approver.id, ...(e.for ? { for: e.for } : {}), expiresAt: e.expiresAt, principal: auditIdentity(e.approver) });
    },
    log: (line) => io.err(line),
  };
  if (host && host !== '127.0.0.1' && host !== 'localhost' && host !== '::1' && !tls) {
    io.err(`pve-code-mcp: warning: serving HTTP without TLS on ${host}: tokens travel in clear text; use --tls-cert/--tls-key or a TLS-terminating reverse proxy`);
  }
  return options;
}

/** Whether the stored plan can be read (a plan the store could not keep, or that was edited, is not shown). */
function shownPlan(store: ApprovalStore, planId: string): boolean {
  try {
    return store.loadPlan(planId) !== undefined;
  } catch {
    return false;
  }
}
