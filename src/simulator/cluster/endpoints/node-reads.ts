/**
 * What a node tells about itself beyond status, services and series: time, DNS, hosts,
 * subscription, the system report, certificates, node options, network connections, appliance
 * templates and OCI tags, backup defaults. Everything is derived from the node record, the
 * storages and the guests.
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { guestRuntime } from '../metrics.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { SimNode } from '../types.js';
import { optStr, reqStr } from './params.js';
import { ITEMS, LIST, OBJ, opt, P, perm, str, TEXT } from './schema.js';

type Json = Record<string, unknown>;

export function nodeReadEndpoints(state: ClusterState): SimEndpoint[] {
  const node = (ctx: SimRequestContext): SimNode => state.node(reqStr(ctx, 'node'));
  const index = (names: string[]) => names.map((name) => ({ name }));

  return [
    {
      method: 'GET',
      path: '/nodes/{node}/time',
      description: "The node's clock and time zone.",
      parameters: { node: P.node },
      returns: OBJ,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const time = state.nowSec();
        return { time, localtime: time + 3600, timezone: 'Europe/Vienna' };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/dns',
      description: 'Name servers and search domain the node resolves with.',
      parameters: { node: P.node },
      returns: OBJ,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        return { search: 'example.org', dns1: '10.0.0.1', dns2: '9.9.9.9' };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/hosts',
      description: "The node's /etc/hosts, with the digest to change it safely.",
      parameters: { node: P.node },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const data = ['127.0.0.1 localhost.localdomain localhost', ...[...state.nodes.values()].map((m) => `${m.ip} ${m.name}.example.org ${m.name}`), '', '::1 ip6-localhost ip6-loopback', ''].join(
          '\n',
        );
        void n;
        return { data, digest: createHash('sha1').update(data).digest('hex') };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/subscription',
      description: 'Subscription status of the node (the simulated nodes run without one).',
      parameters: { node: P.node },
      returns: OBJ,
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => {
        const n = node(ctx);
        return n.level
          ? {
              status: 'active',
              level: n.level,
              productname: 'Proxmox VE Community Subscription',
              sockets: n.sockets,
              serverid: n.sslFingerprint.replace(/:/g, '').slice(0, 32),
              checktime: state.nowSec() - 86400,
            }
          : { status: 'notfound', message: 'There is no subscription key', serverid: n.sslFingerprint.replace(/:/g, '').slice(0, 32), sockets: n.sockets };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/report',
      description: 'A system report of the node as text: versions, storage, network, guests.',
      parameters: { node: P.node },
      returns: TEXT,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const guests = state.guestsOn(n.name);
        return [
          `==== general system info ====`,
          `# hostname\n${n.name}`,
          `# pveversion --verbose\nproxmox-ve: ${state.version.version} (running kernel: ${n.kernel})\npve-manager: ${state.version.version} (running version: ${state.version.version}/${state.version.repoid})`,
          `==== storage ====`,
          `# pvesm status\n${[...state.storages.values()].map((s) => `${s.storage} ${s.type} ${s.disabled ? 'disabled' : 'active'}`).join('\n')}`,
          `==== network ====`,
          `# ip -details -statistics address\n${n.interfaces.map((i) => `${i.iface}: ${i.cidr ?? 'no address'}`).join('\n')}`,
          `==== virtual guests ====`,
          `# qm list / pct list\n${guests.map((g) => `${g.vmid} ${g.type} ${String(g.config.name ?? g.config.hostname ?? '')} ${g.status}`).join('\n')}`,
          '',
        ].join('\n\n');
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/certificates',
      description: 'Certificate sections (directory index).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) => (node(ctx), index(['acme', 'custom', 'info'])),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/certificates/acme',
      description: 'ACME certificate actions (directory index).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) => (node(ctx), index(['certificate'])),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/certificates/info',
      description: "The node's certificates: the cluster CA and the node certificate pveproxy serves.",
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => {
        const n = node(ctx);
        const boot = Math.floor(n.bootedAt / 1000) - 200 * 86400;
        return [
          {
            filename: 'pve-root-ca.pem',
            subject: '/CN=Proxmox Virtual Environment/OU=cluster/O=PVE Cluster Manager CA',
            issuer: '/CN=Proxmox Virtual Environment/OU=cluster/O=PVE Cluster Manager CA',
            notbefore: boot,
            notafter: boot + 3650 * 86400,
            'public-key-type': 'rsaEncryption',
            'public-key-bits': 4096,
            fingerprint: n.sslFingerprint.split(':').reverse().join(':'),
          },
          {
            filename: 'pve-ssl.pem',
            subject: `/OU=PVE Cluster Node/O=Proxmox Virtual Environment/CN=${n.name}.example.org`,
            issuer: '/CN=Proxmox Virtual Environment/OU=cluster/O=PVE Cluster Manager CA',
            notbefore: boot,
            notafter: boot + 730 * 86400,
            'public-key-type': 'rsaEncryption',
            'public-key-bits': 2048,
            fingerprint: n.sslFingerprint,
            san: ['127.0.0.1', '0:0:0:0:0:0:0:1', 'localhost', n.ip, n.name, `${n.name}.example.org`],
          },
        ];
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/config',
      description: 'Node options (description, wake-on-LAN, start-up delay) with their digest.',
      parameters: { node: P.node },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      proxyto: 'node',
      handler: (ctx) => {
        const n = node(ctx);
        const cfg = { description: `Rack A, unit ${n.nodeid * 2}`, 'startall-onboot-delay': 0 };
        return { ...cfg, digest: createHash('sha1').update(JSON.stringify(cfg)).digest('hex') };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/netstat',
      description: "Network traffic counters of the running guests' interfaces on the node.",
      parameters: { node: P.node },
      returns: LIST,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      handler: (ctx) => {
        const n = node(ctx);
        const out: Json[] = [];
        for (const g of state.guestsOn(n.name)) {
          if (g.status !== 'running') continue;
          const rt = guestRuntime(g, n, state.now());
          for (const key of Object.keys(g.config).filter((k) => /^net\d+$/.test(k))) {
            out.push({ vmid: String(g.vmid), dev: `${g.type === 'qemu' ? 'tap' : 'veth'}${g.vmid}i${key.slice(3)}`, in: String(rt.netout), out: String(rt.netin) });
          }
        }
        return out;
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/aplinfo',
      description: 'Appliance templates the node can download for containers.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        return [
          ['debian-13-standard_13.1-2_amd64.tar.zst', 'debian-13-standard', 'Debian 13 (standard)', 'system'],
          ['ubuntu-24.04-standard_24.04-2_amd64.tar.zst', 'ubuntu-24.04-standard', 'Ubuntu 24.04 (standard)', 'system'],
          ['alpine-3.22-default_20250617_amd64.tar.xz', 'alpine-3.22-default', 'Alpine Linux 3.22', 'system'],
        ].map(([template, pkg, headline, section]) => ({
          template,
          package: pkg,
          headline,
          section,
          type: 'lxc',
          os: String(pkg).split('-')[0],
          version: String(template).split('_')[1],
          location: `http://download.proxmox.com/images/system/${template}`,
          source: 'http://download.proxmox.com/images/system',
          infopage: 'https://www.proxmox.com',
          sha512sum: createHash('sha512').update(String(template)).digest('hex'),
          maintainer: 'Proxmox Support Team <support@proxmox.com>',
          description: `${headline} template`,
        }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/query-oci-repo-tags',
      description: 'Tags of an OCI image repository (from a fixed list; nothing is fetched).',
      parameters: { node: P.node, reference: str('Image repository reference, e.g. docker.io/library/alpine.') },
      returns: ITEMS,
      permissions: { check: perm('/nodes/{node}', ['Sys.AccessNetwork']) },
      proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const ref = reqStr(ctx, 'reference');
        const host = ref.split('/')[0] ?? '';
        if (/\.(invalid|test|example|local)$/.test(host)) throw fail(`failed to query tags of '${ref}': Name or service not known`);
        return ['latest', 'stable', 'trixie', 'bookworm', '13', '12'];
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/vzdump/defaults',
      description: "The backup options a vzdump on this node starts from (node defaults and a storage's retention).",
      parameters: { node: P.node, storage: opt(str('Storage whose retention to include.', { format: 'pve-storage-id' })) },
      returns: OBJ,
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const storage = optStr(ctx, 'storage');
        const s = storage ? state.storages.get(storage) : undefined;
        if (storage && !s) throw fail(`storage '${storage}' does not exist`);
        return {
          mode: 'snapshot',
          compress: 'zstd',
          ionice: 7,
          lockwait: 180,
          stopwait: 10,
          ...(storage ? { 'notes-template': '{{guestname}}' } : {}),
          ...(s?.props['prune-backups'] ? { 'prune-backups': String(s.props['prune-backups']) } : {}),
          ...(storage ? { storage } : {}),
        };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/vzdump/extractconfig',
      description: 'Read the guest configuration saved inside a backup archive, as text.',
      parameters: { node: P.node, volume: str('Volume ID of the backup archive.') },
      returns: TEXT,
      permissions: { user: 'all' },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        const volid = reqStr(ctx, 'volume');
        const v = state.volumes.find((x) => x.volid === volid && x.content === 'backup');
        if (!v) throw fail(`volume '${volid}' does not exist`);
        const cfg = v.config ?? (v.vmid !== undefined ? state.guests.get(v.vmid)?.config : undefined) ?? {};
        return `${Object.entries(cfg)
          .map(([k, val]) => `${k}: ${String(val)}`)
          .join('\n')}\n`;
      },
    },
  ];
}
