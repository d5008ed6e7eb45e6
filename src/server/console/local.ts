/**
 * `pve-code-mcp console`: the console alone, on a loopback address, for setups where the operator
 * is on the server host (stdio, static token). Nobody logs in with a password: the command prints
 * a one-time link that opens a session for the host's user, the same person `pve-code-mcp approve`
 * trusts. Host headers other than the loopback names are refused (DNS rebinding).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SECURITY_HEADERS } from './html.js';
import { CONSOLE_PATH, type WebConsole } from './console.js';

export interface LocalConsole {
  url: string;
  close(): Promise<void>;
}

export async function startLocalConsole(webConsole: WebConsole, options: { host?: string; port?: number; log?: (line: string) => void } = {}): Promise<LocalConsole> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let hosts = new Set<string>();
  const server: Server = createServer((req, res) => {
    if (!hosts.has(req.headers.host ?? '')) {
      res.writeHead(403, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain' }).end(`Host ${req.headers.host ?? ''} is not this console's\n`);
      return;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/') {
      res.writeHead(302, { ...SECURITY_HEADERS, Location: `${CONSOLE_PATH}/` }).end();
      return;
    }
    if (path !== CONSOLE_PATH && !path.startsWith(`${CONSOLE_PATH}/`)) {
      res.writeHead(404, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain' }).end('Not found: the console is under /console/\n');
      return;
    }
    webConsole.handle(req, res).catch((err: unknown) => {
      log(`console: request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) res.writeHead(500, SECURITY_HEADERS).end();
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  hosts = new Set([`${shown}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
  const origin = `http://${shown}:${port}`;
  webConsole.bind({ origin, tls: false });
  return {
    url: `${origin}${CONSOLE_PATH}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
