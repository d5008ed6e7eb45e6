/**
 * The request pipeline in pveproxy's order (see docs/simulator.md):
 * method → transfer encoding → `/api2/<format>` → authentication (401, delayed) → body checks
 * (501/506) → parameters (body, then query; `_dc` dropped) → formatter → route (501) → URI
 * parameter conflicts (400) → token allowed (403) → permissions (403) → proxy to node (500/595)
 * → implemented by the simulator (501) → injected faults → parameter validation (400) → handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiModel, HttpMethod, Operation } from '../../schema/model.js';
import { checkOperationPermissions } from '../access/permission-check.js';
import { PveHttpError, type SimEndpoint, type SimPrincipal, type SimRequestContext } from '../contract.js';
import type { Authenticator, AuthOutcome } from '../access/authenticate.js';
import { uriUnescape } from '../access/credentials.js';
import type { AccessStore } from '../access/store.js';
import type { FaultController } from '../faults.js';
import { validateParams } from '../validate.js';
import type { RequestCounters } from './counters.js';
import { ACCEPTED_BODY_TYPES, BodyParseError, mediaType, mergeParams, parseBody } from './request-params.js';
import { Router } from './route.js';
import type { StaticFiles } from './static-files.js';
import { envelope, JSON_CONTENT_TYPE, writeResponse } from './wire.js';

/** The methods pveproxy serves; anything else is 501. */
const SERVED_METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'DELETE']);

/** pveproxy refuses larger form/JSON bodies. */
export const MAX_BODY_BYTES = 512 * 1024;

export interface NodeDirectory {
  /** The node this "pveproxy" runs on: proxied calls to it never leave. */
  local: string;
  has(node: string): boolean;
  isOnline(node: string): boolean;
  /** PVE's error for a name that is not a cluster node. */
  unknownNodeError(node: string): PveHttpError;
}

export interface PipelineSettings {
  /** Delay of 401 answers (PVE: 3 s after the request started). */
  authFailureDelayMs: number;
}

export interface ResponseCheck {
  (op: Operation, data: unknown): void;
}

export interface PipelineDeps {
  model: ApiModel;
  endpoints: ReadonlyMap<string, SimEndpoint>;
  authenticator: Authenticator;
  store: AccessStore;
  faults: FaultController;
  counters: RequestCounters;
  nodes: NodeDirectory;
  files: StaticFiles;
  settings: PipelineSettings;
  /** Called with every successful handler result (response conformance checks in tests). */
  checkResponse?: ResponseCheck;
  /** Unexpected handler crashes (they still answer 500). */
  onInternalError?: (error: unknown, key: string) => void;
}

/** What the REST layer produced: a formatted API result, a raw status, or nothing (connection dropped). */
type RestResult =
  | { kind: 'api'; status: number; message?: string; data?: unknown; total?: number; errors?: Record<string, string> }
  | { kind: 'raw'; status: number; message: string }
  | { kind: 'dropped' };

const ANONYMOUS: SimPrincipal = { userid: '', authId: '' };

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve());

