/**
 * Streamable HTTP transport host: one MCP session per client, bearer-token authentication,
 * DNS-rebinding protection, bounded request bodies. Loopback by default: the server holds
 * Proxmox credentials, so exposing it is an explicit decision (`--host`).
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

export interface HttpServerOptions {
  host?: string;
  port?: number;
  /** Bearer token clients must send; generated when absent (and printed by the CLI). */
  token?: string;
  /** Extra Host header values to accept (e.g. a reverse proxy name). */
  allowedHosts?: string[];
  maxBodyBytes?: number;
  /** Sessions idle longer than this are closed. */
  sessionIdleMs?: number;
  /**
   * Open sessions at most (default 256, about 40 KB each). A new session past the cap closes the
   * one idle longest: clients that go away without DELETE would otherwise hold theirs for the
   * whole idle time, and one that reconnects in a loop would grow the server without bound.
   */
  maxSessions?: number;
  log?: (line: string) => void;
}

export interface RunningHttpServer {
  url: string;
  token: string;
  port: number;
  sessions(): number;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  lastSeen: number;
}

const MCP_PATH = '/mcp';

export async function startHttpServer(
  createSession: () => McpServer,
  options: HttpServerOptions = {},
): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = Math.max(1, options.maxSessions ?? 256);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sessions = new Map<string, Session>();
  const expected = Buffer.from(`Bearer ${token}`);
  let port = 0;

  const allowedHost = (hostHeader: string | undefined): boolean => {
    if (!hostHeader) return false;
    const allowed = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...(options.allowedHosts ?? [])]);
    if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') allowed.add(`${host}:${port}`);
    return allowed.has(hostHeader.toLowerCase());
  };

  const httpServer: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`http: request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal server error');
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== MCP_PATH) {
      sendJsonRpcError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    // DNS rebinding: a browser page on evil.example resolving to 127.0.0.1 still sends its own Host.
    if (!allowedHost(req.headers.host)) {
      sendJsonRpcError(res, 403, -32000, `Forbidden: Host header '${req.headers.host ?? ''}' is not allowed`);
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHost(safeHost(origin))) {
      sendJsonRpcError(res, 403, -32000, `Forbidden: Origin '${origin}' is not allowed`);
      return;
    }
    const auth = Buffer.from(req.headers.authorization ?? '');
    if (auth.length !== expected.length || !timingSafeEqual(auth, expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="pve-code-mcp"');
      sendJsonRpcError(res, 401, -32001, 'Unauthorized: send "Authorization: Bearer <token>" (printed when the server started)');
      return;
    }

    const sessionId = header(req, 'mcp-session-id');
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
        const session = sessions.get(sessionId);
        if (!session) {
          sendJsonRpcError(res, 404, -32001, 'Session not found: start a new session with an initialize request');
          return;
        }
        session.lastSeen = Date.now();
        await session.transport.handleRequest(req, res, body.value);
        return;
      }
      if (!isInitializeRequest(body.value)) {
        sendJsonRpcError(res, 400, -32000, 'Bad request: no mcp-session-id header and not an initialize request');
        return;
      }
      const server = createSession();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          if (sessions.size >= maxSessions) closeIdlest();
          sessions.set(id, { transport, server, lastSeen: Date.now() });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, body.value);
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      const session = sessionId ? sessions.get(sessionId) : undefined;
      if (!session) {
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

  /** Makes room for a new session; its client gets 404 on its next request and may start over. */
  function closeIdlest(): void {
    let idlest: [string, Session] | undefined;
    for (const entry of sessions) if (!idlest || entry[1].lastSeen < idlest[1].lastSeen) idlest = entry;
    if (!idlest) return;
    const [id, s] = idlest;
    sessions.delete(id);
    log(`http: ${maxSessions} sessions open: closed session ${id}, idle for ${Math.round((Date.now() - s.lastSeen) / 1000)} s`);
    void s.transport.close().catch(() => undefined);
  }

  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions) {
      if (now - s.lastSeen > idleMs) {
        sessions.delete(id);
        void s.transport.close().catch(() => undefined);
      }
    }
  }, Math.min(idleMs, 60_000));
  sweeper.unref();

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => resolve());
  });
  port = (httpServer.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    token,
    port,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      sessions.clear();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function safeHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

type BodyResult = { ok: true; value: unknown } | { ok: false; status: number; code: number; message: string };

/**
 * The body as JSON, at most `limit` bytes. Past the limit the rest is read and discarded rather
 * than destroying the request: destroying it mid-upload kills the keep-alive socket under the
 * 413 answer, and the client's next request on that socket fails with a reset.
 */
function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        settle({ ok: false, status: 413, code: -32600, message: `Request body larger than ${limit} bytes` });
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => settle({ ok: false, status: 400, code: -32600, message: 'Bad request: the body could not be read' }));
    req.on('end', () => {
      try {
        settle({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        settle({ ok: false, status: 400, code: -32700, message: 'Parse error: the body is not valid JSON' });
      }
    });
  });
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
