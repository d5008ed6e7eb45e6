/**
 * A node's packages: the installed Proxmox packages with their versions (following the release
 * the simulator claims to run), their changelogs, pending updates and the APT repositories.
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { SimNode } from '../types.js';
import { reqStr } from './params.js';
import { LIST, OBJ, P, perm, str, TEXT } from './schema.js';

type Json = Record<string, unknown>;

export function nodePackageEndpoints(state: ClusterState): SimEndpoint[] {
  const node = (ctx: SimRequestContext): SimNode => state.node(reqStr(ctx, 'node'));
  const pkgs = (n: SimNode): Json[] => {
    const v = state.version.version;
    const list: Array<[string, string, string]> = [
      ['proxmox-ve', v.replace(/\.\d+$/, '.0'), 'The Proxmox Virtual Environment meta package'],
      ['pve-manager', v, 'The Proxmox management tools and web interface'],
      ['proxmox-kernel-helper', '9.0.4', 'Kernel version helpers'],
      [`proxmox-kernel-${n.kernel.replace(/-pve$/, '')}-pve-signed`, n.kernel.replace(/-pve$/, ''), 'The running Proxmox kernel'],
      ['qemu-server', '9.0.23', 'QEMU guest management'],
      ['pve-container', '6.0.13', 'Container management'],
      ['pve-qemu-kvm', '10.1.2-1', 'QEMU with the Proxmox patches'],
      ['lxc-pve', '6.0.5-1', 'Linux containers userspace'],
      ['libpve-storage-perl', '9.0.13', 'Storage library'],
      ['pve-ha-manager', '5.0.5', 'High availability manager'],
      ['pve-firewall', '6.0.3', 'Firewall'],
      ['ceph-common', '19.2.3-pve2', 'Ceph client tools'],
      ['zfsutils-linux', '2.3.4-pve1', 'ZFS command-line tools'],
    ];
    return list.map(([Package, Version, Description]) => ({
      Package,
      Version,
      Description,
      Title: Description,
      Arch: 'amd64',
      Origin: 'Proxmox',
      Priority: 'optional',
      Section: 'admin',
      CurrentState: 'Installed',
      ...(Package.startsWith('proxmox-kernel-') && Package.endsWith('signed') ? { RunningKernel: n.kernel } : {}),
      ...(Package === 'pve-manager' ? { ManagerVersion: v } : {}),
    }));
  };

  return [
    {
      method: 'GET',
      path: '/nodes/{node}/apt',
      description: 'Package management sections (directory index).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) => {
        node(ctx);
        return ['changelog', 'repositories', 'update', 'versions'].map((id) => ({ id }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/apt/update',
      description: 'Package updates available to install on a node (none pending in the simulation).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { check: perm('/nodes/{node}', ['Sys.Modify']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        return [];
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/apt/versions',
      description: 'Versions of the Proxmox VE packages installed on a node, the list `pveversion -v` prints.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      handler: (ctx) => pkgs(node(ctx)),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/apt/changelog',
      description: 'Changelog of an installed package.',
      parameters: { node: P.node, name: str('Name of the installed package.') },
      returns: TEXT,
      permissions: { check: perm('/nodes/{node}', ['Sys.Modify']) },
      proxyto: 'node',
      handler: (ctx) => {
        const p = pkgs(node(ctx)).find((x) => x.Package === reqStr(ctx, 'name'));
        if (!p) throw fail(`changelog of '${reqStr(ctx, 'name')}' not found: no such package installed`);
        return `${String(p.Package)} (${String(p.Version)}) trixie; urgency=medium\n\n  * update to version ${String(p.Version)}\n\n -- Proxmox Support Team <support@proxmox.com>  ${new Date(state.nowSec() * 1000 - 20 * 86400000).toUTCString()}\n`;
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/apt/repositories',
      description: 'APT repositories configured on the node and the standard ones it could add.',
      parameters: { node: P.node },
      returns: OBJ,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const repo = (uri: string, comps: string[], enabled: boolean) => ({ Types: ['deb'], URIs: [uri], Suites: ['trixie'], Components: comps, Enabled: enabled ? 1 : 0, FileType: 'sources' });
        const files = [
          { path: '/etc/apt/sources.list.d/debian.sources', 'file-type': 'sources', repositories: [repo('http://deb.debian.org/debian', ['main', 'contrib'], true)], digest: [1, 2, 3] },
          { path: '/etc/apt/sources.list.d/proxmox.sources', 'file-type': 'sources', repositories: [repo('http://download.proxmox.com/debian/pve', ['pve-no-subscription'], true)], digest: [4, 5, 6] },
        ];
        return {
          files,
          errors: [],
          digest: createHash('sha1').update(JSON.stringify(files)).digest('hex'),
          infos: [],
          'standard-repos': [
            { handle: 'enterprise', name: 'Enterprise', status: 0 },
            { handle: 'no-subscription', name: 'No-Subscription', status: 1 },
            { handle: 'test', name: 'Test' },
          ],
        };
      },
    },
  ];
}
