/**
 * How guests look in list and status responses. `/cluster/resources`, `/nodes/{node}/qemu`,
 * `/nodes/{node}/lxc` and `status/current` all build on these so they never disagree.
 */
import { guestName } from './guest-config.js';
import type { GuestRuntime } from './metrics.js';
import type { ClusterState } from './state.js';
import type { Guest } from './types.js';

type Json = Record<string, unknown>;

export function haSid(g: Guest): string {
  return `${g.type === 'qemu' ? 'vm' : 'ct'}:${g.vmid}`;
}

function optional(out: Json, g: Guest): Json {
  if (g.config.lock !== undefined) out.lock = g.config.lock;
  if (g.config.tags !== undefined) out.tags = g.config.tags;
  if (g.config.template) out.template = 1;
  return out;
}

/** One entry of `/nodes/{node}/qemu` or `/nodes/{node}/lxc`. */
export function guestListItem(state: ClusterState, g: Guest, full = false): Json {
  const rt = state.guestRuntime(g);
  const out: Json = {
    vmid: g.vmid,
    name: guestName(g),
    status: rt.status,
    cpus: rt.cpus,
    cpu: rt.cpu,
    maxmem: rt.maxmem,
    mem: rt.mem,
    maxdisk: rt.maxdisk,
    disk: rt.disk,
    uptime: rt.uptime,
    netin: rt.netin,
    netout: rt.netout,
    diskread: rt.diskread,
    diskwrite: rt.diskwrite,
  };
  if (g.type === 'lxc') {
    out.type = 'lxc';
    out.maxswap = Number(g.config.swap ?? 512) * 1024 * 1024;
    out.swap = rt.status === 'running' ? Math.floor(Number(out.maxswap) * 0.02) : 0;
  } else {
    out.memhost = rt.mem;
    if (rt.status === 'running') {
      out.pid = g.pid;
      if (full) out.qmpstatus = g.paused ? 'paused' : 'running';
    }
  }
  return optional(out, g);
}

function haStatus(state: ClusterState, g: Guest): Json {
  const res = state.haResources.get(haSid(g));
  if (!res) return { managed: 0 };
  return { managed: 1, state: res.state };
}

/** `GET …/status/current`: the list entry plus HA, agent and the live QEMU details. */
export function guestStatusCurrent(state: ClusterState, g: Guest): Json {
  const out = guestListItem(state, g, true);
  out.ha = haStatus(state, g);
  if (g.type === 'qemu') {
    if (/^(?:1|enabled=1)(?:,|$)/.test(String(g.config.agent ?? ''))) out.agent = 1;
    if (g.status === 'running') Object.assign(out, qemuLiveDetails(g, out as unknown as GuestRuntime));
  }
  return out;
}

/** Fields QEMU reports through QMP for a running VM; embedded QMP booleans are real JSON booleans. */
function qemuLiveDetails(g: Guest, rt: GuestRuntime): Json {
  return {
    'running-machine': String(g.config.machine ?? 'pc-i440fx-9.2+pve1'),
    'running-qemu': '9.2.0',
    balloon: rt.maxmem,
    freemem: Math.max(0, rt.maxmem - rt.mem),
    ballooninfo: { actual: rt.maxmem, max_mem: rt.maxmem, total_mem: rt.maxmem, free_mem: rt.maxmem - rt.mem },
    nics: { [`tap${g.vmid}i0`]: { netin: rt.netin, netout: rt.netout } },
    'proxmox-support': { 'pbs-dirty-bitmap': true, 'pbs-dirty-bitmap-migration': true, 'query-bitmap-info': true, 'pbs-library-version': '1.5.2' },
  };
}
