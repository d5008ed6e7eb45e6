/**
 * `GET /healthz`, for a load balancer in front of several replicas (docs/deployment.md): 200 while
 * this replica takes tool calls, 503 with the reason while it stops or cannot reach its shared
 * state (a replica that cannot write its audit would refuse every run). It answers before the Host
 * check and without authentication — a balancer probes by address — so it says nothing but that.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const HEALTH_PATH = '/healthz';

export type Health = { ok: true } | { ok: false; reason: string };

/** Answers a health probe; false when the request is not one. */
export function answeredHealth(req: IncomingMessage, res: ServerResponse, pathname: string, health: () => Health): boolean {
  if (pathname !== HEALTH_PATH) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('GET only\n');
    return true;
  }
  const now = health();
  res.writeHead(now.ok ? 200 : 503, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' }).end(now.ok ? 'ok\n' : `unavailable: ${now.reason}\n`);
  return true;
}
