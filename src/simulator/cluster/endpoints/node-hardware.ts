/**
 * What a node's hardware looks like from the API: QEMU capabilities (CPU models and flags,
 * machine types, migration), PCI devices with their mediated devices, and USB devices. Its disks
 * and storage scans are node-disks.ts.
 */
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { SimNode } from '../types.js';
import { reqStr } from './params.js';
import { LIST, OBJ, P, perm, str } from './schema.js';

type Json = Record<string, unknown>;

export function nodeHardwareEndpoints(state: ClusterState): SimEndpoint[] {
  const node = (ctx: SimRequestContext): SimNode => state.node(reqStr(ctx, 'node'));
  const index = (names: string[]) => names.map((name) => ({ name }));
  return [
    {
      method: 'GET',
      path: '/nodes/{node}/capabilities',
      description: 'What the node can do (directory index).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => (node(ctx), index(['qemu'])),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/capabilities/qemu',
      description: 'QEMU capabilities of the node (directory index).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => (node(ctx), index(['cpu', 'cpu-flags', 'machines', 'migration'])),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/capabilities/qemu/cpu',
      description: 'CPU models guests on this node can use.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) => {
        const n = node(ctx);
        const vendor = /AMD/.test(n.cpuModel) ? 'AuthenticAMD' : 'GenuineIntel';
        return [
          { name: 'host', vendor, custom: 0 },
          { name: 'kvm64', vendor: 'default', custom: 0 },
          { name: 'qemu64', vendor: 'default', custom: 0 },
          { name: 'x86-64-v2-AES', vendor: 'default', custom: 0 },
          { name: 'x86-64-v3', vendor: 'default', custom: 0 },
          { name: 'x86-64-v4', vendor: 'default', custom: 0 },
          ...(vendor === 'AuthenticAMD' ? [{ name: 'EPYC-Genoa', vendor, custom: 0 }] : [{ name: 'SapphireRapids', vendor, custom: 0 }]),
        ];
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/capabilities/qemu/cpu-flags',
      description: 'CPU flags guests may switch on or off on this node.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) => {
        node(ctx);
        return [
          ['aes', 'Hardware AES'],
          ['md-clear', 'Speculation mitigation buffer clearing'],
          ['pcid', 'Process-context identifiers'],
          ['pdpe1gb', '1 GiB pages'],
          ['spec-ctrl', 'Speculation control'],
          ['ssbd', 'Speculative store bypass disable'],
        ].map(([name, description]) => ({ name, description }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/capabilities/qemu/machines',
      description: 'Machine types guests on this node can use.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const out: Json[] = [];
        for (const v of ['10.1', '10.0', '9.2']) {
          out.push({ id: `pc-q35-${v}`, type: 'q35', version: v }, { id: `pc-i440fx-${v}`, type: 'i440fx', version: v });
          out.push({ id: `pc-q35-${v}+pve1`, type: 'q35', version: `${v}+pve1`, changes: 'a fixed device order' });
        }
        return out;
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/capabilities/qemu/migration',
      description: "Migration features of the node's QEMU.",
      parameters: { node: P.node },
      returns: OBJ,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      handler: (ctx) => (node(ctx), { 'has-dbus-vmstate': 1 }),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/hardware',
      description: 'Hardware of the node (directory index).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) => (node(ctx), [{ type: 'pci' }, { type: 'usb' }]),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/hardware/pci',
      description: 'PCI devices of the node, as guests could be given them.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit', 'Sys.Modify'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => pciDevices(node(ctx)),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/hardware/pci/{pci-id-or-mapping}',
      description: 'One PCI device (directory index).',
      parameters: { node: P.node, 'pci-id-or-mapping': str('The pci id or mapping asked for.') },
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) => {
        const n = node(ctx);
        const id = reqStr(ctx, 'pci-id-or-mapping');
        if (!pciDevices(n).some((d) => d.id === id || String(d.id).startsWith(`${id}.`))) throw fail(`PCI device '${id}' not found`);
        return [{ method: 'mdev' }];
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/hardware/pci/{pci-id-or-mapping}/mdev',
      description: 'Mediated device types a PCI device offers (the GPU offers vGPU profiles).',
      parameters: { node: P.node, 'pci-id-or-mapping': str('The pci id or mapping asked for.') },
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit', 'Sys.Modify'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const id = reqStr(ctx, 'pci-id-or-mapping');
        const dev = pciDevices(n).find((d) => d.id === id || String(d.id).startsWith(`${id}.`));
        if (!dev) throw fail(`PCI device '${id}' not found`);
        if (!dev.mdev) return [];
        return [1, 2, 4].map((q) => ({ type: `nvidia-${560 + q}`, name: `A16-${16 / q}Q`, available: q * 2, description: `num_heads=4, frl_config=60, framebuffer=${16 / q}G` }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/hardware/usb',
      description: 'USB devices plugged into the node.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Modify']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        return [
          { busnum: 1, devnum: 2, port: 1, level: 1, class: 0, vendid: '0557', prodid: '2419', manufacturer: 'ATEN', product: 'Virtual Keyboard and Mouse', speed: '12', usbpath: '1-1' },
          {
            busnum: 2,
            devnum: 3,
            port: 4,
            level: 1,
            class: 0,
            vendid: '0781',
            prodid: '5583',
            manufacturer: 'SanDisk',
            product: 'Ultra Fit',
            serial: '4C530001171011116264',
            speed: '5000',
            usbpath: '2-4',
          },
        ];
      },
    },
  ];
}

function pciDevices(n: SimNode): Json[] {
  const gpu = n.nodeid % 3 === 1;
  return [
    {
      id: '0000:00:00.0',
      class: '0x060000',
      vendor: '0x8086',
      device: '0x09a2',
      vendor_name: 'Intel Corporation',
      device_name: 'Ice Lake Memory Map/VT-d',
      iommugroup: 0,
      subsystem_vendor: '0x8086',
      subsystem_device: '0x0000',
    },
    {
      id: '0000:17:00.0',
      class: '0x020000',
      vendor: '0x8086',
      device: '0x1593',
      vendor_name: 'Intel Corporation',
      device_name: 'Ethernet Controller E810-C for SFP',
      iommugroup: 14,
      subsystem_vendor: '0x8086',
      subsystem_device: '0x0002',
    },
    {
      id: '0000:17:00.1',
      class: '0x020000',
      vendor: '0x8086',
      device: '0x1593',
      vendor_name: 'Intel Corporation',
      device_name: 'Ethernet Controller E810-C for SFP',
      iommugroup: 15,
      subsystem_vendor: '0x8086',
      subsystem_device: '0x0002',
    },
    { id: '0000:65:00.0', class: '0x010802', vendor: '0x144d', device: '0xa80a', vendor_name: 'Samsung Electronics Co Ltd', device_name: 'NVMe SSD Controller PM9A1/PM9A3/980PRO', iommugroup: 30 },
    ...(gpu ? [{ id: '0000:ca:00.0', class: '0x030200', vendor: '0x10de', device: '0x25b6', vendor_name: 'NVIDIA Corporation', device_name: 'GA107GL [A2 / A16]', iommugroup: 42, mdev: 1 }] : []),
  ];
}
