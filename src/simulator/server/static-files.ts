/**
 * The files pveproxy serves outside `/api2` without authentication that matter here: the API
 * viewer's `apidoc.js` (the schema clients download) and a small index page for it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { writeResponse } from './wire.js';

export interface StaticFile {
  body: Buffer;
  gzipped: Buffer;
  contentType: string;
  lastModified: Date;
}

export function staticFile(text: string, contentType: string, lastModified = new Date()): StaticFile {
  const body = Buffer.from(text, 'utf8');
  // Second precision, like file mtimes in Last-Modified / If-Modified-Since.
  const mtime = new Date(Math.floor(lastModified.getTime() / 1000) * 1000);
  return { body, gzipped: gzipSync(body), contentType, lastModified: mtime };
}

const VIEWER_INDEX = `<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><title>API schema (pve-code-mcp simulator)</title></head>
<body>
<p>This simulator serves its API schema as <a href="apidoc.js">apidoc.js</a>.</p>
</body>
</html>
`;

export class StaticFiles {
  private readonly files = new Map<string, StaticFile>();

  constructor(apidocText: string) {
    this.files.set('/pve-docs/api-viewer/apidoc.js', staticFile(apidocText, 'application/javascript'));
    this.files.set('/pve-docs/api-viewer/index.html', staticFile(VIEWER_INDEX, 'text/html'));
  }

  /** Serve a non-API path; unknown files get pveproxy's 501 `no such file`. */
  serve(req: IncomingMessage, res: ServerResponse, method: string, path: string): void {
    const file = method === 'GET' ? this.files.get(path) : undefined;
    if (!file) {
      writeResponse(req, res, { status: 501, message: `no such file '${path}'` });
      return;
    }
    const since = Date.parse(String(req.headers['if-modified-since'] ?? ''));
    if (Number.isFinite(since) && file.lastModified.getTime() <= since) {
      writeResponse(req, res, { status: 304, message: 'NOT MODIFIED', lastModified: file.lastModified });
      return;
    }
    writeResponse(req, res, { status: 200, body: file.body, gzipped: file.gzipped, contentType: file.contentType, lastModified: file.lastModified });
  }
}
