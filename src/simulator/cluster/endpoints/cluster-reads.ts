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
import type { Guest, GuestType } from '../types.js';
import { haSid } from '../views.js';
import { guestSeries, type ReadHandlers } from './node-reads.js';
import { optStr, reqInt, reqStr } from './params.js';
import { arr, int, obj, opt, P, perm, str } from './schema.js';

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

export function clusterReads(state: ClusterState): ReadHandlers {
  const x = () => extrasOf(state);
  const nodes = () => [...state.nodes.values()];
  const named = (items: Json[], ctx: SimRequestContext, key = 'name', what = 'object'): Json => {
    const id = reqStr(ctx, key === 'plugin' ? 'id' : key === 'id' ? 'id' : 'name');
    const found = items.find((i) => i[key] === id);
    if (!found) throw fail(`${what} '${id}' does not exist`);
    const { origin: _o, ...rest } = found;
    return { ...rest, digest: digestOf(found) };
  };
  const guest = (type: GuestType) => (ctx: SimRequestContext): Guest => state.guestAt(type, reqStr(ctx, 'node'), reqInt(ctx, 'vmid'));
  const totem = () => ({ version: 2, cluster_name: state.clusterName, config_version: nodes().length + 2, ip_version: 'ipv4-6', secauth: 'on', link_mode: 'passive', interface: { 0: { linknumber: 0 } } });
  const out: ReadHandlers = {
    '/cluster': ['Cluster-wide sections (directory index).', () => ['acme', 'backup', 'backup-info', 'bulk-action', 'ceph', 'config', 'firewall', 'ha', 'jobs', 'log', 'mapping', 'metrics', 'nextid', 'notifications', 'options', 'replication', 'resources', 'sdn', 'status', 'tasks'].map((name) => ({ name }))],
    '/cluster/config': ['Cluster configuration sections (directory index).', () => ['apiversion', 'join', 'nodes', 'qdevice', 'totem'].map((name) => ({ name }))],
    '/cluster/config/apiversion': ['Version of the cluster join API this node speaks.', () => 1],
    '/cluster/config/nodes': ['Nodes in the corosync configuration with their votes and ring addresses.', () => (state.clusterName ? nodes().map((n) => ({ node: n.name, name: n.name, nodeid: String(n.nodeid), quorum_votes: '1', ring0_addr: n.ip })) : [])],
    '/cluster/config/join': ['What a new node needs to join: node list with fingerprints, totem settings, config digest.', () => {
      if (!state.clusterName) throw fail('node is not in a cluster, no join info available!');
      const nodelist = nodes().map((n) => ({ name: n.name, nodeid: String(n.nodeid), pve_addr: n.ip, pve_fp: n.sslFingerprint, quorum_votes: '1', ring0_addr: n.ip }));
      return { nodelist, preferred_node: nodes()[0]?.name, totem: totem(), config_digest: digestOf(nodelist) };
    }],
    '/cluster/config/totem': ['The corosync totem settings.', () => (state.clusterName ? totem() : {})],
    '/cluster/config/qdevice': ['Status of the external quorum device (none configured).', () => ({})],
    '/cluster/log': ['Recent entries of the cluster log: task starts and ends on every node, newest first.', (ctx) => {
      const max = Number(ctx.params.max ?? 50);
      return state.tasks.listAll().slice(0, max).map((t, i) => ({ uid: i + 1, time: t.endtime ?? t.starttime, node: t.node, pid: t.pid, user: t.user, tag: 'pvedaemon', pri: t.exitstatus && t.exitstatus !== 'OK' ? 3 : 6, msg: `${t.endtime !== undefined ? 'end' : 'starting'} task ${t.upid}${t.exitstatus ? ` ${t.exitstatus}` : ''}`, id: `${t.node}:${t.pid}` }));
    }],
    '/cluster/metrics': ['Metric export sections (directory index).', () => [{ name: 'export' }, { name: 'server' }]],
    '/cluster/metrics/server': ['External metric servers the nodes send their figures to.', () => x().metrics.map((m) => ({ id: m.id, type: m.type, server: m.server, port: m.port, disable: m.disable }))],
    '/cluster/metrics/server/{id}': ['One metric server (its token is not shown).', (ctx) => named(x().metrics, ctx, 'id', 'metric server')],
    '/cluster/metrics/export': ['Current figures of every node, guest and storage in one list, as a metric server would receive them.', () => {
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
    }],
    '/cluster/notifications': ['Notification sections (directory index).', () => ['endpoints', 'matcher-field-values', 'matcher-fields', 'matchers', 'targets'].map((name) => ({ name }))],
    '/cluster/notifications/endpoints': ['Notification endpoint types (directory index).', () => ['gotify', 'sendmail', 'smtp', 'webhook'].map((name) => ({ name }))],
    '/cluster/notifications/endpoints/sendmail': ['Sendmail endpoints: mail through the local mail system.', () => x().sendmail.map((e) => ({ ...e }))],
    '/cluster/notifications/endpoints/sendmail/{name}': ['One sendmail endpoint.', (ctx) => named(x().sendmail, ctx, 'name', 'endpoint')],
    '/cluster/notifications/endpoints/gotify': ['Gotify endpoints (their tokens are not shown).', () => x().gotify.map((e) => ({ ...e }))],
    '/cluster/notifications/endpoints/gotify/{name}': ['One Gotify endpoint (its token is not shown).', (ctx) => named(x().gotify, ctx, 'name', 'endpoint')],
    '/cluster/notifications/endpoints/smtp': ['SMTP endpoints (their passwords are not shown).', () => x().smtp.map((e) => ({ ...e }))],
    '/cluster/notifications/endpoints/smtp/{name}': ['One SMTP endpoint (its password is not shown).', (ctx) => named(x().smtp, ctx, 'name', 'endpoint')],
    '/cluster/notifications/endpoints/webhook': ['Webhook endpoints (secret values are not shown, only their names).', () => x().webhook.map((e) => ({ ...e }))],
    '/cluster/notifications/endpoints/webhook/{name}': ['One webhook endpoint (secret values are not shown).', (ctx) => named(x().webhook, ctx, 'name', 'endpoint')],
    '/cluster/notifications/targets': ['Every notification target of any type.', () => [
      ...x().sendmail.map((e) => ({ name: e.name, type: 'sendmail', origin: e.origin, ...(e.comment ? { comment: e.comment } : {}) })),
      ...x().gotify.map((e) => ({ name: e.name, type: 'gotify', origin: e.origin, ...(e.comment ? { comment: e.comment } : {}) })),
      ...x().smtp.map((e) => ({ name: e.name, type: 'smtp', origin: e.origin, ...(e.comment ? { comment: e.comment } : {}) })),
      ...x().webhook.map((e) => ({ name: e.name, type: 'webhook', origin: e.origin })),
    ]],
    '/cluster/notifications/matchers': ['Matchers: which notifications go to which targets.', () => x().matchers.map((m) => ({ ...m }))],
    '/cluster/notifications/matchers/{name}': ['One notification matcher.', (ctx) => named(x().matchers, ctx, 'name', 'matcher')],
    '/cluster/notifications/matcher-fields': ['Metadata fields notifications carry that matchers can test.', () => ['hostname', 'job-id', 'type'].map((name) => ({ name }))],
    '/cluster/notifications/matcher-field-values': ['Known values of the matcher fields (nodes, backup jobs, notification types).', () => [
      ...nodes().map((n) => ({ field: 'hostname', value: n.name })),
      ...[...state.backupJobs.values()].map((j) => ({ field: 'job-id', value: j.id, ...(j.comment ? { comment: String(j.comment) } : {}) })),
      ...['package-updates', 'fencing', 'replication', 'vzdump', 'system-mail'].map((value) => ({ field: 'type', value })),
    ]],
    '/cluster/mapping': ['Resource mapping kinds (directory index).', () => ['dir', 'pci', 'usb'].map((name) => ({ name }))],
    '/cluster/mapping/pci': ['PCI mappings: one name for the same device on several nodes.', () => x().pci.map((m) => ({ id: m.id, description: m.description, map: m.map }))],
    '/cluster/mapping/pci/{id}': ['One PCI mapping.', (ctx) => named(x().pci, ctx, 'id', 'mapping')],
    '/cluster/mapping/usb': ['USB mappings: one name for the same device on several nodes.', () => x().usb.map((m) => ({ id: m.id, description: m.description, map: m.map, error: '' }))],
    '/cluster/mapping/usb/{id}': ['One USB mapping.', (ctx) => named(x().usb, ctx, 'id', 'mapping')],
    '/cluster/mapping/dir': ['Directory mappings for virtiofs shares.', () => x().dir.map((m) => ({ id: m.id, description: m.description, map: m.map }))],
    '/cluster/mapping/dir/{id}': ['One directory mapping.', (ctx) => named(x().dir, ctx, 'id', 'mapping')],
    '/cluster/ha': ['HA sections (directory index).', () => ['groups', 'resources', 'rules', 'status'].map((id) => ({ id }))],
    '/cluster/ha/groups': ['HA groups (PVE 9 keeps node preferences as node-affinity rules, so there are none).', () => []],
    '/cluster/ha/status/manager_status': ['The HA manager\'s internal state: master, node states and the service table.', () => {
      const master = nodes().find((n) => n.online)?.name;
      const service_status: Json = {};
      for (const r of state.haResources.values()) {
        const g = state.guests.get(Number(r.sid.split(':')[1]));
        if (g) service_status[r.sid] = { node: g.node, state: g.status === 'running' ? 'started' : 'stopped', running: g.status === 'running' ? 1 : 0, uid: digestOf(r.sid).slice(0, 22) };
      }
      return { manager_status: { master_node: master, node_status: Object.fromEntries(nodes().map((n) => [n.name, n.online ? 'online' : 'unknown'])), service_status, timestamp: state.nowSec() }, quorum: { node: master, quorate: '1' }, lrm_status: Object.fromEntries(nodes().map((n) => [n.name, { mode: 'active', state: 'active', timestamp: state.nowSec() }])) };
    }],
    '/cluster/backup/{id}/included_volumes': ['The guests a backup job selects, each with its disks and whether they are backed up.', (ctx) => {
      const job = state.backupJobs.get(reqStr(ctx, 'id'));
      if (!job) throw fail(`job '${reqStr(ctx, 'id')}' not found`);
      return includedVolumes(state, job);
    }],
    '/cluster/replication': ['Storage replication jobs (replication needs ZFS, which the simulated storages are not, so there are none).', () => []],
    '/nodes/{node}/replication': ['Replication jobs of the guests on a node.', (ctx) => (state.node(reqStr(ctx, 'node')), [])],
    '/cluster/jobs': ['Job sections (directory index).', () => ['realm-sync', 'schedule-analyze'].map((subdir) => ({ subdir }))],
    '/cluster/jobs/realm-sync': ['Scheduled realm syncs (none: the realms are pam and pve).', () => []],
    '/cluster/jobs/schedule-analyze': ['The next times a schedule fires.', (ctx) => {
      const iterations = Number(ctx.params.iterations ?? 10);
      const start = Number(ctx.params.starttime ?? state.nowSec());
      return nextRuns(reqStr(ctx, 'schedule'), start, iterations).map((t) => ({ timestamp: t, utc: new Date(t * 1000).toUTCString() }));
    }],
    '/cluster/acme': ['ACME sections (directory index).', () => ['account', 'challenge-schema', 'directories', 'meta', 'plugins', 'tos'].map((name) => ({ name }))],
    '/cluster/acme/account': ['Registered ACME accounts.', () => x().acmeAccounts.map((a) => ({ name: a.name }))],
    '/cluster/acme/account/{name}': ['One ACME account: directory, location, terms and the account data (no key).', (ctx) => {
      const a = x().acmeAccounts.find((i) => i.name === reqStr(ctx, 'name'));
      if (!a) throw fail(`ACME account config file '${reqStr(ctx, 'name')}' does not exist.`);
      const { name: _n, ...rest } = a;
      return rest;
    }],
    '/cluster/acme/plugins': ['ACME challenge plugins (their API credentials are not shown).', (ctx) => x().acmePlugins.filter((p) => !optStr(ctx, 'type') || p.type === optStr(ctx, 'type')).map((p) => ({ ...p, digest: digestOf(p) }))],
    '/cluster/acme/plugins/{id}': ['One ACME plugin (its API credentials are not shown).', (ctx) => named(x().acmePlugins, ctx, 'plugin', 'ACME plugin')],
    '/cluster/acme/tos': ['The terms of service URL of an ACME directory.', () => 'https://letsencrypt.org/documents/LE-SA-v1.5-February-24-2025.pdf'],
    '/cluster/acme/meta': ['Metadata an ACME directory announces.', () => ({ termsOfService: 'https://letsencrypt.org/documents/LE-SA-v1.5-February-24-2025.pdf', website: 'https://letsencrypt.org', caaIdentities: ['letsencrypt.org'] })],
    '/cluster/acme/directories': ['Well-known ACME directories.', () => [{ name: "Let's Encrypt V2", url: 'https://acme-v02.api.letsencrypt.org/directory' }, { name: "Let's Encrypt V2 Staging", url: 'https://acme-staging-v02.api.letsencrypt.org/directory' }]],
    '/cluster/acme/challenge-schema': ['DNS challenge plugin types and the settings each needs.', () => [
      { id: 'cf', name: 'Cloudflare Managed DNS', type: 'dns', schema: { fields: { CF_Token: { type: 'string', description: 'API token' }, CF_Account_ID: { type: 'string', description: 'Account ID' } } } },
      { id: 'acmedns', name: 'acme-dns', type: 'dns', schema: { fields: { ACMEDNS_BASE_URL: { type: 'string', description: 'Server URL' } } } },
    ]],
    '/storage/{storage}': ['One storage definition of the datacenter configuration.', (ctx) => {
      const s = state.storages.get(reqStr(ctx, 'storage'));
      if (!s) throw fail(`storage '${reqStr(ctx, 'storage')}' does not exist`);
      return { storage: s.storage, type: s.type, content: s.content.join(','), ...(s.shared ? { shared: 1 } : {}), ...(s.nodes ? { nodes: s.nodes.join(',') } : {}), ...(s.disabled ? { disable: 1 } : {}), ...s.props, digest: digestOf(s) };
    }],
    '/nodes/{node}/storage/{storage}/rrd': ['A chart of storage usage as a PNG file name (the file itself is not served).', (ctx) => ({ filename: `/var/lib/rrdcached/db/pve-storage-9.0/${reqStr(ctx, 'node')}/${reqStr(ctx, 'storage')}.png` })],
    '/nodes/{node}/storage/{storage}/rrddata': ['Usage of a storage on a node over time, ending at its current usage.', (ctx) => {
      const node = reqStr(ctx, 'node');
      const s = state.storageOn(reqStr(ctx, 'storage'), node);
      if (!s) throw fail(`storage '${reqStr(ctx, 'storage')}' does not exist`);
      const used = state.storageUsage().get(state.storageKey(s, node)) ?? 0;
      const step = reqStr(ctx, 'timeframe') === 'hour' ? 60 : 1800;
      const end = Math.floor(state.nowSec() / step) * step;
      return Array.from({ length: 70 }, (_, k) => ({ time: end - (69 - k) * step, total: s.total, used: Math.max(0, Math.floor(used * (1 - (69 - k) * 0.0005))) }));
    }],
    '/nodes/{node}/network/{iface}': ['One network interface of a node.', (ctx) => {
      const n = state.node(reqStr(ctx, 'node'));
      const i = n.interfaces.find((x) => x.iface === reqStr(ctx, 'iface'));
      if (!i) throw fail(`network interface '${reqStr(ctx, 'iface')}' does not exist`);
      return { ...i, ...(i.type === 'eth' ? { exists: 1 } : {}) };
    }],
  };
  for (const type of ['qemu', 'lxc'] as const) {
    const base = `/nodes/{node}/${type}/{vmid}`;
    out[`${base}/rrd`] = ['A chart of guest series as a PNG file name (the file itself is not served).', (ctx) => ({ filename: `/var/lib/rrdcached/db/pve-vm-9.0/${guest(type)(ctx).vmid}.png` })];
    out[`${base}/rrddata`] = ['Time series of the guest (CPU, memory, disk, network), ending at its current status.', (ctx) => guestSeries(state, guest(type)(ctx), reqStr(ctx, 'timeframe'))];
    out[`${base}/feature`] = ['Whether the guest supports snapshots, clones or copies with its current disks.', (ctx) => {
      const g = guest(type)(ctx);
      const feature = reqStr(ctx, 'feature');
      const types = diskEntries(g.type, g.config).map((d) => state.storages.get(d.storage)?.type);
      const has = feature === 'copy' ? true : types.every((t) => t === 'lvmthin' || t === 'rbd' || t === 'zfspool');
      const shared = diskEntries(g.type, g.config).every((d) => state.storages.get(d.storage)?.shared);
      return type === 'qemu' ? { hasFeature: has ? 1 : 0, nodes: has ? (shared ? nodes().map((n) => n.name) : [g.node]) : [] } : { hasFeature: has ? 1 : 0 };
    }];
  }
  return out;
}

