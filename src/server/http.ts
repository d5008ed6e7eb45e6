/**
 * Streamable HTTP transport host: one MCP session per client, each bound to the principal that
 * opened it; authentication by a static bearer token (single user) or OAuth 2.1 access tokens
 * from the operator's identity provider (src/server/auth/oauth.ts, with RFC 9728 metadata);
 * DNS-rebinding protection (Host and Origin against the allowed lists), CORS for allowed
 * origins, optional TLS with certificate reload, bounded request bodies, and the approvals
 * endpoint for operators who are not on the server host. Loopback by default: the server holds
 * Proxmox credentials, so exposing it is an explicit decision (`--host`).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalStore } from '../safety/approval.js';
import { APPROVALS_PATH, handleApprovals } from './auth/approvals-endpoint.js';
import { StaticBearer } from './auth/bearer.js';
import { HttpConfigError } from './auth/errors.js';
import { checkHostEntry, checkOrigin, hostMatcher, isLoopback, isWildcard, machineHosts, primaryAddress, splitHost } from './auth/hosts.js';
import { OAuthResourceServer, type OAuthSettings } from './auth/oauth.js';
import type { AuthFailure, Authenticator, Capability, Principal } from './auth/principal.js';
import { loadTlsPair, watchTls, type TlsFiles } from './auth/tls.js';
import type { ToolCallDrain } from './drain.js';
import { CONSOLE_PATH, type WebConsole } from './console/console.js';
import { answeredCors, header, readJsonBody, refusedHost, sendJsonRpcError } from './http-guards.js';
import { answeredHealth, type Health } from './health.js';

export interface HttpServerOptions {
  host?: string;
  port?: number;
  /** Bearer token clients must send (static-bearer mode); generated when absent (and printed by the CLI). */
  token?: string;
  /** The static bearer's principal id in the audit (default `bearer`). */
  bearerPrincipal?: string;
  /** OAuth resource-server mode instead of the static bearer. */
  oauth?: OAuthSettings;
  /** Extra Host header values to accept (names, `name:port`, addresses), e.g. a DNS name or a reverse proxy's. */
  allowedHosts?: string[];
  /** Browser origins allowed to call the server (CORS), e.g. `http://localhost:6274` for the MCP Inspector. */
  allowedOrigins?: string[];
  /**
   * The URL clients use for the MCP endpoint (a DNS name, a reverse proxy's): printed, its host
   * allowed, and the OAuth resource identifier. Default: built from the listen address.
   */
  publicUrl?: string;
  /** Serve HTTPS with this certificate and key (reloaded when the files change). */
  tls?: TlsFiles;
  /** Enables `/approvals` (OAuth mode): approval by principals with the approve scope. */
  approvals?: ApprovalStore;
  /** Called when a plan was approved over HTTP (for the audit). */
  onApproved?(event: { planId: string; approver: Principal; for?: string; expiresAt: string }): void;
  maxBodyBytes?: number;
  /** Sessions idle longer than this are closed. */
  sessionIdleMs?: number;
  /**
   * Open sessions at most (default 256, about 40 KB each). A new session past the cap closes the
   * longest-idle session of the principal holding the most: clients that go away without DELETE
   * would otherwise hold theirs for the whole idle time, and one that reconnects in a loop would
   * grow the server without bound — at its own expense, not another principal's.
   */
  maxSessions?: number;
  /**
   * Open sessions per principal (default 16). A principal's new session past it closes that
   * principal's own longest-idle session. A session answering a request (a tool call in flight)
   * is never closed to make room: when none can be, the new session is refused with 429.
   */
  maxSessionsPerPrincipal?: number;
  /** Refuses a principal (403 with this reason) before any session: e.g. `http.unmatched: refuse`. */
  admit?(principal: Principal): string | undefined;
  /** Every session's tool calls, for the graceful stop (attached to each session's transport). */
  calls?: ToolCallDrain;
  /** The web console under /console/ (its own login, sessions and CSRF checks). */
  console?: WebConsole;
  /** What `GET /healthz` reports besides stopping (health.ts): e.g. whether the shared state answers. */
  health?: () => Health;
  log?: (line: string) => void;
}

