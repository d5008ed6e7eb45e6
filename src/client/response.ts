/**
 * Reads pveproxy's answers: the `{data, total?}` envelope on success, and on failure the typed
 * error that matches the status and PVE's message (JSON `message`, or the HTTP reason phrase when
 * the body is empty, as for every 401).
 */
import { z } from 'zod';
import type { HttpMethod } from '../schema/model.js';
import { PveOutcomeUnknownError, PveProtocolError } from './errors.js';
import { type HttpErrorDetails, PveAuthError, PveHttpError, PveNodeOfflineError, PveNotFoundError, PvePermissionError } from './http-errors.js';

export interface RawResponse {
  status: number;
  statusText: string;
  body: string;
}

export interface Envelope<T = unknown> {
  data: T;
  /** Envelope `total` (task lists, task logs) when the server sent one. */
  total: number | undefined;
  status: number;
}

/** What the error mapper needs to know about who was calling, for actionable hints. */
export interface CallerInfo {
  authId: string;
  kind: 'token' | 'ticket';
}

const envelopeSchema = z.looseObject({
  data: z.unknown().optional(),
  total: z.union([z.number(), z.string()]).optional(),
  message: z.string().optional(),
  errors: z.record(z.string(), z.unknown()).nullable().optional(),
});

type ParsedEnvelope = z.infer<typeof envelopeSchema> & { hasData: boolean };

export function readEnvelope<T>(raw: RawResponse, method: HttpMethod, path: string, caller: CallerInfo): Envelope<T> {
  const parsed = parseBody(raw.body);
  if (raw.status < 200 || raw.status >= 300) throw errorFromResponse(raw, parsed, method, path, caller);
  if (!parsed?.hasData) {
    const err = new PveProtocolError(method, path, raw.status, parsed ? 'JSON without a "data" member' : 'body is not JSON');
    // A success status to a write that we cannot read: it may well have run.
    if (method !== 'GET') throw new PveOutcomeUnknownError(method, path, `HTTP ${raw.status}, ${err.detail}`, err, 'its answer was not a Proxmox API answer');
    throw err;
  }
  const total = parsed.total === undefined ? undefined : Number(parsed.total);
  return { data: parsed.data as T, total: Number.isFinite(total) ? total : undefined, status: raw.status };
}

function parseBody(body: string): ParsedEnvelope | undefined {
  if (body.trim() === '') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const result = envelopeSchema.safeParse(json);
  // zod fills in an absent `data` as undefined; PVE always sends the key, even as null.
  return result.success ? { ...result.data, hasData: Object.hasOwn(json as object, 'data') } : undefined;
}

function errorFromResponse(raw: RawResponse, parsed: ParsedEnvelope | undefined, method: HttpMethod, path: string, caller: CallerInfo): PveHttpError {
  const message = (parsed?.message ?? raw.statusText ?? '').trim() || `HTTP ${raw.status}`;
  const errors = parsed?.errors ? stringifyValues(parsed.errors) : undefined;
  const details: HttpErrorDetails = { status: raw.status, pveMessage: message, errors, method, path };

  switch (raw.status) {
    case 401:
      return new PveAuthError(details, authHint(message, caller));
    case 403:
      return permissionError(details, caller);
    case 595:
    case 596:
      return new PveNodeOfflineError(details, nodeFromPath(path));
  }
  if (raw.status === 500 && /does not exist/.test(message)) {
    return new PveNotFoundError(details, notFoundHint(path));
  }
  if (raw.status === 500 && /^hostname lookup '[^']*' failed/.test(message)) {
    return new PveNotFoundError(details, 'There is no node with that name: list the nodes with GET /nodes.');
  }
  if (raw.status === 501 && /not implemented by the simulator/i.test(message)) {
    // The path is right (the schema has it): sending the agent back to search would loop.
    return new PveNotFoundError(
      details,
      'The operation exists in the schema, but the simulated cluster this server talks to does not implement it: use another operation that answers the same question, or a real PVE node.',
    );
  }
  if (raw.status === 501 && /not implemented|no such uri/i.test(message)) {
    return new PveNotFoundError(details, 'This server has no such API path/method: check the path with search_api; older PVE versions lack some endpoints.');
  }
  if (raw.status === 400 && errors) {
    return new PveHttpError(details, 'Fix the listed parameters and call again.');
  }
  return new PveHttpError(details);
}

const GUEST_PATH = /^\/nodes\/([^/]+)\/(qemu|lxc)\/(\d+)(?:\/|$)/;

/**
 * A guest path names a node and a type as well as the VMID: the usual miss is a VMID that is a
 * container asked for as a VM (or the reverse) or one that lives on another node.
 */
function notFoundHint(path: string): string {
  const m = GUEST_PATH.exec(path);
  if (!m) return 'The object does not exist (any more): list it again and use a current ID.';
  const [, rawNode, type, vmid] = m;
  const node = decodeSegment(rawNode as string);
  const what = type === 'qemu' ? 'VM (qemu)' : 'container (lxc)';
  const other = type === 'qemu' ? 'container (lxc)' : 'VM (qemu)';
  return (
    `There is no ${what} ${vmid} on node '${node}': it may be a ${other}, live on another node, or be gone. ` +
    `Find where it is and what it is in GET /cluster/resources {type: 'vm'} (fields node and type), then call with those.`
  );
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function authHint(message: string, caller: CallerInfo): string {
  if (/csrf/i.test(message)) {
    return 'The CSRF token was missing or stale: log in again (the client does this once automatically).';
  }
  if (caller.kind === 'token') {
    return (
      `API token ${caller.authId} was rejected: check the token ID and secret, that the token still exists ` +
      `and has not expired (Datacenter → Permissions → API Tokens), and that its user is enabled.`
    );
  }
  return `User ${caller.authId} could not authenticate: check username, password and realm, and that the user is enabled.`;
}

const PERM_DETAIL = /^Permission check failed \(([^,()]+), ([^()]+)\)$/;

function permissionError(details: HttpErrorDetails, caller: CallerInfo): PvePermissionError {
  const m = PERM_DETAIL.exec(details.pveMessage);
  if (/not available with API token/.test(details.pveMessage)) {
    return new PvePermissionError(details, undefined, undefined, 'This endpoint refuses API tokens: use a username/password (ticket) login for it.');
  }
  const aclPath = m?.[1];
  const privilege = m?.[2];
  const who = caller.kind === 'token' ? `API token ${caller.authId}` : `user ${caller.authId}`;
  const what = privilege && aclPath ? `${privilege} on ${aclPath}` : 'the privilege this call needs';
  const grant = caller.kind === 'token' ? ' A token with privilege separation needs its own ACL entry, and never gets more than its user has.' : '';
  return new PvePermissionError(details, aclPath, privilege, `${who} lacks ${what}: grant a role with it (Datacenter → Permissions), or ask an administrator.${grant}`);
}

function nodeFromPath(path: string): string | undefined {
  const m = /^\/nodes\/([^/]+)/.exec(path);
  if (!m?.[1]) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

function stringifyValues(errors: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(errors)) out[k] = (typeof v === 'string' ? v : JSON.stringify(v)).trim();
  return out;
}
