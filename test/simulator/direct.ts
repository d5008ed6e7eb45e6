/**
 * Calls a cluster endpoint in-process, without HTTP, auth or parameter validation: for the unit
 * tests of the simulated cluster itself. Parameters are given as the wire layer would pass
 * them after validation (path values included, booleans as 0/1).
 */
import type { HttpMethod } from '../../src/schema/model.js';
import type { SimEndpoint, SimPrincipal, SimRequestContext } from '../../src/simulator/contract.js';
import type { SimCluster } from '../../src/simulator/cluster/cluster.js';

export interface DirectCallOptions {
  /** `user@realm` or `user@realm!token`; default `root@pam`. */
  authId?: string;
  /** Privilege check; default grants everything. */
  hasPriv?: (aclPath: string, privilege: string) => boolean;
}

export interface DirectResult {
  data: unknown;
  total?: number;
}

export class NoSuchEndpointError extends Error {
  override name = 'NoSuchEndpointError';
}

export async function callEndpoint(cluster: SimCluster, method: HttpMethod, template: string, params: Record<string, unknown> = {}, opts: DirectCallOptions = {}): Promise<DirectResult> {
  const endpoint: SimEndpoint | undefined = cluster.endpoints().find((e) => e.method === method && e.path === template);
  if (!endpoint) throw new NoSuchEndpointError(`The simulated cluster does not implement ${method} ${template}.`);
  const authId = opts.authId ?? 'root@pam';
  const bang = authId.indexOf('!');
  const principal: SimPrincipal = bang < 0 ? { userid: authId, authId } : { userid: authId.slice(0, bang), tokenid: authId.slice(bang + 1), authId };
  let total: number | undefined;
  const ctx: SimRequestContext = {
    method,
    template,
    params,
    principal,
    hasPriv: opts.hasPriv ?? (() => true),
    setTotal: (n) => {
      total = n;
    },
  };
  const data = await endpoint.handler(ctx);
  return total === undefined ? { data } : { data, total };
}

/** A controllable clock for `createCluster({ clock })`: time only moves when told to. */
export interface FakeClock {
  (): number;
  advance(ms: number): void;
  set(epochMs: number): void;
}

export function fakeClock(startEpochMs = Date.UTC(2026, 0, 15, 12, 0, 0)): FakeClock {
  let now = startEpochMs;
  const clock = (() => now) as FakeClock;
  clock.advance = (ms) => {
    now += ms;
  };
  clock.set = (epochMs) => {
    now = epochMs;
  };
  return clock;
}
