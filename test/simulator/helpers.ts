/**
 * Plain HTTPS helpers for simulator tests: undici fetch against the running simulator with its
 * self-signed certificate accepted. No project client code is involved.
 */
import { Agent, fetch } from 'undici';
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../../src/simulator/index.js';

export const insecure = new Agent({ connect: { rejectUnauthorized: false } });

export interface CallResult {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
  /** Parsed body (undefined when empty or not JSON). */
  json: any;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Form-encoded unless `json` is set; strings are sent as-is. */
  body?: Record<string, string | number | string[]> | string;
  json?: boolean;
  /** `token` (root@pam!mcp), a ticket session, or no credentials. */
  auth?: 'token' | 'none' | { ticket: string; csrf?: string } | { tokenHeader: string };
}

export function formBody(values: Record<string, string | number | string[]>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(values)) {
    for (const item of Array.isArray(v) ? v : [v]) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(item))}`);
  }
  return parts.join('&');
}

export async function call(sim: RunningSimulator, path: string, opts: CallOptions = {}): Promise<CallResult> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const auth = opts.auth ?? 'token';
  if (auth === 'token') headers.Authorization = sim.token.header;
  else if (auth !== 'none' && 'ticket' in auth) {
    headers.Cookie = `PVEAuthCookie=${encodeURIComponent(auth.ticket)}`;
    if (auth.csrf) headers.CSRFPreventionToken = auth.csrf;
  } else if (auth !== 'none') headers.Authorization = auth.tokenHeader;
  let body: string | undefined;
  if (opts.body !== undefined) {
    if (typeof opts.body === 'string') body = opts.body;
    else if (opts.json) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    } else {
      body = formBody(opts.body);
      headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
    }
  }
  const res = await fetch(`${sim.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}), dispatcher: insecure });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, statusText: res.statusText, headers: res.headers as unknown as Headers, text, json };
}

/** Log in over HTTP and return the session. */
export async function login(sim: RunningSimulator, username: string, password: string): Promise<{ ticket: string; csrf: string; data: any }> {
  const r = await call(sim, '/api2/json/access/ticket', { method: 'POST', auth: 'none', body: { username, password } });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.statusText}`);
  return { ticket: r.json.data.ticket, csrf: r.json.data.CSRFPreventionToken, data: r.json.data };
}

/** A simulator for tests: no 401 delay, deterministic seed, short tasks. */
export function startTestSimulator(opts: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  return startSimulator({ authFailureDelayMs: 0, seed: 7, taskDurationMs: 50, ...opts });
}

/** First qemu guest matching a predicate (demo preset). */
export function findGuest(sim: RunningSimulator, pred: (g: { vmid: number; node: string; status: string; type: string; pool?: string }) => boolean) {
  const g = sim.cluster.guests().find(pred);
  if (!g) throw new Error('no matching guest in the preset');
  return g;
}
