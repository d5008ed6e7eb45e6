/**
 * Node-level endpoints: `/version`, `/nodes`, a node's index, status (read, reboot, shutdown),
 * version and network interfaces.
 */
import type { SimEndpoint } from '../../contract.js';
import { powerOff, powerOn } from '../guest-ops.js';
import { shownInterfaces } from '../network-stage.js';
import type { ClusterState } from '../state.js';
import type { NodeInterface, SimNode } from '../types.js';
import { optStr, reqStr } from './params.js';
import { arr, bool, int, num, NULL, obj, opt, P, perm, str } from './schema.js';

type Json = Record<string, unknown>;

const GiB = 1024 ** 3;

const VERSION_PROPS = {
  version: str('Full version of the pve-manager package.'),
  release: str('Major.minor release.'),
  repoid: str('Short commit ID the package was built from.', { pattern: '[0-9a-fA-F]{8,64}' }),
};

function pveversion(state: ClusterState): string {
  return `pve-manager/${state.version.version}/${state.version.repoid}`;
}

function interfaceView(i: NodeInterface): Json {
  const out: Json = { ...i };
  if (i.type === 'eth') out.exists = 1;
  return out;
}

/** The network-list `type` filter: a concrete type, or one of the bridge groupings. */
function matchesType(i: NodeInterface, type: string | undefined): boolean {
  if (type === undefined) return true;
  if (type === 'any_bridge' || type === 'any_local_bridge') return i.type === 'bridge';
  return i.type === type;
}

