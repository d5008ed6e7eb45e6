/**
 * Cluster-wide reads beyond the inventory: the corosync configuration, the cluster log, metric
 * servers and the metrics export, notification targets and matchers, resource mappings, HA
 * manager status, what a backup job includes, ACME, scheduled-job analysis, storage definitions
 * and series, and a guest's series, features and agent views. Secrets (tokens, passwords, keys)
 * are never part of an answer, as on PVE.
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { diskEntries } from '../guest-config.js';
import { guestRuntime } from '../metrics.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { Guest } from '../types.js';
import { haSid } from '../views.js';
import { optStr, reqInt, reqStr } from './params.js';
import { arr, int, INTEGER, LIST, obj, OBJ, opt, P, perm, str, TEXT } from './schema.js';

type Json = Record<string, unknown>;

const digestOf = (v: unknown): string => createHash('sha1').update(JSON.stringify(v)).digest('hex');

interface Extras {
  metrics: Json[];
  sendmail: Json[];
  gotify: Json[];
  smtp: Json[];
  webhook: Json[];
  matchers: Json[];
  pci: Json[];
  usb: Json[];
  dir: Json[];
  acmeAccounts: Json[];
  acmePlugins: Json[];
}

function extrasOf(state: ClusterState): Extras {
  return state.area('cluster-extras', () => {
    const nodes = [...state.nodes.values()];
    const gpuNodes = nodes.filter((n) => n.nodeid % 3 === 1 || nodes.length === 1);
    return {
      metrics: [{ id: 'influx', type: 'influxdb', server: '10.0.0.60', port: 8086, influxdbproto: 'https', organization: 'ops', bucket: 'proxmox', disable: 0 }],
      sendmail: [{ name: 'mail-to-root', 'mailto-user': ['root@pam'], comment: 'Send mails to root@pam\'s email address', origin: 'builtin' }],
      gotify: [{ name: 'gotify-ops', server: 'https://gotify.example.org', comment: 'Operations phone alerts', origin: 'user-created' }],
      smtp: [{ name: 'smtp-relay', server: 'mail.example.org', port: 587, mode: 'starttls', 'from-address': 'pve@example.org', mailto: ['ops@example.org'], username: 'pve', comment: 'Company relay', origin: 'user-created' }],
      webhook: [{ name: 'chat', method: 'post', url: 'https://chat.example.org/hooks/{{ secrets.channel }}', header: ['name=Content-Type,value=YXBwbGljYXRpb24vanNvbg=='], secret: ['name=channel'], body: 'eyJ0ZXh0IjogInt7IHRpdGxlIH19In0=', origin: 'user-created' }],
      matchers: [
        { name: 'default-matcher', target: ['mail-to-root'], comment: 'Route all notifications to mail-to-root', origin: 'builtin', mode: 'all' },
        { name: 'backup-failures', 'match-field': ['exact:type=vzdump'], 'match-severity': ['error'], target: ['gotify-ops', 'chat'], mode: 'all', origin: 'user-created' },
      ],
      pci: [{ id: 'gpu', description: 'vGPU for the desktop guests', map: gpuNodes.map((n) => `node=${n.name},path=0000:ca:00.0,id=10de:25b6,iommugroup=42`), mdev: 1 }],
      usb: [{ id: 'license-dongle', description: 'Licence key for the build servers', map: nodes.slice(0, 1).map((n) => `node=${n.name},id=0781:5583`) }],
      dir: [{ id: 'shared-data', description: 'Shared data for virtiofs', map: nodes.map((n) => `node=${n.name},path=/mnt/pve/nas/shared`) }],
      acmeAccounts: [{ name: 'default', directory: 'https://acme-v02.api.letsencrypt.org/directory', location: 'https://acme-v02.api.letsencrypt.org/acme/acct/123456789', tos: 'https://letsencrypt.org/documents/LE-SA-v1.5-February-24-2025.pdf', account: { status: 'valid', contact: ['mailto:ops@example.org'], createdAt: '2025-03-01T10:00:00Z' } }],
      acmePlugins: [
        { plugin: 'standalone', type: 'standalone' },
        { plugin: 'cloudflare', type: 'dns', api: 'cf', 'validation-delay': 30 },
      ],
    };
  });
}

/** Backup-job selection: which guests and which of their disks a job includes. */
function includedVolumes(state: ClusterState, job: Json): Json {
  const vmids = job.vmid ? String(job.vmid).split(',').map(Number) : undefined;
  const exclude = new Set(String(job.exclude ?? '').split(',').filter(Boolean).map(Number));
  const selected = state.allGuests().filter((g) => {
    if (vmids) return vmids.includes(g.vmid);
    if (job.pool) return g.pool === job.pool;
    return job.all ? !exclude.has(g.vmid) : false;
  });
  return {
    children: selected.map((g) => ({
      id: g.vmid,
      name: String(g.config.name ?? g.config.hostname ?? ''),
      type: g.type,
      children: diskEntries(g.type, g.config).map((d) => {
        const excluded = /(^|,)backup=0/.test(String(g.config[d.key] ?? ''));
        return { id: d.key, name: d.volid ?? d.key, included: excluded ? 0 : 1, reason: excluded ? 'disabled' : 'enabled' };
      }),
    })),
  };
}

