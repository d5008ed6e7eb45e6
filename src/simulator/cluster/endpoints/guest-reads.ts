/**
 * A guest's series and features: its RRD chart and data (from the same figures its status
 * reports) and whether its disks allow snapshots, clones or copies. The same for VMs and
 * containers.
 */
import { snapshotBlocker } from '../snapshot-support.js';
import type { SimEndpoint } from '../../contract.js';
import { diskEntries } from '../guest-config.js';
import type { ClusterState } from '../state.js';
import type { GuestType } from '../types.js';
import { guestSeries } from './node-series.js';
import { reqStr } from './params.js';
import { pathGuest } from './path-targets.js';
import { int, LIST, OBJ, P, perm, str } from './schema.js';

const VMID = int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 });
const TIMEFRAME = str('Time span the series covers.', { enum: ['hour', 'day', 'week', 'month', 'year'] });
const AUDIT = { check: perm('/vms/{vmid}', ['VM.Audit']) };

export function guestReadEndpoints(state: ClusterState, type: GuestType): SimEndpoint[] {
  const base = `/nodes/{node}/${type}/{vmid}`;
  return [
    {
      method: 'GET',
      path: `${base}/rrd`,
      description: 'A chart of guest series as a PNG file name (the file itself is not served).',
      parameters: { node: P.node, vmid: VMID, ds: str('Data sources to draw, comma-separated.', { format: 'pve-configid-list' }), timeframe: TIMEFRAME },
      returns: OBJ,
      permissions: AUDIT,
      protected: true,
      handler: (ctx) => ({ filename: `/var/lib/rrdcached/db/pve-vm-9.0/${pathGuest(state, type, ctx).vmid}.png` }),
    },
    {
      method: 'GET',
      path: `${base}/rrddata`,
      description: 'Time series of the guest (CPU, memory, disk, network), ending at its current status.',
      parameters: { node: P.node, vmid: VMID, timeframe: TIMEFRAME },
      returns: LIST,
      permissions: AUDIT,
      protected: true,
      handler: (ctx) => guestSeries(state, pathGuest(state, type, ctx), reqStr(ctx, 'timeframe')),
    },
    {
      method: 'GET',
      path: `${base}/feature`,
      description: 'Whether the guest can take a snapshot, be cloned or be copied, given the storages its disks are on.',
      parameters: { node: P.node, vmid: VMID, feature: str('What to check: taking a snapshot, a linked clone, or a full copy.', { enum: ['snapshot', 'clone', 'copy'] }) },
      returns: OBJ,
      permissions: AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const g = pathGuest(state, type, ctx);
        const feature = reqStr(ctx, 'feature');
        const types = diskEntries(g.type, g.config).map((d) => state.storages.get(d.storage)?.type);
        const has = feature === 'copy' ? true : feature === 'snapshot' ? snapshotBlocker(state, g) === undefined : types.every((t) => t === 'lvmthin' || t === 'rbd' || t === 'zfspool');
        const shared = diskEntries(g.type, g.config).every((d) => state.storages.get(d.storage)?.shared);
        return type === 'qemu' ? { hasFeature: has ? 1 : 0, nodes: has ? (shared ? [...state.nodes.keys()] : [g.node]) : [] } : { hasFeature: has ? 1 : 0 };
      },
    },
  ];
}
