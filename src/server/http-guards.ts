/**
 * The HTTP host's guards, each a small function on the request that answers it (and returns true)
 * when it stops there: the Host check against DNS rebinding, CORS for allowed origins, the bounded
 * JSON body, and the JSON-RPC error every refusal is.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const CORS_ALLOW_HEADERS = 'authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id';
const CORS_EXPOSE_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate';

/** DNS rebinding: a browser page on evil.example resolving to this server still sends its own Host. */
export function refusedHost(req: IncomingMessage, res: ServerResponse, allowed: (host: string | undefined) => boolean): boolean {
  if (allowed(req.headers.host)) return false;
  sendJsonRpcError(res, 403, -32000, `Forbidden: Host header '${req.headers.host ?? ''}' is not allowed (add it with --allowed-host or http.allowedHosts)`);
  return true;
}

/** A browser's request: refused from an origin not allowed, its CORS headers set, a preflight answered. */
export function answeredCors(req: IncomingMessage, res: ServerResponse, origin: string | undefined, allowed: (origin: string) => boolean): boolean {
  if (origin === undefined) return false;
  if (!allowed(origin)) {
    sendJsonRpcError(res, 403, -32000, `Forbidden: Origin '${origin}' is not allowed (add it with --allowed-origin or http.allowedOrigins)`);
    return true;
  }
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
  if (req.method !== 'OPTIONS') return false;
  res.writeHead(204, { 'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS', 'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS, 'Access-Control-Max-Age': '600' }).end();
  return true;
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

type BodyResult = { ok: true; value: unknown } | { ok: false; status: number; code: number; message: string };

/**
 * The body as JSON, at most `limit` bytes. Past the limit the rest is read and discarded rather
 * than destroying the request: destroying it mid-upload kills the keep-alive socket under the
 * 413 answer, and the client's next request on that socket fails with a reset.
 */
export function readJsonBody(req: IncomingMessage, limit: number, allowEmpty = false): Promise<BodyResult> {
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
      if (allowEmpty && size === 0) return settle({ ok: true, value: undefined });
      try {
        settle({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        settle({ ok: false, status: 400, code: -32700, message: 'Parse error: the body is not valid JSON' });
      }
    });
  });
}

export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