export interface RunningHttpServer {
  url: string;
  /** The static bearer token (empty in OAuth mode). */
  token: string;
  port: number;
  mode: 'bearer' | 'oauth';
  /** The protected-resource metadata URL (OAuth mode). */
  metadataUrl?: string;
  /** Host header values accepted (besides loopback names). */
  allowedHosts: string[];
  sessions(): number;
  /** TLS pairs loaded since start (after changes on disk). */
  tlsReloads(): number;
  /** Resolves when the listener stops without `close` (an error on the listening socket): the server should stop. */
  listenerClosed: Promise<string>;
  /**
   * Stops listening, lets the MCP responses in progress finish (their answers reach the clients;
   * at most `flushMs`, default 2 s), then closes the sessions and every connection.
   */
  close(options?: { flushMs?: number }): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  lastSeen: number;
  /** The principal that opened the session; nobody else may use it. */
  principal: string;
  /** POST responses of this session still open: requests (tool calls) in flight. Never evicted while any is. */
  busy: number;
}

const MCP_PATH = '/mcp';
const METADATA_PATH = '/.well-known/oauth-protected-resource';

export async function startHttpServer(createSession: (principal: Principal) => McpServer, options: HttpServerOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = Math.max(1, options.maxSessions ?? 256);
  const perPrincipal = Math.max(1, options.maxSessionsPerPrincipal ?? 16);
  /** Sessions being opened (initialize in progress), by principal: they count against the caps. */
  const opening = new Map<string, number>();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sessions = new Map<string, Session>();
  const token = options.oauth ? '' : (options.token ?? randomBytes(24).toString('base64url'));
  if (!options.oauth && token.length < 16) throw new HttpConfigError('--token', 'the bearer token must be at least 16 characters (or leave it out to have one generated)');
  const extraHosts = (options.allowedHosts ?? []).map((h, i) => checkHostEntry(h, `http.allowedHosts[${i}]`));
  const origins = new Set((options.allowedOrigins ?? []).map((o, i) => checkOrigin(o, `http.allowedOrigins[${i}]`)));
  const publicUrl = options.publicUrl !== undefined ? checkPublicUrl(options.publicUrl) : undefined;
  if (options.approvals && !options.oauth) log('http: approvals over HTTP need OAuth mode (one principal per person); /approvals is off');

  const tlsPair = options.tls ? loadTlsPair(options.tls) : undefined;
  /** MCP POST responses still open: each carries answers (over SSE until the last one is sent). */
  const answering = new Set<ServerResponse>();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method === 'POST') {
      answering.add(res);
      res.once('close', () => answering.delete(res));
    }
    handle(req, res).catch((err: unknown) => {
      log(`http: request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal server error');
      else res.end();
    });
  };
  const httpServer: Server | HttpsServer = tlsPair ? createHttpsServer({ ...tlsPair }, handler) : createServer(handler);

  // Known after listen (the port may be 0).
  let port = 0;
  let allowedHost: (h: string | undefined) => boolean = () => false;
  let auth: Authenticator = new StaticBearer(token || 'unused-unused-unused', options.bearerPrincipal);

  const allowedOrigin = (origin: string): boolean => {
    if (origins.has(origin)) return true;
    // Same-site pages on an allowed host (e.g. a UI served beside the endpoint).
    try {
      return allowedHost(new URL(origin).host);
    } catch {
      return false;
    }
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (answeredHealth(req, res, url.pathname, () => (closing ? { ok: false, reason: 'stopping' } : (options.health?.() ?? { ok: true })))) return;
    // DNS rebinding: a browser page on evil.example resolving to this server still sends its own Host.
    if (refusedHost(req, res, allowedHost)) return;
    // The console authenticates its own way (session cookie, CSRF token, its own Origin check).
    if (options.console && (url.pathname === CONSOLE_PATH || url.pathname.startsWith(`${CONSOLE_PATH}/`))) return options.console.handle(req, res);
    const origin = header(req, 'origin');
    if (url.pathname === METADATA_PATH || url.pathname.startsWith(`${METADATA_PATH}/`)) {
      // Public by design (RFC 9728): any page may read where to get a token.
      res.setHeader('Access-Control-Allow-Origin', '*');
      if (req.method === 'OPTIONS') return void res.writeHead(204, { 'Access-Control-Allow-Methods': 'GET', 'Access-Control-Allow-Headers': 'mcp-protocol-version' }).end();
      if (!auth.metadata) {
        sendJsonRpcError(res, 404, -32000, 'Not found: this server uses a static bearer token, not OAuth (no protected-resource metadata)');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET');
        sendJsonRpcError(res, 405, -32000, `Method ${req.method ?? ''} not allowed`);
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=300' }).end(JSON.stringify(auth.metadata()));
      return;
    }
    if (answeredCors(req, res, origin, allowedOrigin)) return;
    const isMcp = url.pathname === MCP_PATH;
    const isApprovals = url.pathname === APPROVALS_PATH || url.pathname.startsWith(`${APPROVALS_PATH}/`);
    if (!isMcp && !isApprovals) {
      sendJsonRpcError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    const outcome = await auth.authenticate(header(req, 'authorization'));
    if (!outcome.ok) return refuse(res, outcome);
    const principal = outcome.principal;

    if (isApprovals) {
      if (!options.approvals || auth.kind !== 'oauth') {
        sendJsonRpcError(res, 404, -32000, 'Not found: approvals over HTTP need OAuth mode (http.oauth); approve on the server host with pve-code-mcp approve');
        return;
      }
      if (!principal.capabilities.has('approve')) return refuse(res, insufficient(auth, 'approve', principal));
      const body = req.method === 'POST' ? await readJsonBody(req, 64 * 1024, true) : { ok: true as const, value: undefined };
      if (!body.ok) return sendJsonRpcError(res, body.status, body.code, body.message);
      const onApproved = options.onApproved;
      handleApprovals(
        options.approvals,
        {
          method: req.method ?? 'GET',
          rest: url.pathname.slice(APPROVALS_PATH.length),
          principal,
          body: body.value,
          ...(onApproved ? { onApproved: (e: { planId: string; for?: string; expiresAt: string }) => onApproved({ ...e, approver: principal }) } : {}),
        },
        res,
      );
      return;
    }

    if (!principal.capabilities.has('read')) return refuse(res, insufficient(auth, 'read', principal));
    const refusal = options.admit?.(principal);
    if (refusal !== undefined) return sendJsonRpcError(res, 403, -32001, `Forbidden: ${refusal}`);
    // The SDK hands this to tool handlers as `extra.authInfo`: runs learn who runs them, per request.
    const authInfo: AuthInfo = {
      token: '[redacted]',
      clientId: principal.clientId ?? principal.id,
      scopes: principal.scopes,
      ...(principal.expiresAt !== undefined ? { expiresAt: principal.expiresAt } : {}),
      extra: { principal },
    };
    (req as IncomingMessage & { auth?: AuthInfo }).auth = authInfo;

    const sessionId = header(req, 'mcp-session-id');
    /** A session of another principal is answered as if it did not exist: ids are not confirmed to strangers. */
    const own = (id: string | undefined): Session | undefined => {
      const s = id ? sessions.get(id) : undefined;
      return s && s.principal === principal.id ? s : undefined;
    };
    if (req.method === 'POST') {
      const body = await readJsonBody(req, maxBody);
      if (!body.ok) {
        // Do not make the client wait for (and us read) the rest of an oversized upload.
        if (body.status === 413) res.setHeader('Connection', 'close');
        sendJsonRpcError(res, body.status, body.code, body.message);
        return;
      }
      // JSON-RPC: an empty batch is an invalid request (the SDK would accept it silently with 202).
      if (Array.isArray(body.value) && body.value.length === 0) {
        sendJsonRpcError(res, 400, -32600, 'Invalid request: empty batch');
        return;
      }
      if (sessionId) {
        const session = own(sessionId);
        if (!session) {
          if (sessions.has(sessionId)) log(`http: principal '${principal.id}' used a session of another principal; refused`);
          sendJsonRpcError(res, 404, -32001, 'Session not found: start a new session with an initialize request');
          return;
        }
        session.lastSeen = Date.now();
        session.busy++;
        res.once('close', () => {
          session.busy--;
          session.lastSeen = Date.now();
        });
        await session.transport.handleRequest(req, res, body.value);
        return;
      }
      if (!isInitializeRequest(body.value)) {
        sendJsonRpcError(res, 400, -32000, 'Bad request: no mcp-session-id header and not an initialize request');
        return;
      }
      // Room is made (or refused) before anything is created; the session counts from now on.
      const full = makeRoom(principal.id);
      if (full !== undefined) {
        res.setHeader('Retry-After', '10');
        sendJsonRpcError(res, 429, -32000, full);
        return;
      }
      opening.set(principal.id, (opening.get(principal.id) ?? 0) + 1);
      try {
        const server = createSession(principal);
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            sessions.set(id, { transport, server, lastSeen: Date.now(), principal: principal.id, busy: 0 });
          },
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await server.connect(transport);
        options.calls?.attach(transport);
        await transport.handleRequest(req, res, body.value);
      } finally {
        const n = (opening.get(principal.id) ?? 1) - 1;
        if (n > 0) opening.set(principal.id, n);
        else opening.delete(principal.id);
      }
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      const session = own(sessionId);
      if (!session) {
        if (sessionId && sessions.has(sessionId)) log(`http: principal '${principal.id}' used a session of another principal; refused`);
        sendJsonRpcError(res, sessionId ? 404 : 400, -32000, 'Missing or unknown mcp-session-id');
        return;
      }
      session.lastSeen = Date.now();
      await session.transport.handleRequest(req, res);
      if (req.method === 'DELETE' && sessionId) sessions.delete(sessionId);
      return;
    }
    res.setHeader('Allow', 'GET, POST, DELETE');
    sendJsonRpcError(res, 405, -32000, `Method ${req.method ?? ''} not allowed`);
  }

  function refuse(res: ServerResponse, failure: AuthFailure): void {
    if (failure.status !== 503) res.setHeader('WWW-Authenticate', auth.challenge(failure));
    else res.setHeader('Retry-After', '5');
    const what = failure.status === 401 ? 'Unauthorized' : failure.status === 403 ? 'Forbidden' : 'Service unavailable';
    sendJsonRpcError(res, failure.status, -32001, `${what}: ${failure.description}`);
  }

  /**
   * Makes room for a new session of `owner`, or says why there is none. First the principal's own
   * cap (its own longest-idle session goes), then the global one (the longest-idle session of
   * whoever holds the most goes). Sessions with a request in flight are never chosen. A closed
   * session's client gets 404 on its next request and may start over.
   */
  function makeRoom(owner: string): string | undefined {
    const held = (): Map<string, number> => {
      const counts = new Map(opening);
      for (const s of sessions.values()) counts.set(s.principal, (counts.get(s.principal) ?? 0) + 1);
      return counts;
    };
    while ((held().get(owner) ?? 0) >= perPrincipal) {
      const victim = idlest((s) => s.principal === owner);
      if (!victim)
        return `Too many sessions: principal '${owner}' has ${perPrincipal} open (the per-principal cap, http.sessionsPerPrincipal), each with a request in flight; end one (DELETE) or wait for one to finish`;
      evict(victim, `principal '${owner}' has ${perPrincipal} sessions open (its cap)`);
    }
    while (sessions.size + [...opening.values()].reduce((a, b) => a + b, 0) >= maxSessions) {
      const counts = held();
      const victim = idlest(
        () => true,
        (a, b) => (counts.get(b.principal) ?? 0) - (counts.get(a.principal) ?? 0),
      );
      if (!victim) return `Too many sessions: the server has ${maxSessions} open (http.maxSessions), each with a request in flight; try again shortly`;
      evict(victim, `${maxSessions} sessions open (the server's cap)`);
    }
    return undefined;
  }

  /** The longest-idle session without a request in flight among `which`, after `first` (a preference) orders them. */
  function idlest(which: (s: Session) => boolean, first: (a: Session, b: Session) => number = () => 0): [string, Session] | undefined {
    let best: [string, Session] | undefined;
    for (const entry of sessions) {
      const s = entry[1];
      if (s.busy > 0 || !which(s)) continue;
      if (!best) best = entry;
      else {
        const order = first(s, best[1]);
        if (order < 0 || (order === 0 && s.lastSeen < best[1].lastSeen)) best = entry;
      }
    }
    return best;
  }

  function evict([id, s]: [string, Session], why: string): void {
    sessions.delete(id);
    log(`http: ${why}: closed session ${id} of '${s.principal}', idle for ${Math.round((Date.now() - s.lastSeen) / 1000)} s`);
    void s.transport.close().catch(() => undefined);
  }

  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions) {
        if (s.busy === 0 && now - s.lastSeen > idleMs) {
          sessions.delete(id);
          void s.transport.close().catch(() => undefined);
        }
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweeper.unref();

  let closing = false;
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new HttpConfigError('--port', `port ${options.port ?? 0} on ${host} is in use: pick another with --port`)
          : err.code === 'EADDRNOTAVAIL'
            ? new HttpConfigError('--host', `${host} is not an address of this machine`)
            : err,
      );
    });
    httpServer.listen(options.port ?? 0, host, () => resolve());
  });
  port = (httpServer.address() as AddressInfo).port;
  const scheme = tlsPair ? 'https' : 'http';
  const bracket = (h: string): string => (h.includes(':') && !h.startsWith('[') ? `[${h}]` : h);
  const shownHost = isWildcard(host) ? primaryAddress() : host;
  const url = publicUrl ?? `${scheme}://${bracket(shownHost)}:${port}${MCP_PATH}`;
  const hosts = new Set<string>([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...extraHosts]);
  if (!isLoopback(host)) hosts.add(`${bracket(host)}:${port}`);
  if (isWildcard(host)) for (const h of machineHosts()) hosts.add(`${h}:${port}`);
  if (publicUrl) hosts.add(new URL(publicUrl).host);
  allowedHost = hostMatcher([...hosts]);
  let metadataUrl: string | undefined;
  if (options.oauth) {
    const resource = new URL(url);
    metadataUrl = `${resource.origin}${METADATA_PATH}${resource.pathname === '/' ? '' : resource.pathname}`;
    auth = new OAuthResourceServer(options.oauth, url, metadataUrl);
  } else {
    auth = new StaticBearer(token, options.bearerPrincipal);
  }
  const authenticator = auth;
  options.console?.bind({
    origin: new URL(url).origin,
    tls: tlsPair !== undefined || url.startsWith('https:'),
    ...(authenticator.kind === 'oauth' ? { authenticate: (authorization: string) => authenticator.authenticate(authorization), resource: url } : {}),
  });
  const tls = options.tls && tlsPair ? watchTls(httpServer as HttpsServer, options.tls, log) : undefined;
  const listenerClosed = new Promise<string>((resolve) => {
    httpServer.on('error', (err) => resolve(`the HTTP listener failed (${err.message})`));
    httpServer.once('close', () => {
      if (!closing) resolve('the HTTP listener closed');
    });
  });

  return {
    url,
    token,
    port,
    mode: auth.kind,
    ...(metadataUrl ? { metadataUrl } : {}),
    allowedHosts: [...hosts],
    sessions: () => sessions.size,
    tlsReloads: () => tls?.reloads() ?? 0,
    listenerClosed,
    async close({ flushMs = 2_000 } = {}) {
      closing = true;
      clearInterval(sweeper);
      tls?.stop();
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      // Answers already handed to a session's stream are still on their way to the client: a
      // transport closed now would cut them off.
      await allClosed(answering, flushMs);
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      sessions.clear();
      httpServer.closeAllConnections();
      await closed;
    },
  };
}

