/**
 * Calls PVE carries out alike are decided alike: each case pairs a plain call with another
 * spelling or path to the same effect, and the variant must not be decided more leniently than
 * the plain call. Spellings: a property-string alias, qemu-server's `cdrom` for `ide2`, a `null`
 * the client drops so PVE's default applies, a default equal to the escalating value. Paths: a
 * node-wide action without `vms`, a resource mapping that hands a host directory or device to
 * guests, a container reboot (a shutdown that kills), a shutdown of an HA-managed guest or its HA
 * state set to stopped (the HA manager's forced stop), HA rule and group edits, backup-job edits,
 * storage-wide prunes, Ceph pool deletes and the removal of a volume group, thin pool or ZFS pool
 * and VNet firewall changes (their guests are not named), a replication job (its ID names its guest), storage definitions
 * written by the Ceph pool, CephFS and disk handlers (`add_storages`, `cleanup-config`…). Found by two reviews that read PVE's handlers against the policy's reading;
 * the pure decideCall the bridge and the preflight use, on the simulator serving PVE 9.1.
 */
import { describe, expect, it } from 'vitest';
import { decideCall, type Decision } from '../../src/policy/decide.js';
import { Policy } from '../../src/policy/policy.js';
import { encodeParams } from '../../src/client/encoding.js';
import type { HttpMethod } from '../../src/schema/model.js';
import { hasOfficialSchema } from '../../src/schema/official-schemas.js';
import { CORPUS_POLICIES } from './corpus.js';
import { useSimFacts } from './helpers/sim-facts.js';

const sim = useSimFacts();

/** Policies beside the corpus's: a target deny on a tag, tag, pool and VMID scopes. */
const MORE_POLICIES: Record<string, Record<string, unknown>> = {
  dbguard: { preset: 'admin', approval: { require: ['privileged'] }, targets: [{ action: 'deny', tags: ['db'], comment: 'databases' }] },
  devtags: { preset: 'admin', scopes: { tags: ['dev'] }, approval: { require: ['privileged'] }, allow: ['POST /nodes/*/qemu/*/clone'] },
  vm100s: { preset: 'admin', scopes: { vmids: ['100-109'] }, approval: { require: ['privileged'] } },
  devpool: { preset: 'admin', scopes: { pools: ['development'] }, approval: { require: ['privileged'] }, allow: ['PUT /pools/*'] },
  storageguard: { preset: 'admin', approval: { require: ['privileged'] } },
};
const policyOf = (name: string): Policy => Policy.fromConfig({ name, ...(CORPUS_POLICIES[name] ?? MORE_POLICIES[name]) });

interface Call {
  method: HttpMethod;
  path: string;
  params: Record<string, unknown>;
}

async function decide(policyName: string, c: Call): Promise<Decision & { wire: string; escalations: string[] }> {
  const policy = policyOf(policyName);
  const { request: req, facts } = await sim.factsOf(policy, c.method, c.path, c.params);
  const enc = encodeParams(req.method, req.urlPath, req.params, req.arrayParams);
  return { ...decideCall(facts, policy), wire: `${req.method} ${req.urlPath} ${enc.body ?? enc.query}`, escalations: facts.escalations.map((e) => `${e.rule}:${e.param}`) };
}

const RANK: Record<string, number> = { allow: 0, approval: 1, deny: 2 };

interface Case {
  id: string;
  policy: string;
  plain: Call;
  variant: Call;
}

const put = (path: string, params: Record<string, unknown>): Call => ({ method: 'PUT', path, params });
const post = (path: string, params: Record<string, unknown> = {}): Call => ({ method: 'POST', path, params });
const del = (path: string, params: Record<string, unknown> = {}): Call => ({ method: 'DELETE', path, params });
const Q = '/nodes/pve1/qemu/118/config';
const Q109 = '/nodes/pve1/qemu/109/config';

