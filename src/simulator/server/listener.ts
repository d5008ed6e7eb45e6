/**
 * One TCP port serving HTTPS, like pveproxy on 8006: the first byte tells a TLS handshake from
 * plain HTTP, which gets pveproxy's redirect (301 for GET/HEAD, 308 otherwise) to https.
 */
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { writeResponse } from './wire.js';

const TLS_HANDSHAKE = 0x16;

export interface Listener {
  port: number;
  close(): Promise<void>;
}

function redirectToHttps(req: IncomingMessage, res: ServerResponse): void {
  const host = req.headers.host ?? 'localhost';
  res.setHeader('Location', `https://${host}${req.url ?? '/'}`);
  const method = req.method ?? 'GET';
  writeResponse(req, res, { status: method === 'GET' || method === 'HEAD' ? 301 : 308 });
}

export async function listen(opts: { host: string; port: number; cert: string; key: string; handler: RequestListener }): Promise<Listener> {
  const https = createHttpsServer({ cert: opts.cert, key: opts.key }, opts.handler);
  https.keepAliveTimeout = 5_000;
  const http = createHttpServer(redirectToHttps);
  const sockets = new Set<Socket>();
  const tcp: Server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A client vanishing mid-request must never take the simulator down.
    socket.on('error', () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      (first[0] === TLS_HANDSHAKE ? https : http).emit('connection', socket);
      process.nextTick(() => socket.resume());
    });
  });
  https.on('tlsClientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(opts.port, opts.host, () => {
      tcp.off('error', reject);
      resolve();
    });
  });
  const address = tcp.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        https.close();
        http.close();
        tcp.close(() => resolve());
      }),
  };
}
