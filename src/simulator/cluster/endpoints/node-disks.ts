/**
 * A node's disks and what it can find to use as storage: the disks (from the storages it holds),
 * their SMART health, LVM, LVM-thin, directory and ZFS pools, and the scans for NFS, CIFS, PBS,
 * iSCSI, LVM and ZFS targets a new storage could use.
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import { noise } from '../prng.js';
import type { ClusterState } from '../state.js';
import type { SimNode } from '../types.js';
import { optStr, reqStr } from './params.js';
import { arr, bool, int, LIST, OBJ, obj, opt, P, perm, str } from './schema.js';

type Json = Record<string, unknown>;
const GiB = 1024 ** 3;

/** The physical disks of a node: the boot SSDs and, on clusters, the Ceph OSD disks. */
export function nodeDisks(state: ClusterState, node: SimNode): Json[] {
  const serial = (k: number) => createHash('sha1').update(`${node.name}/${k}`).digest('hex').slice(0, 12).toUpperCase();
  const disks: Json[] = [
    {
      devpath: '/dev/nvme0n1',
      size: 1920 * 10 ** 9,
      model: 'SAMSUNG MZQL21T9HCJR-00A07',
      serial: serial(0),
      vendor: 'unknown',
      type: 'nvme',
      gpt: 1,
      mounted: 1,
      used: 'LVM',
      health: 'PASSED',
      wwn: `eui.${serial(0).toLowerCase()}`,
      osdid: -1,
      'osdid-list': [],
      rpm: 0,
      wearout: 97,
    },
  ];
  if (state.storages.get('ceph')?.type === 'rbd') {
    for (let k = 0; k < 4; k++) {
      const osd = (node.nodeid - 1) * 4 + k;
      disks.push({
        devpath: `/dev/sd${String.fromCharCode(97 + k)}`,
        size: 3840 * 10 ** 9,
        model: 'MZ7L33T8HBLT-00A07',
        serial: serial(k + 1),
        vendor: 'ATA',
        type: 'ssd',
        gpt: 1,
        mounted: 0,
        used: 'LVM',
        health: 'PASSED',
        wwn: `0x5002538${serial(k + 1)
          .toLowerCase()
          .slice(0, 9)}`,
        osdid: osd,
        'osdid-list': [osd],
        rpm: 0,
        wearout: 99 - k,
      });
    }
  }
  return disks;
}

function zpool(n: SimNode): { name: string; size: number; alloc: number; free: number; frag: number; dedup: number; health: string } {
  const size = 64 * GiB;
  const alloc = Math.floor(size * (0.1 + 0.2 * noise(n.nodeid, 11)));
  return { name: 'rpool', size, alloc, free: size - alloc, frag: 3, dedup: 1, health: 'ONLINE' };
}

/** One physical disk as the disk list reports it. */
const DISK = obj({
  devpath: str('Device path, e.g. /dev/sda.'),
  size: int('Size in bytes.'),
  model: opt(str('Model name the disk reports.')),
  serial: opt(str('Serial number.')),
  vendor: opt(str('Vendor the disk reports.')),
  gpt: bool('The disk has a GPT partition table.'),
  mounted: bool('A file system of the disk is mounted.'),
  used: opt(str('What uses the disk (LVM, ZFS, a Ceph OSD, partitions…); absent when it is unused.')),
  health: opt(str('SMART health verdict (PASSED, FAILED…).')),
  wwn: opt(str('World wide name of the disk.')),
  osdid: int('ID of the Ceph OSD on the disk, or -1.'),
  'osdid-list': opt(arr(int('OSD ID.'))),
});