/** `POST …/agent/exec`: start a command in the guest; its outcome is read with exec-status. */
export function agentExecEndpoint(state: ClusterState): SimEndpoint {
  return {
    method: 'POST',
    path: '/nodes/{node}/qemu/{vmid}/agent/exec',
    description: 'Run a command inside the VM through the guest agent; answers the process ID to pass to exec-status.',
    parameters: { node: P.node, vmid: P.vmid, command: arr(str('Program and arguments.')), 'input-data': opt(str('Data passed to the command on standard input.', { maxLength: 65536 })) },
    returns: obj({ pid: int('Process ID in the guest.') }),
    permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Unrestricted']) },
    proxyto: 'node',
    protected: true,
    handler: (ctx) => {
      const g = state.guestAt('qemu', reqStr(ctx, 'node'), reqInt(ctx, 'vmid'));
      if (!/^(?:1|enabled=1)(?:,|$)/.test(String(g.config.agent ?? ''))) throw fail('No QEMU guest agent configured');
      if (g.status !== 'running') throw fail(`VM ${g.vmid} is not running`);
      const raw = ctx.params.command;
      const command = (Array.isArray(raw) ? raw.map(String) : [String(raw)]).flatMap((c) => c.split(/\s+/)).filter(Boolean);
      const runs = state.area('agent-exec', () => new Map<number, { vmid: number; command: string[]; at: number }>());
      const pid = 1000 + runs.size * 7 + (g.vmid % 7);
      runs.set(pid, { vmid: g.vmid, command, at: state.now() });
      return { pid };
    },
  };
}

