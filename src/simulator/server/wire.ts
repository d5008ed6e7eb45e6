/**
 * Writing responses the way pveproxy does: status line with the message's first line as reason
 * phrase, `Date` = `Expires`, `Cache-Control: max-age=0`, `Pragma: no-cache`,
 * `Server: pve-api-daemon/3.0`, exact `application/json;charset=UTF-8`, no Content-Length on empty
 * bodies, `Connection: close` for every status >= 400, gzip above 1024 bytes when accepted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';

export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';
export const SERVER_HEADER = 'pve-api-daemon/3.0';
const GZIP_THRESHOLD = 1024;

export interface WireResponse {
  status: number;
  /** Reason phrase source: only its first line is used. Defaults to the standard phrase. */
  message?: string;
  body?: Buffer | string;
  contentType?: string;
  /** Set for static files: sends `Last-Modified` instead of the no-cache headers. */
  lastModified?: Date;
  /** Already-compressed variant of `body`, reused for large static files. */
  gzipped?: Buffer;
}

const STANDARD_REASONS: Record<number, string> = {
  200: 'OK',
  301: 'Moved Permanently',
  304: 'Not Modified',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  500: 'Internal Server Error',
  501: 'Not Implemented',
};

/** First line of a message, reduced to characters a status line can carry. */
export function reasonPhrase(status: number, message: string | undefined): string {
  const first = (message ?? '').split('\n')[0] ?? '';
  const clean = first.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
  return clean.length > 0 ? clean : (STANDARD_REASONS[status] ?? 'Unknown');
}

function acceptsGzip(req: IncomingMessage): boolean {
  return /gzip/.test(String(req.headers['accept-encoding'] ?? ''));
}

export function writeResponse(req: IncomingMessage, res: ServerResponse, r: WireResponse): void {
  if (res.headersSent || res.destroyed) return;
  res.sendDate = false;
  res.statusCode = r.status;
  res.statusMessage = reasonPhrase(r.status, r.message);
  const date = new Date().toUTCString();
  res.setHeader('Date', date);
  if (r.lastModified) {
    res.setHeader('Last-Modified', r.lastModified.toUTCString());
  } else {
    res.setHeader('Expires', date);
    res.setHeader('Cache-Control', 'max-age=0');
    res.setHeader('Pragma', 'no-cache');
  }
  res.setHeader('Server', SERVER_HEADER);
  let body = r.status === 304 || r.body === undefined ? undefined : typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
  if (body && body.length === 0) body = undefined;
  if (r.contentType && body) res.setHeader('Content-Type', r.contentType);
  if (body && body.length > GZIP_THRESHOLD && acceptsGzip(req)) {
    body = r.gzipped ?? gzipSync(body);
    res.setHeader('Content-Encoding', 'gzip');
  }
  res.setHeader('Connection', r.status >= 400 ? 'close' : 'Keep-Alive');
  if (body) {
    res.setHeader('Content-Length', body.length);
    res.end(body);
  } else {
    // pveproxy sends neither Content-Length nor chunking for an empty body.
    res.removeHeader('Content-Length');
    res.removeHeader('Transfer-Encoding');
    res.useChunkedEncodingByDefault = false;
    res.end();
  }
}

/** The JSON envelope body of an API result. */
export function envelope(data: unknown, extra: { total?: number; message?: string; errors?: Record<string, string> } = {}): string {
  const out: Record<string, unknown> = { data: data === undefined ? null : data };
  if (extra.total !== undefined) out.total = extra.total;
  if (extra.message !== undefined) out.message = extra.message;
  if (extra.errors !== undefined) out.errors = extra.errors;
  return JSON.stringify(out);
}