function withNewline(message: string): string {
  return message.endsWith('\n') ? message : `${message}\n`;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function scalarText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function dropConnection(req: IncomingMessage): void {
  const socket = req.socket as IncomingMessage['socket'] & { resetAndDestroy?: () => void };
  try {
    socket.resetAndDestroy?.();
  } catch {
    // TLS sockets wrap the TCP handle; a plain destroy still cuts the connection.
  }
  socket.destroy();
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw new BodyParseError('for data too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

export function createRequestHandler(deps: PipelineDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const raw = (req: IncomingMessage, res: ServerResponse, status: number, message: string) => writeResponse(req, res, { status, message });
  const router = Router.fromModel(deps.model);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const method = req.method ?? '';
    if (!SERVED_METHODS.has(method)) return raw(req, res, 501, `method '${method}' not available`);
    const te = header(req, 'transfer-encoding');
    if (te) {
      return raw(req, res, 501, te.toLowerCase() === 'chunked' ? 'chunked transfer encoding not supported' : `Unknown transfer encoding '${te}'`);
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = uriUnescape(q < 0 ? url : url.slice(0, q));
    const query = q < 0 ? '' : url.slice(q + 1);
    if (!path.startsWith('/api2')) return deps.files.serve(req, res, method, path);
    const split = /^\/api2\/+([a-z][a-z0-9]+)(\/.*)?$/.exec(path);
    if (!split) return raw(req, res, 501, 'no such uri');
    const format = split[1] as string;
    const rel = split[2] ?? '/';
    const httpMethod = method as HttpMethod;

    const auth = deps.authenticator.authenticate({
      method: httpMethod,
      relPath: rel,
      cookie: header(req, 'cookie'),
      authorization: header(req, 'authorization'),
      csrfToken: header(req, 'csrfpreventiontoken'),
    });
    if (auth.kind === 'denied') {
      await sleep(deps.settings.authFailureDelayMs);
      return raw(req, res, 401, auth.reason);
    }

    const length = Number(header(req, 'content-length') ?? '0');
    const contentType = header(req, 'content-type');
    const media = mediaType(contentType);
    if (length > 0) {
      if (httpMethod !== 'POST' && httpMethod !== 'PUT') return raw(req, res, 501, `Unexpected content for method '${method}'`);
      if (length > MAX_BODY_BYTES) return raw(req, res, 501, 'for data too large');
      if (media !== undefined && !ACCEPTED_BODY_TYPES.has(media)) {
        return raw(req, res, 506, `upload 'Content-Type '${contentType}' not implemented`);
      }
    }
    if (format !== 'json' && format !== 'extjs') return raw(req, res, 501, `no formatter for uri ${rel}, ${format}`);
    let params: Record<string, unknown>;
    try {
      const body = length > 0 ? await readBody(req, MAX_BODY_BYTES) : Buffer.alloc(0);
      params = mergeParams(parseBody(media, body), query);
    } catch (error) {
      if (error instanceof BodyParseError) return raw(req, res, 501, error.message);
      throw error;
    }

    const result = await rest(req, httpMethod, rel, auth, params);
    if (result.kind === 'dropped') return;
    if (result.kind === 'raw') return raw(req, res, result.status, result.message);
    if (result.status === 401) await sleep(deps.settings.authFailureDelayMs - (Date.now() - started));
    writeFormatted(req, res, format, result);
  }

  function writeFormatted(req: IncomingMessage, res: ServerResponse, format: string, r: Extract<RestResult, { kind: 'api' }>): void {
    const ok = r.status === 200;
    const extra = {
      ...(r.total !== undefined ? { total: r.total } : {}),
      ...(r.message !== undefined && !ok ? { message: r.message } : {}),
      ...(r.errors !== undefined ? { errors: r.errors } : {}),
    };
    if (format === 'extjs') {
      // ExtJS clients read success/status from the body; the HTTP status is always 200.
      const body = { data: ok ? (r.data ?? null) : null, success: ok ? 1 : 0, status: r.status, ...extra };
      writeResponse(req, res, { status: 200, body: JSON.stringify(body), contentType: JSON_CONTENT_TYPE });
      return;
    }
    writeResponse(req, res, {
      status: r.status,
      message: r.message,
      body: envelope(ok ? r.data : null, extra),
      contentType: JSON_CONTENT_TYPE,
    });
  }

  async function rest(req: IncomingMessage, method: HttpMethod, rel: string, auth: Exclude<AuthOutcome, { kind: 'denied' }>, params: Record<string, unknown>): Promise<RestResult> {
    const match = router.match(method, rel);
    if (!match) {
      deps.counters.request(`${method} (unmatched)`);
      return { kind: 'api', status: 501, message: `Method '${method} ${rel}' not implemented` };
    }
    const op = match.operation;
    deps.counters.request(op.key);
    try {
      const uriParams: Record<string, unknown> = { ...match.pathValues };
      for (const [k, v] of Object.entries(params)) {
        if (k in match.pathValues) {
          if (v !== null && scalarText(v) !== match.pathValues[k]) {
            throw new PveHttpError(400, 'Parameter verification failed.\n', {
              [k]: 'duplicate parameter (already defined in URI) with conflicting values!',
            });
          }
        } else {
          uriParams[k] = v;
        }
      }
      const viaToken = auth.kind === 'authenticated' ? auth.viaToken : auth.apiTokenSent;
      if (viaToken && !op.allowtoken) {
        throw new PveHttpError(403, `Permission check failed (URI '${rel}' not available with API token, need proper ticket.\n)\n`);
      }
      const principal = auth.kind === 'authenticated' ? auth.principal : ANONYMOUS;
      if (auth.kind !== 'authenticated' && op.permissions?.user !== 'world') {
        throw new PveHttpError(403, 'Permission check failed (user != null)\n');
      }
      const hasPriv = privilegeCache(deps.store, principal.authId);
      const verdict = checkOperationPermissions(op.permissions, {
        authId: principal.authId,
        params: uriParams,
        hasPriv: (path, priv) => path !== undefined && hasPriv(path, priv),
        userExists: (u) => deps.store.users.has(u),
        groups: () => [...deps.store.groups.values()].map((g) => ({ groupid: g.groupid, members: g.members })),
      });
      if (!verdict.allowed) throw new PveHttpError(403, `${verdict.message}\n`);

      const proxied = await proxyCheck(op, uriParams);
      if (proxied) return proxied;

      const endpoint = deps.endpoints.get(op.key);
      if (!endpoint) {
        return { kind: 'api', status: 501, message: `Method '${method} ${rel}' not implemented by the simulator\n` };
      }
      const fault = deps.faults.decide(method, rel, op.path);
      await sleep(fault.latencyMs);
      if (fault.reset === 'before') {
        dropConnection(req);
        return { kind: 'dropped' };
      }
      if (fault.error?.body === 'none') return { kind: 'raw', status: fault.error.status, message: fault.error.message };
      if (fault.error) throw new PveHttpError(fault.error.status, fault.error.message);

      const validated = validateParams(op, uriParams);
      // Handlers check quorum before they write /etc/pve (PVE::Cluster::check_cfs_quorum).
      if (!deps.faults.quorate && writesClusterFiles(method, op.path)) throw new PveHttpError(500, 'cluster not ready - no quorum?\n');
      let total: number | undefined;
      const ctx: SimRequestContext = {
        method,
        template: op.path,
        params: validated,
        principal,
        hasPriv,
        setTotal: (n) => {
          total = n;
        },
      };
      if (method !== 'GET') deps.counters.write();
      const data = await endpoint.handler(ctx);
      deps.checkResponse?.(op, data);
      if (fault.reset === 'after') {
        dropConnection(req);
        return { kind: 'dropped' };
      }
      return { kind: 'api', status: 200, data: data ?? null, ...(total !== undefined ? { total } : {}) };
    } catch (error) {
      if (error instanceof PveHttpError) {
        return {
          kind: 'api',
          status: error.status,
          message: withNewline(error.message),
          ...(error.errors ? { errors: error.errors } : {}),
        };
      }
      deps.onInternalError?.(error, op.key);
      const message = error instanceof Error ? error.message : String(error);
      return { kind: 'api', status: 500, message: withNewline(message) };
    }
  }

  /** pveproxy forwards `proxyto` calls to the node in the path; here that only matters when it is unknown or down. */
  async function proxyCheck(op: Operation, params: Record<string, unknown>): Promise<RestResult | undefined> {
    if (!op.proxyto) return undefined;
    const node = params[op.proxyto];
    if (typeof node !== 'string' || node === 'localhost' || node === deps.nodes.local) return undefined;
    if (!deps.nodes.has(node)) throw deps.nodes.unknownNodeError(node);
    if (deps.nodes.isOnline(node)) return undefined;
    if (deps.faults.offlineMode(node) === 'timeout') {
      await sleep(deps.faults.offlineTimeoutMs);
      return { kind: 'raw', status: 595, message: 'Connection timed out' };
    }
    return { kind: 'raw', status: 595, message: 'Connection refused' };
  }

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      deps.onInternalError?.(error, `${req.method ?? ''} ${req.url ?? ''}`);
      writeResponse(req, res, { status: 501, message: error instanceof Error ? error.message : String(error) });
    });
  };
}

/**
 * Whether a call changes the cluster file system (refused without quorum). Logging in only reads
 * it, and guest-agent commands talk to the guest; every other POST/PUT/DELETE writes a config.
 */
export function writesClusterFiles(method: HttpMethod, template: string): boolean {
  if (method === 'GET') return false;
  if (template === '/access/ticket' || template === '/access/vncticket' || template.startsWith('/access/openid/')) return false;
  return !/^\/nodes\/\{node\}\/qemu\/\{vmid\}\/agent(\/|$)/.test(template);
}

/** Privilege lookups memoized per request: list handlers may check thousands of paths. */
function privilegeCache(store: AccessStore, authId: string): (path: string, priv: string) => boolean {
  const cache = new Map<string, Set<string>>();
  return (path, priv) => {
    let privs = cache.get(path);
    if (!privs) {
      privs = authId === '' ? new Set<string>() : store.privileges(authId, path);
      cache.set(path, privs);
    }
    return privs.has(priv);
  };
}