export function nodeEndpoints(state: ClusterState): SimEndpoint[] {
  const nodeStats = (n: SimNode, runtime: ReturnType<ClusterState['nodeRuntimes']>): Json => {
    const rt = runtime.get(n.name);
    const out: Json = { node: n.name, id: `node/${n.name}`, type: 'node', status: n.online ? 'online' : 'offline', level: n.level };
    if (!n.online || !rt) return out;
    return {
      ...out,
      cpu: rt.cpu,
      maxcpu: n.maxcpu,
      mem: rt.mem,
      maxmem: n.maxmem,
      disk: rt.rootfsUsed,
      maxdisk: n.rootfsTotal,
      uptime: rt.uptime,
      ssl_fingerprint: n.sslFingerprint,
    };
  };

  return [
    {
      method: 'GET',
      path: '/version',
      description: 'The Proxmox VE version of the node answering the request.',
      parameters: {},
      returns: obj({ ...VERSION_PROPS, console: opt(str('Default console viewer, when configured.', { enum: ['applet', 'vv', 'html5', 'xtermjs'] })) }),
      permissions: { user: 'all' },
      handler: () => ({ ...state.version }),
    },
    {
      method: 'GET',
      path: '/nodes',
      description: 'The nodes of the cluster, each online or offline, with load figures for callers with Sys.Audit on it.',
      parameters: {},
      returns: arr(
        obj({
          node: str('Node name.', { format: 'pve-node' }),
          status: str('Membership state.', { enum: ['unknown', 'online', 'offline'] }),
          cpu: opt(num('CPU load as a fraction of all cores.')),
          maxcpu: opt(int('Logical CPU count.')),
          mem: opt(int('Memory in use, bytes.')),
          maxmem: opt(int('Installed memory, bytes.')),
          uptime: opt(int('Seconds since boot.')),
          level: opt(str('Subscription level (empty without subscription).')),
          ssl_fingerprint: opt(str('SHA-256 fingerprint of the node certificate.')),
        }),
        { links: [{ rel: 'child', href: '{node}' }] },
      ),
      permissions: { user: 'all' },
      handler: (ctx) => {
        const runtime = state.nodeRuntimes();
        return [...state.nodes.values()].map((n) => {
          const full = nodeStats(n, runtime);
          if (ctx.hasPriv(`/nodes/${n.name}`, 'Sys.Audit')) return full;
          return { node: n.name, id: full.id, type: 'node', status: full.status };
        });
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}',
      description: 'Sub-paths of a node (directory index).',
      parameters: { node: P.node },
      returns: arr(obj({}), { links: [{ rel: 'child', href: '{name}' }] }),
      permissions: { user: 'all' },
      handler: (ctx) => {
        state.node(reqStr(ctx, 'node'));
        return ['lxc', 'migrateall', 'network', 'qemu', 'query-url-metadata', 'startall', 'status', 'stopall', 'storage', 'suspendall', 'tasks', 'version', 'vzdump'].map((name) => ({ name }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/version',
      description: 'The Proxmox VE version running on a node: version, release and build.',
      parameters: { node: P.node },
      returns: obj(VERSION_PROPS),
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => {
        state.node(reqStr(ctx, 'node'));
        return { ...state.version };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/status',
      description: 'Status of one node: CPU, memory, load average, uptime, hardware and versions.',
      parameters: { node: P.node },
      returns: obj(
        {
          cpu: num('CPU load as a fraction of all cores.'),
          cpuinfo: obj({ model: str('CPU model name.'), cores: int('Cores per socket.'), cpus: int('Logical CPUs.'), sockets: int('CPU sockets.') }),
          memory: obj({ total: int('Bytes installed.'), used: int('Bytes in use.'), free: int('Bytes free.'), available: int('Bytes available for new work.') }),
          rootfs: obj({ total: int('Bytes.'), used: int('Bytes.'), free: int('Bytes.'), avail: int('Bytes.') }),
          loadavg: arr(str('Load average value.')),
          'current-kernel': obj({ sysname: str('Kernel name.'), release: str('Kernel release.'), version: str('Build string.'), machine: str('Hardware architecture.') }),
          'boot-info': obj({ mode: str('Firmware boot mode.', { enum: ['efi', 'legacy-bios'] }), secureboot: opt(bool('Secure boot active.')) }),
          pveversion: str('pve-manager version string.'),
        },
        { additionalProperties: 1 },
      ),
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      handler: (ctx) => {
        const n = state.node(reqStr(ctx, 'node'));
        const rt = state.nodeRuntimes().get(n.name);
        const cpu = rt?.cpu ?? 0;
        const mem = rt?.mem ?? 0;
        const rootUsed = rt?.rootfsUsed ?? 0;
        const load = (f: number): string => (cpu * n.maxcpu * f).toFixed(2);
        return {
          cpu,
          wait: 0.0012,
          idle: 0,
          uptime: rt?.uptime ?? 0,
          loadavg: [load(1), load(0.95), load(0.9)],
          cpuinfo: {
            model: n.cpuModel,
            cores: n.maxcpu / n.sockets / 2,
            cpus: n.maxcpu,
            sockets: n.sockets,
            mhz: '2999.998',
            hvm: '1',
            flags: 'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov',
            user_hz: 100,
          },
          memory: { total: n.maxmem, used: mem, free: n.maxmem - mem, available: n.maxmem - mem },
          swap: { total: 8 * GiB, used: 0, free: 8 * GiB },
          rootfs: { total: n.rootfsTotal, used: rootUsed, free: n.rootfsTotal - rootUsed, avail: n.rootfsTotal - rootUsed },
          ksm: { shared: 0 },
          kversion: `Linux ${n.kernel} #1 SMP PREEMPT_DYNAMIC PMX ${n.kernel} x86_64`,
          'current-kernel': { sysname: 'Linux', release: n.kernel, version: `#1 SMP PREEMPT_DYNAMIC PMX ${n.kernel}`, machine: 'x86_64' },
          'boot-info': { mode: 'efi', secureboot: 0 },
          pveversion: pveversion(state),
        };
      },
    },
    {
      method: 'POST',
      path: '/nodes/{node}/status',
      description: 'Reboot or power off a node. Guests on it stop; on reboot those marked onboot start again.',
      parameters: { node: P.node, command: str('What to do with the node.', { enum: ['reboot', 'shutdown'] }) },
      returns: NULL,
      permissions: { check: perm('/nodes/{node}', ['Sys.PowerMgmt']) },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const n = state.node(reqStr(ctx, 'node'));
        const command = reqStr(ctx, 'command');
        for (const g of state.guestsOn(n.name)) if (g.status === 'running') powerOff(g);
        if (command === 'shutdown') {
          n.online = false;
          return null;
        }
        n.bootedAt = state.now();
        for (const g of state.guestsOn(n.name)) if (g.config.onboot) powerOn(state, g);
        return null;
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/network',
      description: 'Network interfaces configured on a node, optionally of one type.',
      parameters: {
        node: P.node,
        type: opt(
          str('Only interfaces of this kind (any_bridge matches every bridge).', {
            enum: ['bridge', 'bond', 'eth', 'alias', 'vlan', 'fabric', 'OVSBridge', 'OVSBond', 'OVSPort', 'OVSIntPort', 'vnet', 'any_bridge', 'any_local_bridge', 'include_sdn'],
          }),
        ),
      },
      returns: arr(
        obj({
          iface: str('Interface name.', { format: 'pve-iface' }),
          type: str('Interface kind.'),
          active: opt(bool('Interface is up.')),
          autostart: opt(bool('Brought up at boot.')),
          method: opt(str('IPv4 configuration method.')),
          method6: opt(str('IPv6 configuration method.')),
          address: opt(str('IPv4 address.', { format: 'ipv4' })),
          cidr: opt(str('IPv4 address with prefix length.', { format: 'CIDRv4' })),
          gateway: opt(str('IPv4 default gateway.', { format: 'ipv4' })),
          bridge_ports: opt(str('Ports enslaved to the bridge.', { format: 'pve-iface-list' })),
          bridge_vlan_aware: opt(bool('Bridge filters VLANs.')),
          comments: opt(str('Free-form comment.')),
        }),
        { links: [{ rel: 'child', href: '{iface}' }] },
      ),
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => {
        const n = state.node(reqStr(ctx, 'node'));
        const type = optStr(ctx, 'type');
        return shownInterfaces(state, n)
          .filter((i) => matchesType(i, type))
          .map(interfaceView);
      },
    },
  ];
}