/** Guest-agent views of a running VM, from its config and runtime. */
export function agentReads(state: ClusterState): ReadHandlers {
  const vm = (ctx: SimRequestContext): Guest => {
    const g = state.guestAt('qemu', reqStr(ctx, 'node'), reqInt(ctx, 'vmid'));
    if (!/^(?:1|enabled=1)(?:,|$)/.test(String(g.config.agent ?? ''))) throw fail('No QEMU guest agent configured');
    if (g.status !== 'running') throw fail(`VM ${g.vmid} is not running`);
    return g;
  };
  const windows = (g: Guest) => String(g.config.ostype ?? '').startsWith('win');
  const result = (v: unknown) => ({ result: v });
  const runs = () => state.area('agent-exec', () => new Map<number, { vmid: number; command: string[]; at: number }>());
  return {
    '/nodes/{node}/qemu/{vmid}/agent/exec-status': ['Outcome of a command started with agent/exec: exit code and output once it has ended.', (ctx) => {
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
    }],
    '/nodes/{node}/qemu/{vmid}/agent/info': ['Commands the guest agent supports.', (ctx) => (vm(ctx), result({ version: '9.2.0', supported_commands: ['guest-exec', 'guest-exec-status', 'guest-file-read', 'guest-get-fsinfo', 'guest-get-host-name', 'guest-get-osinfo', 'guest-get-time', 'guest-get-timezone', 'guest-get-users', 'guest-get-vcpus', 'guest-network-get-interfaces', 'guest-ping'].map((name) => ({ name, enabled: true, 'success-response': true })) }))],
    '/nodes/{node}/qemu/{vmid}/agent/get-fsinfo': ['File systems the guest has mounted, with their size and use.', (ctx) => {
      const g = vm(ctx);
      const rt = guestRuntime(g, state.node(g.node), state.now());
      const total = rt.maxdisk;
      return result([{ name: windows(g) ? 'C:\\' : 'sda1', mountpoint: windows(g) ? 'C:\\' : '/', type: windows(g) ? 'NTFS' : 'ext4', 'total-bytes': total, 'used-bytes': Math.floor(total * 0.42), disk: [{ 'bus-type': 'scsi', bus: 0, target: 0, unit: 0, serial: `drive-scsi0`, dev: '/dev/sda1' }] }]);
    }],
    '/nodes/{node}/qemu/{vmid}/agent/get-memory-block-info': ['Size of the guest\'s memory blocks.', (ctx) => (vm(ctx), result({ size: 134217728 }))],
    '/nodes/{node}/qemu/{vmid}/agent/get-memory-blocks': ['The guest\'s memory blocks and whether each is online.', (ctx) => {
      const g = vm(ctx);
      const blocks = Math.max(1, Math.floor(guestRuntime(g, state.node(g.node), state.now()).maxmem / 134217728));
      return result(Array.from({ length: Math.min(blocks, 256) }, (_, phys) => ({ 'phys-index': phys, online: true, 'can-offline': phys > 0 })));
    }],
    '/nodes/{node}/qemu/{vmid}/agent/get-time': ['The guest\'s clock in nanoseconds since the epoch.', (ctx) => (vm(ctx), result(state.now() * 1_000_000))],
    '/nodes/{node}/qemu/{vmid}/agent/get-timezone': ['The guest\'s time zone.', (ctx) => (vm(ctx), result({ zone: 'UTC', offset: 0 }))],
    '/nodes/{node}/qemu/{vmid}/agent/get-users': ['Users logged in to the guest.', (ctx) => {
      const g = vm(ctx);
      return result([{ user: windows(g) ? 'Administrator' : 'admin', 'login-time': Math.floor(g.startedAt / 1000) + 600 }]);
    }],
    '/nodes/{node}/qemu/{vmid}/agent/get-vcpus': ['The guest\'s virtual CPUs and whether each is online.', (ctx) => {
      const g = vm(ctx);
      return result(Array.from({ length: guestRuntime(g, state.node(g.node), state.now()).cpus }, (_, id) => ({ 'logical-id': id, online: true, 'can-offline': id > 0 })));
    }],
    '/nodes/{node}/qemu/{vmid}/agent/file-read': ['Read a file inside the guest through the agent.', (ctx) => {
      const g = vm(ctx);
      const file = reqStr(ctx, 'file');
      const files: Record<string, string> = { '/etc/hostname': `${String(g.config.name ?? `vm${g.vmid}`)}\n`, '/etc/os-release': 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nID=debian\nVERSION_ID="13"\n' };
      const content = files[file];
      if (content === undefined) throw fail(`Agent error: Failed to open file '${file}': No such file or directory`);
      return { content };
    }],
  };
}

export { haSid };