/** The next times a calendar event fires (hh:mm, day lists and ranges, `daily`, `hourly`). */
function nextRuns(schedule: string, fromSec: number, count: number): number[] {
  const s = schedule.trim().toLowerCase();
  const days = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
  let dayOk: (d: number) => boolean = () => true;
  let times: Array<[number, number]> = [[0, 0]];
  const m = /^(?:([a-z.,]+)\s+)?(\d{1,2}):(\d{2})$/.exec(s);
  if (s === 'hourly') times = Array.from({ length: 24 }, (_, h) => [h, 0]);
  else if (s === 'daily') times = [[0, 0]];
  else if (m) {
    times = [[Number(m[2]), Number(m[3])]];
    if (m[1]) {
      const allowed = new Set<number>();
      for (const part of m[1].split(',')) {
        const [a, b] = part.split('..').map((x) => days.indexOf(x));
        if (a === undefined || a < 0) throw fail(`unable to parse calendar event '${schedule}'`);
        for (let d = a; d <= (b !== undefined && b >= 0 ? b : a); d++) allowed.add(d);
      }
      dayOk = (d) => allowed.has(d);
    }
  } else if (!/^\*|^\d/.test(s)) throw fail(`unable to parse calendar event '${schedule}'`);
  const out: number[] = [];
  for (let day = Math.floor(fromSec / 86400); out.length < count && day < Math.floor(fromSec / 86400) + 400; day++) {
    if (!dayOk(new Date(day * 86400000).getUTCDay())) continue;
    for (const [h, min] of times) {
      const t = day * 86400 + h * 3600 + min * 60;
      if (t > fromSec && out.length < count) out.push(t);
    }
  }
  return out;
}