/** Resolves once every response in `open` has closed, or after `ms`. */
function allClosed(open: Set<ServerResponse>, ms: number): Promise<void> {
  const each = [...open].map((res) => new Promise<void>((resolve) => (res.closed ? resolve() : res.once('close', () => resolve()))));
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([Promise.all(each).then(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

function insufficient(auth: Authenticator, capability: Capability, principal: Principal): AuthFailure {
  const scope = capability === 'read' ? `${auth.scopeFor('read')} ${auth.scopeFor('write')}` : auth.scopeFor(capability);
  return {
    ok: false,
    status: 403,
    error: 'insufficient_scope',
    description:
      capability === 'approve'
        ? `principal '${principal.id}' has no ${auth.scopeFor('approve')} scope: approving plans needs it`
        : `principal '${principal.id}' has neither ${auth.scopeFor('read')} nor ${auth.scopeFor('write')}: the MCP tools need one of them`,
    scope,
  };
}

/** An absolute http(s) URL with a host; what clients will be told to use. */
function checkPublicUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new HttpConfigError('http.publicUrl', `'${value}' is not a URL (e.g. https://mcp.example.lan:8765/mcp)`);
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || !u.host || u.username || u.password || u.search || u.hash) {
    throw new HttpConfigError('http.publicUrl', `'${value}' must be an http(s) URL with a host and no credentials, query or fragment (e.g. https://mcp.example.lan:8765/mcp)`);
  }
  if (!splitHost(u.host)) throw new HttpConfigError('http.publicUrl', `the host of '${value}' is not usable as a Host header`);
  return u.href;
}
