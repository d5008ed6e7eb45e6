/**
 * A small load balancer for the replica tests, doing what docs/deployment.md asks of a real one:
 * a request without `Mcp-Session-Id` (a new session) goes to the next replica in turn; the session
 * id the replica answers with is remembered, and every later request of that session goes to the
 * same replica (its stream, its elicitation answers and its cancellations included). `misroute`
 * sends one session to another replica, as a load balancer that lost its table would.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface StickyProxy {
  /** The MCP endpoint through the proxy. */
  url: string;
  /** Which replica (index into the upstreams) holds each session. */
  sessions: ReadonlyMap<string, number>;
  /** Requests each replica got. */
  counts: number[];
  /** From now on send this session's requests to replica `to`. */
  misroute(sessionId: string, to: number): void;
  close(): Promise<void>;
}

/** `upstreams`: the replicas' MCP URLs (`http://127.0.0.1:PORT/mcp`). */
export async function startStickyProxy(upstreams: string[]): Promise<StickyProxy> {
  const targets = upstreams.map((u) => new URL(u));
  const sessions = new Map<string, number>();
  const counts = targets.map(() => 0);
  let next = 0;
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const header = req.headers['mcp-session-id'];
    const session = Array.isArray(header) ? header[0] : header;
    const known = session !== undefined ? sessions.get(session) : undefined;
    const index = known ?? next++ % targets.length;
    counts[index] = (counts[index] ?? 0) + 1;
    const target = targets[index] as URL;
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      const id = answer.headers['mcp-session-id'];
      if (typeof id === 'string' && !sessions.has(id)) sessions.set(id, index);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      // Server-sent events must reach the client as they come.
      res.flushHeaders();
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`replica ${index} unreachable: ${err.message}`);
    });
    // The client went away (a cancelled stream): the replica's side goes too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };
  const server: Server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}${targets[0]?.pathname ?? '/mcp'}`,
    sessions,
    counts,
    misroute(sessionId, to) {
      sessions.set(sessionId, to);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
