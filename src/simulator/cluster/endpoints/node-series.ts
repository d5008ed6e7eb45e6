/**
 * RRD series of nodes and guests, as PVE's round-robin archives keep them: each point computed
 * from the same formulas as the current status (src/simulator/cluster/metrics.ts), at that time.
 */
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { guestRuntime, nodeRuntime } from '../metrics.js';
import { noise } from '../prng.js';
import type { ClusterState } from '../state.js';
import type { Guest, SimNode } from '../types.js';
import { optStr, reqStr } from './params.js';
import { LIST, OBJ, P, perm, str } from './schema.js';

type Json = Record<string, unknown>;
const GiB = 1024 ** 3;

/** Seconds between points and number of points for each RRD time frame, as PVE's RRAs. */
const FRAMES: Record<string, [step: number, points: number]> = {
  hour: [60, 70],
  day: [1800, 70],
  week: [10800, 70],
  month: [43200, 70],
  year: [604800, 70],
  decade: [6048000, 70],
};

/** Node and guest series: each point from the same formulas as the current status, at that time. */
export function nodeSeries(state: ClusterState, node: SimNode, frame: string): Json[] {
  const [step, points] = FRAMES[frame] ?? [60, 70];
  const now = state.nowSec();
  const end = Math.floor(now / step) * step;
  const guests = state.guestsOn(node.name);
  const out: Json[] = [];
  for (let k = points - 1; k >= 0; k--) {
    const t = end - k * step;
    if (t * 1000 < node.bootedAt || !node.online) {
      out.push({ time: t });
      continue;
    }
    let mem = 0;
    let cores = 0;
    let netin = 0;
    let netout = 0;
    for (const g of guests) {
      if (g.status !== 'running' || g.startedAt > t * 1000) continue;
      const rt = guestRuntime(g, node, t * 1000);
      mem += rt.mem;
      cores += rt.cpu * rt.cpus;
      netin += rt.netin / Math.max(1, rt.uptime);
      netout += rt.netout / Math.max(1, rt.uptime);
    }
    const rt = nodeRuntime(node, mem, cores, t * 1000);
    out.push({
      time: t,
      cpu: rt.cpu,
      maxcpu: node.maxcpu,
      iowait: Math.round(rt.cpu * 0.05 * 1e4) / 1e4,
      loadavg: Math.round(rt.cpu * node.maxcpu * 100) / 100,
      memtotal: node.maxmem,
      memused: rt.mem,
      swaptotal: 8 * GiB,
      swapused: Math.floor(GiB * 0.1 * noise(node.nodeid, 3)),
      roottotal: node.rootfsTotal,
      rootused: rt.rootfsUsed,
      netin: Math.round(netin),
      netout: Math.round(netout),
    });
  }
  return out;
}

export function guestSeries(state: ClusterState, g: Guest, frame: string): Json[] {
  const [step, points] = FRAMES[frame] ?? [60, 70];
  const node = state.node(g.node);
  const end = Math.floor(state.nowSec() / step) * step;
  const out: Json[] = [];
  for (let k = points - 1; k >= 0; k--) {
    const t = end - k * step;
    const running = g.status === 'running' && g.startedAt <= t * 1000;
    const rt = guestRuntime(running ? g : { ...g, status: 'stopped' }, node, t * 1000);
    const rate = (v: number) => (running ? Math.round(v / Math.max(1, rt.uptime)) : 0);
    out.push({
      time: t,
      cpu: rt.cpu,
      maxcpu: rt.cpus,
      mem: rt.mem,
      maxmem: rt.maxmem,
      disk: rt.disk,
      maxdisk: rt.maxdisk,
      netin: rate(rt.netin),
      netout: rate(rt.netout),
      diskread: rate(rt.diskread),
      diskwrite: rate(rt.diskwrite),
    });
  }
  return out;
}

export function nodeSeriesEndpoints(state: ClusterState): SimEndpoint[] {
  const node = (ctx: SimRequestContext): SimNode => state.node(reqStr(ctx, 'node'));

  return [
    {
      method: 'GET',
      path: '/nodes/{node}/rrd',
      description: 'A chart of node series as a PNG file name (the file itself is not served).',
      parameters: {
        node: P.node,
        ds: str('Data sources to draw, comma-separated.', { format: 'pve-configid-list' }),
        timeframe: str('Time span the series covers.', { enum: ['hour', 'day', 'week', 'month', 'year', 'decade'] }),
      },
      returns: OBJ,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      protected: true,
      handler: (ctx) => (node(ctx), { filename: `/var/lib/rrdcached/db/pve-node-9.0/${reqStr(ctx, 'node')}-${optStr(ctx, 'timeframe') ?? 'hour'}.png` }),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/rrddata',
      description: 'Time series of the node (CPU, memory, load, network, root disk), from the same figures as its status.',
      parameters: { node: P.node, timeframe: str('Time span the series covers.', { enum: ['hour', 'day', 'week', 'month', 'year', 'decade'] }) },
      returns: LIST,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      protected: true,
      handler: (ctx) => nodeSeries(state, node(ctx), reqStr(ctx, 'timeframe')),
    },
  ];
}