export function clusterReadEndpoints(state: ClusterState): SimEndpoint[] {
  const x = () => extrasOf(state);
  const nodes = () => [...state.nodes.values()];
  const named = (items: Json[], ctx: SimRequestContext, key = 'name', what = 'object'): Json => {
    const id = reqStr(ctx, key === 'plugin' ? 'id' : key === 'id' ? 'id' : 'name');
    const found = items.find((i) => i[key] === id);
    if (!found) throw fail(`${what} '${id}' does not exist`);
    const { origin: _o, ...rest } = found;
    return { ...rest, digest: digestOf(found) };
  };
  const totem = () => ({ version: 2, cluster_name: state.clusterName, config_version: nodes().length + 2, ip_version: 'ipv4-6', secauth: 'on', link_mode: 'passive', interface: { 0: { linknumber: 0 } } });
  return [
    {
      method: 'GET', path: '/cluster',
      description: 'Cluster-wide sections (directory index).',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => ['acme', 'backup', 'backup-info', 'bulk-action', 'ceph', 'config', 'firewall', 'ha', 'jobs', 'log', 'mapping', 'metrics', 'nextid', 'notifications', 'options', 'replication', 'resources', 'sdn', 'status', 'tasks'].map((name) => ({ name })),
    },
    {
      method: 'GET', path: '/cluster/config',
      description: 'Cluster configuration sections (directory index).',
      parameters: {}, returns: LIST, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => ['apiversion', 'join', 'nodes', 'qdevice', 'totem'].map((name) => ({ name })),
    },
    {
      method: 'GET', path: '/cluster/config/apiversion',
      description: 'Version of the cluster join API this node speaks.',
      parameters: {}, returns: INTEGER, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => 1,
    },
    {
      method: 'GET', path: '/cluster/config/nodes',
      description: 'Nodes in the corosync configuration with their votes and ring addresses.',
      parameters: {}, returns: LIST, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => (state.clusterName ? nodes().map((n) => ({ node: n.name, name: n.name, nodeid: String(n.nodeid), quorum_votes: '1', ring0_addr: n.ip })) : []),
    },
    {
      method: 'GET', path: '/cluster/config/join',
      description: 'What a new node needs to join: node list with fingerprints, totem settings, config digest.',
      parameters: {}, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => {
        if (!state.clusterName) throw fail('node is not in a cluster, no join info available!');
        const nodelist = nodes().map((n) => ({ name: n.name, nodeid: String(n.nodeid), pve_addr: n.ip, pve_fp: n.sslFingerprint, quorum_votes: '1', ring0_addr: n.ip }));
        return { nodelist, preferred_node: nodes()[0]?.name, totem: totem(), config_digest: digestOf(nodelist) };
      },
    },
    {
      method: 'GET', path: '/cluster/config/totem',
      description: 'The corosync totem settings.',
      parameters: {}, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => (state.clusterName ? totem() : {}),
    },
    {
      method: 'GET', path: '/cluster/config/qdevice',
      description: 'Status of the external quorum device (none configured).',
      parameters: {}, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) }, protected: true,
      handler: () => ({}),
    },
    {
      method: 'GET', path: '/cluster/log',
      description: 'Recent entries of the cluster log: task starts and ends on every node, newest first.',
      parameters: { max: opt(int('Entries to return at most.')) }, returns: LIST, permissions: { user: 'all' },
      handler: (ctx) => {
        const max = Number(ctx.params.max ?? 50);
        return state.tasks.listAll().slice(0, max).map((t, i) => ({ uid: i + 1, time: t.endtime ?? t.starttime, node: t.node, pid: t.pid, user: t.user, tag: 'pvedaemon', pri: t.exitstatus && t.exitstatus !== 'OK' ? 3 : 6, msg: `${t.endtime !== undefined ? 'end' : 'starting'} task ${t.upid}${t.exitstatus ? ` ${t.exitstatus}` : ''}`, id: `${t.node}:${t.pid}` }));
      },
    },
    {
      method: 'GET', path: '/cluster/metrics',
      description: 'Metric export sections (directory index).',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => [{ name: 'export' }, { name: 'server' }],
    },
    {
      method: 'GET', path: '/cluster/metrics/server',
      description: 'External metric servers the nodes send their figures to.',
      parameters: {}, returns: LIST, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => x().metrics.map((m) => ({ id: m.id, type: m.type, server: m.server, port: m.port, disable: m.disable })),
    },
    {
      method: 'GET', path: '/cluster/metrics/server/{id}',
      description: 'One metric server (its token is not shown).',
      parameters: { id: str('Identifier of the object.', { format: 'pve-configid' }) }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: (ctx) => named(x().metrics, ctx, 'id', 'metric server'),
    },
    {
      method: 'GET', path: '/cluster/metrics/export',
      description: 'Current figures of every node, guest and storage in one list, as a metric server would receive them.',
      parameters: {}, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => {
        const snap = state.runtimeSnapshot();
        const ts = state.nowSec();
        const data: Json[] = [];
        for (const [name, rt] of snap.nodes) {
          data.push({ id: `node/${name}`, metric: 'cpu_current', timestamp: ts, type: 'gauge', value: rt.cpu }, { id: `node/${name}`, metric: 'mem_used', timestamp: ts, type: 'gauge', value: rt.mem });
        }
        for (const [vmid, rt] of snap.guests) {
          const g = state.guests.get(vmid) as Guest;
          const id = `${g.type}/${vmid}`;
          data.push({ id, metric: 'cpu_current', timestamp: ts, type: 'gauge', value: rt.cpu }, { id, metric: 'mem', timestamp: ts, type: 'gauge', value: rt.mem }, { id, metric: 'netin', timestamp: ts, type: 'derive', value: rt.netin });
        }
        return { data };
      },
    },
    {
      method: 'GET', path: '/cluster/notifications',
      description: 'Notification sections (directory index).',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => ['endpoints', 'matcher-field-values', 'matcher-fields', 'matchers', 'targets'].map((name) => ({ name })),
    },
    {
      method: 'GET', path: '/cluster/notifications/endpoints',
      description: 'Notification endpoint types (directory index).',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => ['gotify', 'sendmail', 'smtp', 'webhook'].map((name) => ({ name })),
    },
    {
      method: 'GET', path: '/cluster/notifications/endpoints/sendmail',
      description: 'Sendmail endpoints: mail through the local mail system.',
      parameters: {}, returns: LIST, permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] }, protected: true,
      handler: () => x().sendmail.map((e) => ({ ...e })),
    },
    {
      method: 'GET', path: '/cluster/notifications/endpoints/sendmail/{name}',
      description: 'One sendmail endpoint.',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) }, returns: OBJ, permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] }, protected: true,
      handler: (ctx) => named(x().sendmail, ctx, 'name', 'endpoint'),
    },
    {
      method: 'GET', path: '/cluster/notifications/endpoints/gotify',
      description: 'Gotify endpoints (their tokens are not shown).',
      parameters: {}, returns: LIST, permissions: { check: perm('/mapping/notifications', ['Mapping.Audit']) }, protected: true,
      handler: () => x().gotify.map((e) => ({ ...e })),
    },
    {
      method: 'GET', path: '/cluster/notifications/endpoints/gotify/{name}',
      description: 'One Gotify endpoint (its token is not shown).',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) }, returns: OBJ, permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] }, protected: true,
      handler: (ctx) => named(x().gotify, ctx, 'name', 'endpoint'),
    },
    {
      method: 'GET', path: '/cluster/notifications/endpoints/smtp',
      description: 'SMTP endpoints (their passwords are not shown).',
      parameters: {}, returns: LIST, permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] }, protected: true,
      handler: () => x().smtp.map((e) => ({ ...e })),
    },
    {
      method: 'GET', path: '/cluster/notifications/endpoints/smtp/{name}',
      description: 'One SMTP endpoint (its password is not shown).',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) }, returns: OBJ, permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] }, protected: true,
      handler: (ctx) => named(x().smtp, ctx, 'name', 'endpoint'),
    },
    {
      method: 'GET', path: '/cluster/notifications/endpoints/webhook',
      description: 'Webhook endpoints (secret values are not shown, only their names).',
      parameters: {}, returns: LIST, permissions: { check: perm('/mapping/notifications', ['Mapping.Audit']) }, protected: true,
      handler: () => x().webhook.map((e) => ({ ...e })),
    },
    {
      method: 'GET', path: '/cluster/notifications/endpoints/webhook/{name}',
      description: 'One webhook endpoint (secret values are not shown).',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) }, returns: OBJ, permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] }, protected: true,
      handler: (ctx) => named(x().webhook, ctx, 'name', 'endpoint'),
    },
    {
      method: 'GET', path: '/cluster/notifications/targets',
      description: 'Every notification target of any type.',
      parameters: {}, returns: LIST, permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit']), perm('/mapping/notifications', ['Mapping.Use'])] }, protected: true,
      handler: () => [
        ...x().sendmail.map((e) => ({ name: e.name, type: 'sendmail', origin: e.origin, ...(e.comment ? { comment: e.comment } : {}) })),
        ...x().gotify.map((e) => ({ name: e.name, type: 'gotify', origin: e.origin, ...(e.comment ? { comment: e.comment } : {}) })),
        ...x().smtp.map((e) => ({ name: e.name, type: 'smtp', origin: e.origin, ...(e.comment ? { comment: e.comment } : {}) })),
        ...x().webhook.map((e) => ({ name: e.name, type: 'webhook', origin: e.origin })),
      ],
    },
    {
      method: 'GET', path: '/cluster/notifications/matchers',
      description: 'Matchers: which notifications go to which targets.',
      parameters: {}, returns: LIST, permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit']), perm('/mapping/notifications', ['Mapping.Use'])] }, protected: true,
      handler: () => x().matchers.map((m) => ({ ...m })),
    },
    {
      method: 'GET', path: '/cluster/notifications/matchers/{name}',
      description: 'One notification matcher.',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) }, returns: OBJ, permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] }, protected: true,
      handler: (ctx) => named(x().matchers, ctx, 'name', 'matcher'),
    },
    {
      method: 'GET', path: '/cluster/notifications/matcher-fields',
      description: 'Metadata fields notifications carry that matchers can test.',
      parameters: {}, returns: LIST, permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] },
      handler: () => ['hostname', 'job-id', 'type'].map((name) => ({ name })),
    },
    {
      method: 'GET', path: '/cluster/notifications/matcher-field-values',
      description: 'Known values of the matcher fields (nodes, backup jobs, notification types).',
      parameters: {}, returns: LIST, permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] }, protected: true,
      handler: () => [
        ...nodes().map((n) => ({ field: 'hostname', value: n.name })),
        ...[...state.backupJobs.values()].map((j) => ({ field: 'job-id', value: j.id, ...(j.comment ? { comment: String(j.comment) } : {}) })),
        ...['package-updates', 'fencing', 'replication', 'vzdump', 'system-mail'].map((value) => ({ field: 'type', value })),
      ],
    },
    {
      method: 'GET', path: '/cluster/mapping',
      description: 'Resource mapping kinds (directory index).',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => ['dir', 'pci', 'usb'].map((name) => ({ name })),
    },
    {
      method: 'GET', path: '/cluster/mapping/pci',
      description: 'PCI mappings: one name for the same device on several nodes.',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => x().pci.map((m) => ({ id: m.id, description: m.description, map: m.map })),
    },
    {
      method: 'GET', path: '/cluster/mapping/pci/{id}',
      description: 'One PCI mapping.',
      parameters: { id: str('Identifier of the object.', { format: 'pve-configid' }) }, returns: OBJ, permissions: { check: ['or', perm('/mapping/pci/{id}', ['Mapping.Use']), perm('/mapping/pci/{id}', ['Mapping.Modify']), perm('/mapping/pci/{id}', ['Mapping.Audit'])] }, protected: true,
      handler: (ctx) => named(x().pci, ctx, 'id', 'mapping'),
    },
    {
      method: 'GET', path: '/cluster/mapping/usb',
      description: 'USB mappings: one name for the same device on several nodes.',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => x().usb.map((m) => ({ id: m.id, description: m.description, map: m.map, error: '' })),
    },
    {
      method: 'GET', path: '/cluster/mapping/usb/{id}',
      description: 'One USB mapping.',
      parameters: { id: str('Identifier of the object.', { format: 'pve-configid' }) }, returns: OBJ, permissions: { check: ['or', perm('/mapping/usb/{id}', ['Mapping.Audit']), perm('/mapping/usb/{id}', ['Mapping.Use']), perm('/mapping/usb/{id}', ['Mapping.Modify'])] }, protected: true,
      handler: (ctx) => named(x().usb, ctx, 'id', 'mapping'),
    },
    {
      method: 'GET', path: '/cluster/mapping/dir',
      description: 'Directory mappings for virtiofs shares.',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => x().dir.map((m) => ({ id: m.id, description: m.description, map: m.map })),
    },
    {
      method: 'GET', path: '/cluster/mapping/dir/{id}',
      description: 'One directory mapping.',
      parameters: { id: str('Identifier of the object.', { format: 'pve-configid' }) }, returns: OBJ, permissions: { check: ['or', perm('/mapping/dir/{id}', ['Mapping.Use']), perm('/mapping/dir/{id}', ['Mapping.Modify']), perm('/mapping/dir/{id}', ['Mapping.Audit'])] }, protected: true,
      handler: (ctx) => named(x().dir, ctx, 'id', 'mapping'),
    },
    {
      method: 'GET', path: '/cluster/ha',
      description: 'HA sections (directory index).',
      parameters: {}, returns: LIST, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => ['groups', 'resources', 'rules', 'status'].map((id) => ({ id })),
    },
    {
      method: 'GET', path: '/cluster/ha/groups',
      description: 'HA groups (PVE 9 keeps node preferences as node-affinity rules, so there are none).',
      parameters: {}, returns: LIST, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => [],
    },
    {
      method: 'GET', path: '/cluster/ha/status/manager_status',
      description: 'The HA manager\'s internal state: master, node states and the service table.',
      parameters: {}, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => {
        const master = nodes().find((n) => n.online)?.name;
        const service_status: Json = {};
        for (const r of state.haResources.values()) {
          const g = state.guests.get(Number(r.sid.split(':')[1]));
          if (g) service_status[r.sid] = { node: g.node, state: g.status === 'running' ? 'started' : 'stopped', running: g.status === 'running' ? 1 : 0, uid: digestOf(r.sid).slice(0, 22) };
        }
        return { manager_status: { master_node: master, node_status: Object.fromEntries(nodes().map((n) => [n.name, n.online ? 'online' : 'unknown'])), service_status, timestamp: state.nowSec() }, quorum: { node: master, quorate: '1' }, lrm_status: Object.fromEntries(nodes().map((n) => [n.name, { mode: 'active', state: 'active', timestamp: state.nowSec() }])) };
      },
    },
    {
      method: 'GET', path: '/cluster/backup/{id}/included_volumes',
      description: 'The guests a backup job selects, each with its disks and whether they are backed up.',
      parameters: { id: str('Identifier of the object.', { maxLength: 50 }) }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) }, protected: true,
      handler: (ctx) => {
        const job = state.backupJobs.get(reqStr(ctx, 'id'));
        if (!job) throw fail(`job '${reqStr(ctx, 'id')}' not found`);
        return includedVolumes(state, job);
      },
    },
    {
      method: 'GET', path: '/cluster/replication',
      description: 'Storage replication jobs (replication needs ZFS, which the simulated storages are not, so there are none).',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => [],
    },
    {
      method: 'GET', path: '/nodes/{node}/replication',
      description: 'Replication jobs of the guests on a node.',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' }, proxyto: 'node', protected: true,
      handler: (ctx) => (state.node(reqStr(ctx, 'node')), []),
    },
    {
      method: 'GET', path: '/cluster/jobs',
      description: 'Job sections (directory index).',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => ['realm-sync', 'schedule-analyze'].map((subdir) => ({ subdir })),
    },
    {
      method: 'GET', path: '/cluster/jobs/realm-sync',
      description: 'Scheduled realm syncs (none: the realms are pam and pve).',
      parameters: {}, returns: LIST, permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => [],
    },
    {
      method: 'GET', path: '/cluster/jobs/schedule-analyze',
      description: 'The next times a schedule fires.',
      parameters: { schedule: str('The schedule asked for.', { format: 'pve-calendar-event', maxLength: 128 }), iterations: opt(int('How many times to list.')), starttime: opt(int('Start from this epoch second.')) }, returns: LIST, permissions: { user: 'all' },
      handler: (ctx) => {
        const iterations = Number(ctx.params.iterations ?? 10);
        const start = Number(ctx.params.starttime ?? state.nowSec());
        return nextRuns(reqStr(ctx, 'schedule'), start, iterations).map((t) => ({ timestamp: t, utc: new Date(t * 1000).toUTCString() }));
      },
    },
    {
      method: 'GET', path: '/cluster/acme',
      description: 'ACME sections (directory index).',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => ['account', 'challenge-schema', 'directories', 'meta', 'plugins', 'tos'].map((name) => ({ name })),
    },
    {
      method: 'GET', path: '/cluster/acme/account',
      description: 'Registered ACME accounts.',
      parameters: {}, returns: LIST, permissions: { user: 'all' }, protected: true,
      handler: () => x().acmeAccounts.map((a) => ({ name: a.name })),
    },
    {
      method: 'GET', path: '/cluster/acme/account/{name}',
      description: 'One ACME account: directory, location, terms and the account data (no key).',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) }, returns: OBJ, permissions: {}, protected: true,
      handler: (ctx) => {
        const a = x().acmeAccounts.find((i) => i.name === reqStr(ctx, 'name'));
        if (!a) throw fail(`ACME account config file '${reqStr(ctx, 'name')}' does not exist.`);
        const { name: _n, ...rest } = a;
        return rest;
      },
    },
    {
      method: 'GET', path: '/cluster/acme/plugins',
      description: 'ACME challenge plugins (their API credentials are not shown).',
      parameters: { type: opt(str('Only plugins of this type.')) }, returns: LIST, permissions: { check: perm('/', ['Sys.Modify']) }, protected: true,
      handler: (ctx) => x().acmePlugins.filter((p) => !optStr(ctx, 'type') || p.type === optStr(ctx, 'type')).map((p) => ({ ...p, digest: digestOf(p) })),
    },
    {
      method: 'GET', path: '/cluster/acme/plugins/{id}',
      description: 'One ACME plugin (its API credentials are not shown).',
      parameters: { id: str('Identifier of the object.', { format: 'pve-configid' }) }, returns: OBJ, permissions: { check: perm('/', ['Sys.Modify']) }, protected: true,
      handler: (ctx) => named(x().acmePlugins, ctx, 'plugin', 'ACME plugin'),
    },
    {
      method: 'GET', path: '/cluster/acme/tos',
      description: 'The terms of service URL of an ACME directory.',
      parameters: {}, returns: TEXT, permissions: { user: 'all' },
      handler: () => 'https://letsencrypt.org/documents/LE-SA-v1.5-February-24-2025.pdf',
    },
    {
      method: 'GET', path: '/cluster/acme/meta',
      description: 'Metadata an ACME directory announces.',
      parameters: {}, returns: OBJ, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      handler: () => ({ termsOfService: 'https://letsencrypt.org/documents/LE-SA-v1.5-February-24-2025.pdf', website: 'https://letsencrypt.org', caaIdentities: ['letsencrypt.org'] }),
    },
    {
      method: 'GET', path: '/cluster/acme/directories',
      description: 'Well-known ACME directories.',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => [{ name: "Let's Encrypt V2", url: 'https://acme-v02.api.letsencrypt.org/directory' }, { name: "Let's Encrypt V2 Staging", url: 'https://acme-staging-v02.api.letsencrypt.org/directory' }],
    },
    {
      method: 'GET', path: '/cluster/acme/challenge-schema',
      description: 'DNS challenge plugin types and the settings each needs.',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => [
        { id: 'cf', name: 'Cloudflare Managed DNS', type: 'dns', schema: { fields: { CF_Token: { type: 'string', description: 'API token' }, CF_Account_ID: { type: 'string', description: 'Account ID' } } } },
        { id: 'acmedns', name: 'acme-dns', type: 'dns', schema: { fields: { ACMEDNS_BASE_URL: { type: 'string', description: 'Server URL' } } } },
      ],
    },
    {
      method: 'GET', path: '/storage/{storage}',
      description: 'One storage definition of the datacenter configuration.',
      parameters: { storage: P.storage }, returns: OBJ, permissions: { check: perm('/storage/{storage}', ['Datastore.Allocate']) },
      handler: (ctx) => {
        const s = state.storages.get(reqStr(ctx, 'storage'));
        if (!s) throw fail(`storage '${reqStr(ctx, 'storage')}' does not exist`);
        return { storage: s.storage, type: s.type, content: s.content.join(','), ...(s.shared ? { shared: 1 } : {}), ...(s.nodes ? { nodes: s.nodes.join(',') } : {}), ...(s.disabled ? { disable: 1 } : {}), ...s.props, digest: digestOf(s) };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/storage/{storage}/rrd',
      description: 'A chart of storage usage as a PNG file name (the file itself is not served).',
      parameters: { node: P.node, storage: P.storage, ds: str('Data sources to draw, comma-separated.', { format: 'pve-configid-list' }), timeframe: str('Time span the series covers.', { enum: ['hour', 'day', 'week', 'month', 'year'] }) }, returns: OBJ, permissions: { check: perm('/storage/{storage}', ['Datastore.Audit', 'Datastore.AllocateSpace'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => ({ filename: `/var/lib/rrdcached/db/pve-storage-9.0/${reqStr(ctx, 'node')}/${reqStr(ctx, 'storage')}.png` }),
    },
    {
      method: 'GET', path: '/nodes/{node}/storage/{storage}/rrddata',
      description: 'Usage of a storage on a node over time, ending at its current usage.',
      parameters: { node: P.node, storage: P.storage, timeframe: str('Time span the series covers.', { enum: ['hour', 'day', 'week', 'month', 'year'] }) }, returns: LIST, permissions: { check: perm('/storage/{storage}', ['Datastore.Audit', 'Datastore.AllocateSpace'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const node = reqStr(ctx, 'node');
        const s = state.storageOn(reqStr(ctx, 'storage'), node);
        if (!s) throw fail(`storage '${reqStr(ctx, 'storage')}' does not exist`);
        const used = state.storageUsage().get(state.storageKey(s, node)) ?? 0;
        const step = reqStr(ctx, 'timeframe') === 'hour' ? 60 : 1800;
        const end = Math.floor(state.nowSec() / step) * step;
        return Array.from({ length: 70 }, (_, k) => ({ time: end - (69 - k) * step, total: s.total, used: Math.max(0, Math.floor(used * (1 - (69 - k) * 0.0005))) }));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/network/{iface}',
      description: 'One network interface of a node.',
      parameters: { node: P.node, iface: str('The iface asked for.', { format: 'pve-iface', maxLength: 20 }) }, returns: OBJ, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, proxyto: 'node',
      handler: (ctx) => {
        const n = state.node(reqStr(ctx, 'node'));
        const i = n.interfaces.find((x) => x.iface === reqStr(ctx, 'iface'));
        if (!i) throw fail(`network interface '${reqStr(ctx, 'iface')}' does not exist`);
        return { ...i, ...(i.type === 'eth' ? { exists: 1 } : {}) };
      },
    },
  ];
}

/** Guest-agent views of a running VM, from its config and runtime. */
export function agentReadEndpoints(state: ClusterState): SimEndpoint[] {
  const vm = (ctx: SimRequestContext): Guest => {
    const g = state.guestAt('qemu', reqStr(ctx, 'node'), reqInt(ctx, 'vmid'));
    if (!/^(?:1|enabled=1)(?:,|$)/.test(String(g.config.agent ?? ''))) throw fail('No QEMU guest agent configured');
    if (g.status !== 'running') throw fail(`VM ${g.vmid} is not running`);
    return g;
  };
  const windows = (g: Guest) => String(g.config.ostype ?? '').startsWith('win');
  const result = (v: unknown) => ({ result: v });
  const runs = () => state.area('agent-exec', () => new Map<number, { vmid: number; command: string[]; at: number }>());
  return [
    {
      method: 'GET', path: '/nodes/{node}/qemu/{vmid}/agent/exec-status',
      description: 'Outcome of a command started with agent/exec: exit code and output once it has ended.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }), pid: int('The pid asked for.') }, returns: OBJ, permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Unrestricted']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        const run = runs().get(reqInt(ctx, 'pid'));
        if (!run || run.vmid !== g.vmid) throw fail(`Agent error: Invalid parameter 'pid'`);
        const [cmd, ...args] = run.command;
        const rt = guestRuntime(g, state.node(g.node), state.now());
        const outputs: Record<string, string> = {
          uptime: ` ${new Date(state.now()).toISOString().slice(11, 19)} up ${Math.floor(rt.uptime / 60)} min,  1 user,  load average: ${(rt.cpu * rt.cpus).toFixed(2)}, 0.30, 0.25\n`,
          hostname: `${String(g.config.name ?? `vm${g.vmid}`)}\n`,
          echo: `${args.join(' ')}\n`,
          true: '',
        };
        const out = outputs[cmd ?? ''];
        return out === undefined ? { exited: 1, exitcode: 127, 'err-data': `${cmd}: command not found\n` } : { exited: 1, exitcode: 0, 'out-data': out };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/qemu/{vmid}/agent/info',
      description: 'Commands the guest agent supports.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) }, returns: OBJ, permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => (vm(ctx), result({ version: '9.2.0', supported_commands: ['guest-exec', 'guest-exec-status', 'guest-file-read', 'guest-get-fsinfo', 'guest-get-host-name', 'guest-get-osinfo', 'guest-get-time', 'guest-get-timezone', 'guest-get-users', 'guest-get-vcpus', 'guest-network-get-interfaces', 'guest-ping'].map((name) => ({ name, enabled: true, 'success-response': true })) })),
    },
    {
      method: 'GET', path: '/nodes/{node}/qemu/{vmid}/agent/get-fsinfo',
      description: 'File systems the guest has mounted, with their size and use.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) }, returns: OBJ, permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        const rt = guestRuntime(g, state.node(g.node), state.now());
        const total = rt.maxdisk;
        return result([{ name: windows(g) ? 'C:\\' : 'sda1', mountpoint: windows(g) ? 'C:\\' : '/', type: windows(g) ? 'NTFS' : 'ext4', 'total-bytes': total, 'used-bytes': Math.floor(total * 0.42), disk: [{ 'bus-type': 'scsi', bus: 0, target: 0, unit: 0, serial: `drive-scsi0`, dev: '/dev/sda1' }] }]);
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/qemu/{vmid}/agent/get-memory-block-info',
      description: 'Size of the guest\'s memory blocks.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) }, returns: OBJ, permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => (vm(ctx), result({ size: 134217728 })),
    },
    {
      method: 'GET', path: '/nodes/{node}/qemu/{vmid}/agent/get-memory-blocks',
      description: 'The guest\'s memory blocks and whether each is online.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) }, returns: OBJ, permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        const blocks = Math.max(1, Math.floor(guestRuntime(g, state.node(g.node), state.now()).maxmem / 134217728));
        return result(Array.from({ length: Math.min(blocks, 256) }, (_, phys) => ({ 'phys-index': phys, online: true, 'can-offline': phys > 0 })));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/qemu/{vmid}/agent/get-time',
      description: 'The guest\'s clock in nanoseconds since the epoch.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) }, returns: OBJ, permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => (vm(ctx), result(state.now() * 1_000_000)),
    },
    {
      method: 'GET', path: '/nodes/{node}/qemu/{vmid}/agent/get-timezone',
      description: 'The guest\'s time zone.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) }, returns: OBJ, permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => (vm(ctx), result({ zone: 'UTC', offset: 0 })),
    },
    {
      method: 'GET', path: '/nodes/{node}/qemu/{vmid}/agent/get-users',
      description: 'Users logged in to the guest.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) }, returns: OBJ, permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        return result([{ user: windows(g) ? 'Administrator' : 'admin', 'login-time': Math.floor(g.startedAt / 1000) + 600 }]);
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/qemu/{vmid}/agent/get-vcpus',
      description: 'The guest\'s virtual CPUs and whether each is online.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) }, returns: OBJ, permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        return result(Array.from({ length: guestRuntime(g, state.node(g.node), state.now()).cpus }, (_, id) => ({ 'logical-id': id, online: true, 'can-offline': id > 0 })));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/qemu/{vmid}/agent/file-read',
      description: 'Read a file inside the guest through the agent.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }), file: str('The file asked for.') }, returns: OBJ, permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.FileRead', 'VM.GuestAgent.Unrestricted'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        const file = reqStr(ctx, 'file');
        const files: Record<string, string> = { '/etc/hostname': `${String(g.config.name ?? `vm${g.vmid}`)}\n`, '/etc/os-release': 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nID=debian\nVERSION_ID="13"\n' };
        const content = files[file];
        if (content === undefined) throw fail(`Agent error: Failed to open file '${file}': No such file or directory`);
        return { content };
      },
    },
    {
      method: 'POST',
      path: '/nodes/{node}/qemu/{vmid}/agent/exec',
      description: 'Run a command inside the VM through the guest agent; answers the process ID to pass to exec-status.',
      parameters: { node: P.node, vmid: P.vmid, command: arr(str('Program and arguments.')), 'input-data': opt(str('Data passed to the command on standard input.', { maxLength: 65536 })) },
      returns: obj({ pid: int('Process ID in the guest.') }),
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Unrestricted']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        const raw = ctx.params.command;
        const command = (Array.isArray(raw) ? raw.map(String) : [String(raw)]).flatMap((c) => c.split(/\s+/)).filter(Boolean);
        const pid = 1000 + runs().size * 7 + (g.vmid % 7);
        runs().set(pid, { vmid: g.vmid, command, at: state.now() });
        return { pid };
      },
    },
  ];
}

export { haSid };