const CASES: Case[] = [
  // 1. `volume` is an alias of `file` in every QEMU drive format (PVE parse_property_string follows `alias`).
  { id: 'drive-alias-volume-host-device', policy: 'op', plain: put(Q, { scsi1: '/dev/sda' }), variant: put(Q, { scsi1: 'volume=/dev/sda' }) },
  { id: 'drive-alias-volume-host-file', policy: 'admin', plain: put(Q, { virtio1: '/etc/pve/priv/authkey.key' }), variant: put(Q, { virtio1: 'volume=/etc/pve/priv/authkey.key,ro=1' }) },
  { id: 'drive-alias-volume-efidisk', policy: 'op', plain: put(Q, { efidisk0: '/dev/sda' }), variant: put(Q, { efidisk0: 'volume=/dev/sda' }) },
  { id: 'drive-alias-volume-create', policy: 'admin', plain: post('/nodes/pve1/qemu', { vmid: 150, scsi0: '/dev/sda' }), variant: post('/nodes/pve1/qemu', { vmid: 150, scsi0: 'volume=/dev/sda' }) },
  { id: 'drive-alias-volume-foreign-disk', policy: 'scoped', plain: put(Q109, { scsi3: 'local-lvm:vm-118-disk-0' }), variant: put(Q109, { scsi3: 'volume=local-lvm:vm-118-disk-0' }) },
  // 2. `cdrom` is an alias of ide2 (qemu-server $resolve_cdrom_alias), media=cdrom only appended when no media= given.
  { id: 'cdrom-param-host-device', policy: 'op', plain: put(Q, { ide2: '/dev/sda,media=disk' }), variant: put(Q, { cdrom: '/dev/sda,media=disk' }) },
  { id: 'cdrom-param-host-file', policy: 'op', plain: put(Q, { ide2: '/etc/shadow,media=cdrom' }), variant: put(Q, { cdrom: '/etc/shadow' }) },
  {
    id: 'cdrom-param-create',
    policy: 'admin',
    plain: post('/nodes/pve1/qemu', { vmid: 150, ide2: '/dev/sda,media=disk' }),
    variant: post('/nodes/pve1/qemu', { vmid: 150, cdrom: '/dev/sda,media=disk' }),
  },
  { id: 'cdrom-param-foreign-disk', policy: 'scoped', plain: put(Q109, { ide2: 'local-lvm:vm-118-disk-0,media=disk' }), variant: put(Q109, { cdrom: 'local-lvm:vm-118-disk-0,media=disk' }) },
  // 3. `delete: cdrom` is read as `delete: ide2` by qemu-server update_vm_api.
  { id: 'delete-cdrom-force', policy: 'op', plain: put(Q, { delete: 'ide2', force: 1 }), variant: put(Q, { delete: 'cdrom', force: 1 }) },
  // 4. null is dropped by the client: PVE sees no `remove` and uses its default (1).
  {
    id: 'prune-with-remove-null',
    policy: 'op',
    plain: post('/nodes/pve1/vzdump', { vmid: '118', storage: 'nas', 'prune-backups': 'keep-last=1' }),
    variant: post('/nodes/pve1/vzdump', { vmid: '118', storage: 'nas', 'prune-backups': 'keep-last=1', remove: null }),
  },
  {
    id: 'maxfiles-with-remove-null',
    policy: 'op',
    plain: post('/nodes/pve1/vzdump', { vmid: '118', storage: 'nas', maxfiles: 1 }),
    variant: post('/nodes/pve1/vzdump', { vmid: '118', storage: 'nas', maxfiles: 1, remove: null }),
  },
  // 5. `remove` defaults to 1: omitting it is `remove: 1` (prunes by the storage's retention).
  { id: 'remove-default', policy: 'op', plain: post('/nodes/pve1/vzdump', { vmid: '118', storage: 'nas', remove: 1 }), variant: post('/nodes/pve1/vzdump', { vmid: '118', storage: 'nas' }) },
  // 6. Resource mappings: the rules exempt `mapping=`/`dirid=`, but creating the mapping is a plain write.
  { id: 'pci-via-new-mapping', policy: 'admin', plain: put(Q, { hostpci0: '0000:00:1f.2' }), variant: post('/cluster/mapping/pci', { id: 'x', map: ['node=pve1,path=0000:00:1f.2,id=8086:2922'] }) },
  { id: 'usb-via-new-mapping', policy: 'admin', plain: put(Q, { usb0: 'host=1234:5678' }), variant: post('/cluster/mapping/usb', { id: 'u', map: ['node=pve1,id=1234:5678'] }) },
  {
    id: 'host-dir-via-new-mapping',
    policy: 'admin',
    plain: put('/nodes/pve1/lxc/106/config', { mp0: '/,mp=/host' }),
    variant: post('/cluster/mapping/dir', { id: 'root', map: ['node=pve1,path=//'] }),
  },
  {
    id: 'host-dir-via-mapping-update',
    policy: 'admin',
    plain: put('/nodes/pve1/lxc/106/config', { mp0: '/,mp=/host' }),
    variant: put('/cluster/mapping/dir/root', { map: ['node=pve1,path=/etc/pve'] }),
  },
  // 7. Defaults that equal the escalating value: bulk shutdown force-stop defaults to 1 (pve-manager BulkAction/Guest.pm).
  {
    id: 'bulk-shutdown-default-force-stop',
    policy: 'admin',
    plain: post('/cluster/bulk-action/guest/shutdown', { vms: [118], 'force-stop': 1 }),
    variant: post('/cluster/bulk-action/guest/shutdown', { vms: [118] }),
  },
  // 8. suspendall without vms suspends every VM of the node; not in ALL_UNLESS_VMS nor node-every-guest.
  { id: 'suspendall-every-guest', policy: 'admin', plain: post('/cluster/bulk-action/guest/suspend', {}), variant: post('/nodes/pve1/suspendall', {}) },
  { id: 'suspendall-protected-guest', policy: 'guarded', plain: post('/nodes/pve1/qemu/100/status/suspend', { todisk: 1 }), variant: post('/nodes/pve1/suspendall', {}) },
  // A second review: stops, HA, objects whose members are not named, replication IDs; and what it
  // found decided alike already (the guests a retag, pool move, clone, move_disk or new HA rule reach).
  // A. LXC reboot is a forced shutdown: vm_reboot -> vm_stop($vmid, 0, $timeout, 1) "kill if timeout exceeds".
  { id: 'lxc-reboot-timeout1', policy: 'op', plain: post('/nodes/pve1/lxc/106/status/shutdown', { forceStop: 1, timeout: 1 }), variant: post('/nodes/pve1/lxc/106/status/reboot', { timeout: 1 }) },
  { id: 'lxc-reboot-default', policy: 'op', plain: post('/nodes/pve1/lxc/106/status/shutdown', { forceStop: 1 }), variant: post('/nodes/pve1/lxc/106/status/reboot', {}) },
  // B. HA-managed guests (121 is, hastate=started): shutdown becomes `ha-manager crm-command stop vm:121 <timeout>`;
  //    0 = "immediate service hard-stop"; the HA VM agent always shuts down with forceStop=1.
  { id: 'ha-shutdown-timeout0', policy: 'op', plain: post('/nodes/pve1/qemu/121/status/stop', {}), variant: post('/nodes/pve1/qemu/121/status/shutdown', { timeout: 0 }) },
  {
    id: 'ha-shutdown-forced',
    policy: 'op',
    plain: post('/nodes/pve1/qemu/121/status/shutdown', { forceStop: 1, timeout: 30 }),
    variant: post('/nodes/pve1/qemu/121/status/shutdown', { timeout: 30 }),
  },
  { id: 'ha-state-stopped', policy: 'admin', plain: post('/nodes/pve1/qemu/121/status/shutdown', { forceStop: 1 }), variant: put('/cluster/ha/resources/vm:121', { state: 'stopped' }) },
  { id: 'ha-add-stopped', policy: 'admin', plain: post('/nodes/pve1/qemu/118/status/shutdown', { forceStop: 1 }), variant: post('/cluster/ha/resources', { sid: 'vm:118', state: 'stopped' }) },
  { id: 'ha-relocate', policy: 'admin', plain: post('/nodes/pve1/qemu/121/status/shutdown', { forceStop: 1 }), variant: post('/cluster/ha/resources/vm:121/relocate', { node: 'pve2' }) },
  // C. HA rules move the guests they hold (101, 111, 121) without naming them.
  {
    id: 'ha-rule-node-scope',
    policy: 'nodescoped',
    plain: post('/nodes/pve2/qemu/101/migrate', { target: 'pve1', online: 1 }),
    variant: put('/cluster/ha/rules/databases', { type: 'node-affinity', nodes: 'pve1', strict: 1 }),
  },
  {
    id: 'ha-rule-target-deny',
    policy: 'dbguard',
    plain: post('/nodes/pve2/qemu/101/migrate', { target: 'pve3', online: 1 }),
    variant: put('/cluster/ha/rules/databases', { type: 'node-affinity', nodes: 'pve3', strict: 1 }),
  },
  { id: 'ha-group-target-deny', policy: 'dbguard', plain: post('/nodes/pve2/qemu/101/migrate', { target: 'pve3', online: 1 }), variant: put('/cluster/ha/groups/databases', { nodes: 'pve3' }) },
  // D. Backup jobs act on their selection (pool production holds 100); an edit names none of it.
  {
    id: 'backup-job-mode-stop',
    policy: 'guarded',
    plain: post('/nodes/pve1/vzdump', { vmid: '100', mode: 'stop', storage: 'nas' }),
    variant: put('/cluster/backup/backup-bf1f2e11-8582', { mode: 'stop' }),
  },
  // E. Replication job IDs are `<vmid>-<n>`: the job snapshots that guest's disks and sends them to target.
  {
    id: 'replication-node-scope',
    policy: 'nodescoped',
    plain: post('/nodes/pve3/qemu/111/snapshot', { snapname: 'x' }),
    variant: post('/cluster/replication', { id: '111-0', target: 'pve1', type: 'local', schedule: '*/1' }),
  },
  {
    id: 'replication-target-deny',
    policy: 'dbguard',
    plain: post('/nodes/pve2/qemu/101/snapshot', { snapname: 'x' }),
    variant: post('/cluster/replication', { id: '101-1', target: 'pve3', type: 'local' }),
  },
  { id: 'replication-delete', policy: 'dbguard', plain: del('/nodes/pve2/qemu/101/snapshot/x', {}), variant: del('/cluster/replication/101-0', {}) },
  // F. Shared-storage/pool removals without a guest: every guest's data on it.
  {
    id: 'prune-no-vmid-target',
    policy: 'guarded',
    plain: del('/nodes/pve1/storage/nas/prunebackups', { vmid: 100, 'prune-backups': 'keep-last=1' }),
    variant: del('/nodes/pve1/storage/nas/prunebackups', { 'prune-backups': 'keep-last=1' }),
  },
  {
    id: 'prune-no-vmid-node',
    policy: 'nodescoped',
    plain: del('/nodes/pve1/storage/nas/prunebackups', { vmid: 101, 'prune-backups': 'keep-last=1' }),
    variant: del('/nodes/pve1/storage/nas/prunebackups', { 'prune-backups': 'keep-last=1' }),
  },
  { id: 'ceph-pool-force-target', policy: 'guarded', plain: del('/nodes/pve1/qemu/100', {}), variant: del('/nodes/pve1/ceph/pool/vm-pool', { force: 1 }) },
  { id: 'ceph-pool-force-node', policy: 'nodescoped', plain: del('/nodes/pve2/qemu/101', {}), variant: del('/nodes/pve1/ceph/pool/vm-pool', { force: 1 }) },
  {
    id: 'backup-job-reselect-names-pool',
    policy: 'guarded',
    plain: post('/nodes/pve1/vzdump', { vmid: '100', storage: 'nas' }),
    variant: put('/cluster/backup/backup-427e3341-6251', { delete: 'vmid', pool: 'production' }),
  },
  { id: 'retag-out-of-scope', policy: 'devtags', plain: put('/nodes/pve1/qemu/100/config', { description: 'x' }), variant: put('/nodes/pve1/qemu/100/config', { tags: 'dev' }) },
  { id: 'pool-pull-in', policy: 'devpool', plain: put('/nodes/pve1/qemu/100/config', { description: 'x' }), variant: put('/pools/development', { vms: '100', 'allow-move': 1 }) },
  { id: 'clone-into-tag-scope', policy: 'devtags', plain: post('/nodes/pve1/qemu', { vmid: 150 }), variant: post('/nodes/pve1/qemu/118/clone', { newid: 150 }) },
  {
    id: 'move-disk-foreign',
    policy: 'vm100s',
    plain: put('/nodes/pve1/qemu/121/config', { description: 'x' }),
    variant: post('/nodes/pve1/qemu/109/move_disk', { disk: 'scsi0', 'target-vmid': 121, 'target-disk': 'scsi5' }),
  },
  // Storage definitions written by the Ceph and disk handlers, as POST/DELETE /storage write them.
  {
    id: 'ceph-pool-add-storages',
    policy: 'storageguard',
    plain: post('/storage', { storage: 'rbd2', type: 'rbd', pool: 'vm-pool2' }),
    variant: post('/nodes/pve1/ceph/pool', { name: 'vm-pool2', add_storages: 1 }),
  },
  {
    id: 'ceph-pool-ec-storages',
    policy: 'storageguard',
    plain: post('/storage', { storage: 'ec', type: 'rbd', pool: 'ec' }),
    variant: post('/nodes/pve1/ceph/pool', { name: 'ec', 'erasure-coding': 'k=2,m=1' }),
  },
  { id: 'ceph-pool-remove-storages', policy: 'storageguard', plain: del('/storage/ceph-vm'), variant: del('/nodes/pve1/ceph/pool/vm-pool', { remove_storages: 1 }) },
  { id: 'cephfs-add-storage', policy: 'storageguard', plain: post('/storage', { storage: 'fs2', type: 'cephfs' }), variant: post('/nodes/pve1/ceph/fs/fs2', { 'add-storage': 1 }) },
  { id: 'lvm-cleanup-config', policy: 'storageguard', plain: del('/storage/local-lvm'), variant: del('/nodes/pve1/disks/lvm/data', { 'cleanup-config': 1 }) },
  // Giving up a volume group, thin pool or ZFS pool destroys the guest disks on it.
  { id: 'lvmthin-destroy-target', policy: 'guarded', plain: del('/nodes/pve1/qemu/100', {}), variant: del('/nodes/pve1/disks/lvmthin/data', { 'volume-group': 'pve' }) },
  { id: 'zfs-destroy-node', policy: 'nodescoped', plain: del('/nodes/pve2/qemu/101', {}), variant: del('/nodes/pve1/disks/zfs/tank', {}) },
  // A VNet's forward policy and rules cut or open the traffic of every guest on it, without an SDN apply.
  {
    id: 'vnet-firewall-target',
    policy: 'dbguard',
    plain: put('/nodes/pve2/qemu/101/firewall/options', { enable: 1, policy_in: 'DROP' }),
    variant: put('/cluster/sdn/vnets/vnet1/firewall/options', { policy_forward: 'DROP' }),
  },
  {
    id: 'ha-rule-create-names',
    policy: 'dbguard',
    plain: post('/nodes/pve2/qemu/101/migrate', { target: 'pve3' }),
    variant: post('/cluster/ha/rules', { rule: 'r2', type: 'node-affinity', resources: 'vm:101', nodes: 'pve3' }),
  },
];

describe.skipIf(!hasOfficialSchema('9.1'))('another spelling of the same effect is decided no more leniently', () => {
  for (const c of CASES) {
    it(c.id, async () => {
      const plain = await decide(c.policy, c.plain);
      let variant: Awaited<ReturnType<typeof decide>> | { outcome: 'invalid'; message: string };
      try {
        variant = await decide(c.policy, c.variant);
      } catch (err) {
        variant = { outcome: 'invalid', message: (err as Error).message };
      }
      expect(RANK[variant.outcome] ?? 3, `${c.id}: variant ${JSON.stringify(variant)}, plain ${JSON.stringify(plain)}`).toBeGreaterThanOrEqual(RANK[plain.outcome] as number);
    });
  }
});