export function nodeDiskEndpoints(state: ClusterState): SimEndpoint[] {
  const node = (ctx: SimRequestContext): SimNode => state.node(reqStr(ctx, 'node'));
  const index = (names: string[]) => names.map((name) => ({ name }));
  return [
    {
      method: 'GET',
      path: '/nodes/{node}/disks',
      description: 'Disk management sections (directory index).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => (node(ctx), index(['directory', 'list', 'lvm', 'lvmthin', 'smart', 'zfs'])),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/disks/list',
      description: 'Physical disks of the node, their health and what uses them (LVM, Ceph OSD…). Unused ones are free for a new storage.',
      parameters: { node: P.node, type: opt(str('Only disks of this kind, or unused ones.')) },
      returns: arr(DISK),
      permissions: { check: ['or', perm('/', ['Sys.Audit']), perm('/nodes/{node}', ['Sys.Audit'])] },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const type = optStr(ctx, 'type');
        return nodeDisks(state, node(ctx)).filter((d) => !type || (type === 'unused' ? !d.used : d.type === type));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/disks/smart',
      description: 'SMART health of one disk.',
      parameters: { node: P.node, disk: str('Device path of the disk, e.g. /dev/sda.') },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const d = nodeDisks(state, node(ctx)).find((x) => x.devpath === reqStr(ctx, 'disk'));
        if (!d) throw fail(`no such disk '${reqStr(ctx, 'disk')}'`);
        return d.type === 'nvme'
          ? { health: 'PASSED', type: 'text', text: `Critical Warning: 0x00\nTemperature: 38 Celsius\nPercentage Used: ${100 - Number(d.wearout)}%\n` }
          : { health: 'PASSED', type: 'ata', attributes: [{ id: '  9', name: 'Power_On_Hours', value: 99, worst: 99, threshold: 0, fail: '-', flags: '-O--CK', raw: '12034', normalized: 99 }] };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/disks/lvm',
      description: 'LVM volume groups of the node with their physical volumes.',
      parameters: { node: P.node },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        const size = 1920 * 10 ** 9;
        return { leaf: 0, children: [{ name: 'pve', size, free: Math.floor(size * 0.02), leaf: 0, children: [{ name: '/dev/nvme0n1p3', size, free: Math.floor(size * 0.02), leaf: 1 }] }] };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/disks/lvmthin',
      description: 'LVM thin pools of the node and how full they are (from the guest disks on them).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        return [...state.storages.values()]
          .filter((s) => s.type === 'lvmthin' && (!s.nodes || s.nodes.includes(n.name)))
          .map((s) => {
            const used = state.storageUsage().get(state.storageKey(s, n.name)) ?? 0;
            return {
              lv: String(s.props.thinpool ?? 'data'),
              vg: String(s.props.vgname ?? 'pve'),
              lv_size: s.total,
              used,
              metadata_size: (16 * GiB) / 1024,
              metadata_used: Math.floor(((16 * GiB) / 1024) * (used / s.total) * 0.5),
            };
          });
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/disks/directory',
      description: 'Directory storages mounted from whole disks (none on these nodes).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (node(ctx), []),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/disks/zfs',
      description: 'ZFS pools of the node: the mirrored boot pool.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (node(ctx), [zpool(node(ctx))]),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/disks/zfs/{name}',
      description: 'Status of one ZFS pool with its vdevs, and its health (ONLINE, DEGRADED…).',
      parameters: { node: P.node, name: str('Name of the object.', { format: 'pve-storage-id' }) },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const p = zpool(node(ctx));
        if (reqStr(ctx, 'name') !== p.name) throw fail(`zpool '${reqStr(ctx, 'name')}' not found`);
        return {
          name: p.name,
          state: 'ONLINE',
          errors: 'No known data errors',
          scan: 'scrub repaired 0B in 00:01:12 with 0 errors',
          children: [
            {
              name: p.name,
              state: 'ONLINE',
              read: 0,
              write: 0,
              cksum: 0,
              msg: '',
              children: [{ name: 'mirror-0', state: 'ONLINE', read: 0, write: 0, cksum: 0, msg: '', children: [{ name: 'nvme0n1p4', state: 'ONLINE', read: 0, write: 0, cksum: 0, msg: '' }] }],
            },
          ],
        };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/scan',
      description: 'Storage back ends the node can scan for (directory index).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) => (node(ctx), ['cifs', 'iscsi', 'lvm', 'lvmthin', 'nfs', 'pbs', 'zfs'].map((method) => ({ method }))),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/scan/nfs',
      description: 'Exports an NFS server offers (the storage server of the cluster answers).',
      parameters: { node: P.node, server: str('Address or host name of the server to scan.', { format: 'pve-storage-server' }) },
      returns: LIST,
      permissions: { check: perm('/storage', ['Datastore.Allocate']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        const server = reqStr(ctx, 'server');
        const nfs = [...state.storages.values()].filter((s) => s.type === 'nfs' && s.props.server === server);
        if (nfs.length === 0) throw fail(`command '/sbin/showmount --no-headers --exports ${server}' failed: exit code 1`);
        return nfs.map((s) => ({ path: String(s.props.export), options: '10.0.0.0/16' }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/scan/cifs',
      description: 'Shares an SMB server offers (the storage server of the cluster answers).',
      parameters: { node: P.node, server: str('Address or host name of the server to scan.', { format: 'pve-storage-server' }) },
      returns: LIST,
      permissions: { check: perm('/storage', ['Datastore.Allocate']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        const server = reqStr(ctx, 'server');
        if (![...state.storages.values()].some((s) => s.props.server === server)) throw fail(`unable to connect to ${server}: NT_STATUS_HOST_UNREACHABLE`);
        return [
          { share: 'backup', description: 'Backup share' },
          { share: 'iso', description: 'Install media' },
        ];
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/scan/pbs',
      description: 'Datastores of a Proxmox Backup Server (none is reachable from the simulated cluster).',
      parameters: {
        node: P.node,
        password: str('Password of the user on the Proxmox Backup Server.'),
        server: str('Address or host name of the server to scan.', { format: 'pve-storage-server' }),
        username: str('User to log in to the Proxmox Backup Server as, e.g. backup@pbs.'),
      },
      returns: LIST,
      permissions: { check: perm('/storage', ['Datastore.Allocate']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        throw fail(`error fetching datastores - 500 Can't connect to ${reqStr(ctx, 'server')}:8007 (Connection refused)`);
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/scan/iscsi',
      description: 'Targets an iSCSI portal offers (the storage server of the cluster answers).',
      parameters: { node: P.node, portal: str('iSCSI portal address to scan.', { format: 'pve-storage-portal-dns' }) },
      returns: LIST,
      permissions: { check: perm('/storage', ['Datastore.Allocate']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        const portal = reqStr(ctx, 'portal');
        const host = portal.replace(/:\d+$/, '');
        if (![...state.storages.values()].some((s) => s.props.server === host)) throw fail(`iSCSI discovery of ${portal} failed: no route to host`);
        return [{ target: 'iqn.2005-10.org.freenas.ctl:pve', portal: `${host}:3260` }];
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/scan/lvm',
      description: 'LVM volume groups on the node.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { check: perm('/storage', ['Datastore.Allocate']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (node(ctx), [{ vg: 'pve', size: 1920 * 10 ** 9, free: 38 * 10 ** 9 }]),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/scan/lvmthin',
      description: 'Thin pools in one volume group.',
      parameters: { node: P.node, vg: str('The vg asked for.', { maxLength: 100 }) },
      returns: LIST,
      permissions: { check: perm('/storage', ['Datastore.Allocate']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        const vg = reqStr(ctx, 'vg');
        return [...state.storages.values()].filter((s) => s.type === 'lvmthin' && s.props.vgname === vg).map((s) => ({ lv: String(s.props.thinpool), size: s.total }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/scan/zfs',
      description: 'ZFS pools on the node.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { check: perm('/storage', ['Datastore.Allocate']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => [{ pool: zpool(node(ctx)).name }],
    },
  ];
}
