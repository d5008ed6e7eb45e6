/**
 * Parameters that change what a call does. The risk class of an operation (schema/risk.ts) is its
 * effect with ordinary parameters; PVE's danger often lives in the parameters: a shutdown with
 * `forceStop` is a power cut, a config `delete` of `unused0` destroys a volume, a backup with
 * `script` runs a hook as root on the node, `sshkeys` hands out a login, an LXC mount point of `/`
 * gives a guest the host. Each rule here raises the call's class when its parameter has such a
 * value, names the class of effect, and names its evidence in the official schema: a test walks
 * the 9.1 schema and fails when a rule's parameter no longer exists, no longer shows that
 * evidence, or no longer raises the class of any operation it applies to.
 *
 * Rules never lower a class. Where a rule raises a call to `privileged`, the policy enables it per
 * parameter (`privileged: ['POST /nodes/*\/vzdump +script']`), so enabling an operation never
 * silently enables its escalations. The rationale of every rule is in docs/risk-classes.md.
 */
import type { Evidence } from '../schema/evidence.js';
import type { HttpMethod, Operation, RiskClass } from '../schema/model.js';
import { isTruthy } from './targets.js';
import { listOf } from '../pve/list-value.js';
import { parsePropertyString, parseVolume } from './volumes.js';

export const ESCALATION_CLASSES = [
  'hard-stop',
  'physical-removal',
  'overwrite',
  'host-exec',
  'credential',
  'host-resource',
  'data-egress',
  'bulk',
  'lock-bypass',
  'root-only',
  'storage-definition',
] as const;
export type EscalationClass = (typeof ESCALATION_CLASSES)[number];

export interface EscalationRule {
  id: string;
  class: EscalationClass;
  risk: 'destructive' | 'privileged';
  methods: readonly HttpMethod[];
  /** Path templates the rule applies to. */
  path: RegExp;
  /** The parameter; `name[n]` stands for an indexed family (`hostpci[n]` = hostpci0…hostpciN). */
  params: readonly string[];
  evidence: Evidence;
  /**
   * Whether the concrete value escalates. Called for every matching parameter present, and once
   * with `undefined` when `whenAbsent` is set and none is present. Default: the value is set and
   * not false.
   */
  when?: (value: unknown, params: Readonly<Record<string, unknown>>) => boolean;
  whenAbsent?: boolean;
  reason: string;
}

/** One escalation of one call: which rule, which parameter. */
export interface Escalation {
  rule: string;
  class: EscalationClass;
  risk: 'destructive' | 'privileged';
  /** The concrete parameter (`scsi1`), or the rule's parameter when it escalates by its absence. */
  param: string;
  reason: string;
}

const GUEST = String.raw`/nodes/\{node\}/(?:qemu|lxc)/\{vmid\}`;
const QEMU = String.raw`/nodes/\{node\}/qemu/\{vmid\}`;
const LXC = String.raw`/nodes/\{node\}/lxc/\{vmid\}`;
const CREATE_OR_CONFIG_QEMU = String.raw`/nodes/\{node\}/qemu(?:/\{vmid\}/config)?`;
const CREATE_OR_CONFIG_LXC = String.raw`/nodes/\{node\}/lxc(?:/\{vmid\}/config)?`;
const CREATE_OR_CONFIG_GUEST = String.raw`/nodes/\{node\}/(?:qemu|lxc)(?:/\{vmid\}/config)?`;
const BACKUP = String.raw`/nodes/\{node\}/vzdump|/cluster/backup(?:/\{id\})?`;
const re = (source: string) => new RegExp(`^(?:${source})$`);
const CHANGES: readonly HttpMethod[] = ['POST', 'PUT'];

const DISK_KEY = /^(?:ide|sata|scsi|virtio|unused|mp)\d+$|^(?:efidisk0|tpmstate0|rootfs)$/;
const UNUSED_KEY = /^unused\d+$/;
const isSet = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && v !== false && v !== 0 && v !== '0';
const deletes = (params: Readonly<Record<string, unknown>>): string[] => listOf(params.delete);
const noVms = (_: unknown, params: Readonly<Record<string, unknown>>): boolean => listOf(params.vms).length === 0;
const hostPath = (v: unknown): boolean => typeof v === 'string' && parseVolume(v)?.hostPath !== undefined;
/**
 * Whether a container create makes a privileged container, as pve-container's create handler
 * decides it for its permission checks: `unprivileged` as given; without it a restore counts as
 * privileged (the check runs before the backup is read) and a plain create as unprivileged (its
 * default). A config write carries no such decision: there the container's own setting counts,
 * which is not in the params (and `unprivileged` is refused as read-only).
 */
const createsPrivileged = (params: Readonly<Record<string, unknown>>): boolean => (params.unprivileged !== undefined ? !isTruthy(params.unprivileged) : isTruthy(params.restore));

export const ESCALATION_RULES: readonly EscalationRule[] = [
  // --- hard stops ---
  {
    id: 'shutdown-force-stop',
    class: 'hard-stop',
    risk: 'destructive',
    methods: ['POST'],
    path: re(`${GUEST}/status/shutdown`),
    params: ['forceStop'],
    evidence: { description: /stops/i },
    when: isTruthy,
    reason: 'a shutdown with forceStop cuts power when the guest does not stop in time (with timeout 0: at once)',
  },
  {
    id: 'bulk-shutdown-force-stop',
    class: 'hard-stop',
    risk: 'destructive',
    methods: ['POST'],
    path: re(String.raw`/cluster/bulk-action/guest/shutdown`),
    params: ['force-stop'],
    // PVE's default is 1: a bulk shutdown without force-stop is one with it.
    evidence: { default: 1 },
    whenAbsent: true,
    when: (v) => v === undefined || isTruthy(v),
    reason: 'a bulk shutdown with force-stop (the default unless it is 0) cuts power to every guest that does not stop in time',
  },
  // --- every guest at once ---
  {
    id: 'bulk-every-guest',
    class: 'bulk',
    risk: 'destructive',
    methods: ['POST'],
    path: re(String.raw`/cluster/bulk-action/guest/(?:start|shutdown|suspend|migrate)`),
    params: ['vms'],
    evidence: { type: 'array' },
    whenAbsent: true,
    when: noVms,
    reason: 'without vms a bulk action acts on every guest of the cluster',
  },
  {
    id: 'node-every-guest',
    class: 'bulk',
    risk: 'destructive',
    methods: ['POST'],
    path: re(String.raw`/nodes/\{node\}/(?:startall|suspendall|migrateall)`),
    params: ['vms'],
    evidence: { format: 'pve-vmid-list' },
    whenAbsent: true,
    when: noVms,
    reason: 'without vms the action starts, suspends or migrates every guest of the node',
  },
  // --- physical removal and pruning ---
  {
    id: 'config-delete-force',
    class: 'physical-removal',
    risk: 'destructive',
    methods: CHANGES,
    path: re(`${QEMU}/config`),
    params: ['force'],
    evidence: { description: /physical removal/i },
    when: (v, params) => isTruthy(v) && deletes(params).some((k) => DISK_KEY.test(k)),
    reason: 'deleting a disk with force destroys its volume instead of keeping it as an unused disk',
  },
  {
    id: 'config-delete-unused',
    class: 'physical-removal',
    risk: 'destructive',
    methods: CHANGES,
    path: re(`${GUEST}/config`),
    params: ['delete'],
    evidence: { format: 'pve-configid-list' },
    when: (v) => listOf(v).some((k) => UNUSED_KEY.test(k)),
    reason: 'deleting an unusedN entry destroys the volume it refers to',
  },
  {
    id: 'backup-prune-backups',
    class: 'physical-removal',
    risk: 'destructive',
    methods: CHANGES,
    path: re(BACKUP),
    params: ['prune-backups'],
    evidence: { format: 'prune-backups' },
    when: (v, params) => prunes(v) && !(Object.hasOwn(params, 'remove') && !isTruthy(params.remove)),
    reason: 'a retention other than keep-all prunes (deletes) older backups after the backup',
  },
  {
    id: 'backup-maxfiles',
    class: 'physical-removal',
    risk: 'destructive',
    methods: CHANGES,
    path: re(BACKUP),
    params: ['maxfiles'],
    evidence: { description: /backup file/i },
    when: (v, params) => isSet(v) && !(Object.hasOwn(params, 'remove') && !isTruthy(params.remove)),
    reason: 'the older retention setting: backups beyond the count are deleted',
  },
  {
    id: 'replication-remove-job',
    class: 'physical-removal',
    risk: 'destructive',
    methods: CHANGES,
    path: re(String.raw`/cluster/replication(?:/\{id\})?`),
    params: ['remove_job'],
    evidence: { description: /remove/i },
    reason: 'marks the job for removal: its replication snapshots (with full: the replicated volumes on the target) are deleted',
  },
  {
    id: 'move-delete-source',
    class: 'physical-removal',
    risk: 'destructive',
    methods: ['POST'],
    path: re(`${QEMU}/move_disk|${LXC}/move_volume`),
    params: ['delete'],
    evidence: { description: /delete/i },
    when: isTruthy,
    reason: 'the source volume is destroyed after the copy instead of being kept as an unused disk',
  },
  // --- overwrite on restore ---
  {
    id: 'restore-force',
    class: 'overwrite',
    risk: 'destructive',
    methods: ['POST'],
    path: re(String.raw`/nodes/\{node\}/(?:qemu|lxc)`),
    params: ['force'],
    evidence: { description: /overwrite/i },
    when: isTruthy,
    reason: 'force restores over an existing guest: its disks and configuration are destroyed',
  },
  // --- code execution on the host ---
  {
    id: 'guest-hookscript',
    class: 'host-exec',
    risk: 'privileged',
    methods: CHANGES,
    path: re(CREATE_OR_CONFIG_GUEST),
    params: ['hookscript'],
    evidence: { description: /script/i },
    when: isSet,
    reason: 'a hook script runs as root on the node at every start and stop of the guest',
  },
  ...(['script', 'dumpdir', 'tmpdir'] as const).map(
    (param): EscalationRule => ({
      id: `backup-${param}`,
      class: 'host-exec',
      risk: 'privileged',
      methods: CHANGES,
      path: re(BACKUP),
      params: [param],
      evidence: { description: param === 'script' ? /script/i : /directory/i },
      when: isSet,
      reason:
        param === 'script'
          ? 'the backup runs the named hook script as root on the node (PVE restricts it to root@pam)'
          : `the backup writes to an arbitrary directory of the node (PVE restricts ${param} to root@pam)`,
    }),
  ),
  {
    id: 'qemu-args',
    class: 'host-exec',
    risk: 'privileged',
    methods: CHANGES,
    path: re(CREATE_OR_CONFIG_QEMU),
    params: ['args'],
    evidence: { description: /arguments/i },
    when: isSet,
    reason: 'raw QEMU arguments can open host files and devices or run programs (root@pam only in PVE)',
  },
  // Internal parameters of migration that qemu-server's start, stop, shutdown, resume and migrate
  // handlers take from root@pam only ("Only root may use this option").
  ...(
    [
      ['start-force-cpu', 'status/start', 'force-cpu', { description: /cpu/i }, 'replaces the -cpu argument QEMU starts with on the host'],
      ['start-migratedfrom', 'status/start', 'migratedfrom', { description: /node/i }, 'starts the VM as the receiving end of a migration from that node'],
      ['start-stateuri', 'status/start', 'stateuri', { description: /state/i }, 'starts QEMU with its state loaded from this location instead of booting it'],
      ['start-migration_type', 'status/start', 'migration_type', { enum: 'insecure' }, "chooses how an incoming migration reaches QEMU ('insecure': guest memory over a plain TCP port)"],
      ['start-migration_network', 'status/start', 'migration_network', { format: 'CIDR' }, 'chooses the host network on which QEMU listens for an incoming migration'],
      ['start-targetstorage', 'status/start', 'targetstorage', { format: 'storage-pair-list' }, "places an incoming migration's local disks on storages of the node"],
      ['start-nets-host-mtu', 'status/start', 'nets-host-mtu', { description: /host_mtu/ }, 'overrides the host_mtu of the network devices QEMU starts with'],
      ['start-with-conntrack-state', 'status/start', 'with-conntrack-state', { description: /conntrack/ }, "takes over the host firewall's connection-tracking state of a migrating VM"],
      [
        'stop-migratedfrom',
        'status/stop',
        'migratedfrom',
        { description: /node/i },
        'kills the VM as the source of a migration: without the config lock, the guest lock check or HA, its config read from that node',
      ],
      [
        'keep-active',
        'status/(?:stop|shutdown)',
        'keepActive',
        { description: /deactivate/ },
        "leaves the VM's volumes activated on the node after it stops (meant for a migration hand-off: a shared volume active on two nodes can be corrupted)",
      ],
      ['resume-nocheck', 'status/resume', 'nocheck', { type: 'boolean' }, 'resumes the VM without checking that its config belongs to this node'],
      ['migrate-migration_type', 'migrate', 'migration_type', { enum: 'insecure' }, "chooses how guest memory and disks travel ('insecure': unencrypted over the network instead of an SSH tunnel)"],
      ['migrate-migration_network', 'migrate', 'migration_network', { format: 'CIDR' }, 'chooses the host network that carries the guest memory and disks'],
    ] as const
  ).map(
    ([id, action, param, evidence, reason]): EscalationRule => ({
      id,
      class: 'root-only',
      risk: 'privileged',
      methods: ['POST'],
      path: re(`${QEMU}/${action}`),
      params: [param],
      evidence,
      when: isSet,
      reason: `${reason} (an internal migration parameter, root@pam only in PVE)`,
    }),
  ),
  {
    id: 'upload-tmpfilename',
    class: 'host-exec',
    risk: 'privileged',
    methods: ['POST'],
    path: re(String.raw`/nodes/\{node\}/storage/\{storage\}/upload`),
    params: ['tmpfilename'],
    evidence: { description: /localhost/i },
    when: isSet,
    reason: 'names a file of the node to import into the storage instead of the uploaded one',
  },
  // --- credentials and logins ---
  ...(
    [
      ['cloudinit-password', CREATE_OR_CONFIG_QEMU, 'cipassword', /password/i, 'sets the password of the cloud-init user'],
      ['cloudinit-user', CREATE_OR_CONFIG_QEMU, 'ciuser', /user/i, 'chooses which guest user receives the cloud-init keys and password'],
      ['cloudinit-sshkeys', CREATE_OR_CONFIG_QEMU, 'sshkeys', /ssh/i, 'installs SSH keys: hands out a login to the guest'],
      ['cloudinit-custom', CREATE_OR_CONFIG_QEMU, 'cicustom', /cloud-init/i, 'custom cloud-init files run arbitrary commands and create users in the guest'],
      ['ct-password', String.raw`/nodes/\{node\}/lxc`, 'password', /password/i, "sets the container's root password"],
      ['ct-ssh-keys', String.raw`/nodes/\{node\}/lxc`, 'ssh-public-keys', /ssh/i, "installs SSH keys for the container's root"],
    ] as const
  ).map(
    ([id, path, param, description, reason]): EscalationRule => ({
      id,
      class: 'credential',
      risk: 'privileged',
      methods: CHANGES,
      path: re(path),
      params: [param],
      evidence: { description },
      when: isSet,
      reason,
    }),
  ),
  {
    id: 'cloudinit-dump-user',
    class: 'credential',
    risk: 'privileged',
    methods: ['GET'],
    path: re(`${QEMU}/cloudinit/dump`),
    params: ['type'],
    evidence: { enum: 'user' },
    when: (v) => v === 'user',
    reason: 'the user-data dump carries the cloud-init password and SSH keys in plain text',
  },
  {
    id: 'ha-state-stop',
    class: 'hard-stop',
    risk: 'destructive',
    methods: CHANGES,
    path: re(String.raw`/cluster/ha/resources(?:/\{sid\})?`),
    params: ['state'],
    evidence: { enum: 'stopped' },
    when: (v) => v === 'stopped' || v === 'disabled',
    reason: 'the HA manager stops the guest, with forceStop after its shutdown timeout',
  },
  // --- host resources exposed to guests ---
  {
    id: 'qemu-host-pci',
    class: 'host-resource',
    risk: 'privileged',
    methods: CHANGES,
    path: re(CREATE_OR_CONFIG_QEMU),
    params: ['hostpci[n]'],
    evidence: { format: 'pve-qm-hostpci' },
    when: (v) => {
      if (typeof v !== 'string' || v === '') return false;
      const keys = parsePropertyString(v, 'host');
      return keys.mapping === undefined || keys.romfile !== undefined;
    },
    reason:
      'passes a host PCI device through to the guest (root@pam only without a resource mapping), or loads a file of the node as its ROM (romfile: a name under /usr/share/kvm/ that PVE does not confine; root@pam only from qemu-server 9.2.6)',
  },
  {
    id: 'qemu-host-usb',
    class: 'host-resource',
    risk: 'privileged',
    methods: CHANGES,
    path: re(CREATE_OR_CONFIG_QEMU),
    params: ['usb[n]'],
    evidence: { keys: ['host', 'mapping'] },
    when: (v) => {
      if (typeof v !== 'string' || v === '') return false;
      const host = parsePropertyString(v, 'host').host;
      return host !== undefined && host !== 'spice';
    },
    reason: 'passes a host USB device through to the guest (root@pam only without a resource mapping)',
  },
  {
    id: 'qemu-host-serial',
    class: 'host-resource',
    risk: 'privileged',
    methods: CHANGES,
    path: re(CREATE_OR_CONFIG_QEMU),
    params: ['serial[n]'],
    evidence: { pattern: /\/dev\// },
    when: (v) => typeof v === 'string' && v.startsWith('/dev/'),
    reason: 'maps a host serial device into the guest (root@pam only in PVE)',
  },
  {
    id: 'qemu-host-parallel',
    class: 'host-resource',
    risk: 'privileged',
    methods: CHANGES,
    path: re(CREATE_OR_CONFIG_QEMU),
    params: ['parallel[n]'],
    evidence: { pattern: /\/dev\// },
    when: isSet,
    reason: 'maps a host parallel device into the guest (root@pam only in PVE)',
  },
  {
    id: 'qemu-disk-host-path',
    class: 'host-resource',
    risk: 'privileged',
    methods: CHANGES,
    path: re(CREATE_OR_CONFIG_QEMU),
    params: ['ide[n]', 'sata[n]', 'scsi[n]', 'virtio[n]', 'efidisk0', 'tpmstate0'],
    evidence: { keys: ['file', 'import-from'] },
    when: (v) => {
      if (typeof v !== 'string') return false;
      const keys = parsePropertyString(v, 'file');
      return hostPath(keys.file) || hostPath(keys['import-from']);
    },
    reason: 'a disk or import source given as an absolute path gives the guest a host device or file (root@pam only in PVE)',
  },
  {
    id: 'qemu-host-cdrom',
    class: 'host-resource',
    risk: 'privileged',
    methods: CHANGES,
    path: re(CREATE_OR_CONFIG_QEMU),
    params: ['ide[n]', 'sata[n]', 'scsi[n]', 'virtio[n]'],
    evidence: { keys: ['file', 'media'] },
    when: (v) => typeof v === 'string' && parsePropertyString(v, 'file').file === 'cdrom',
    reason: "a drive of file 'cdrom' is the node's physical optical drive (PVE requires Sys.Console on / for it)",
  },
  {
    id: 'ct-mount-host-path',
    class: 'host-resource',
    risk: 'privileged',
    methods: CHANGES,
    path: re(CREATE_OR_CONFIG_LXC),
    params: ['mp[n]', 'rootfs'],
    evidence: { keys: ['volume'] },
    when: (v) => typeof v === 'string' && hostPath(parsePropertyString(v, 'volume').volume),
    reason: 'a bind mount or device mount point gives the container a host directory or disk (root@pam only in PVE)',
  },
  {
    id: 'ct-device',
    class: 'host-resource',
    risk: 'privileged',
    methods: CHANGES,
    path: re(CREATE_OR_CONFIG_LXC),
    params: ['dev[n]'],
    evidence: { keys: ['path'] },
    when: isSet,
    reason: 'passes a host device node through to the container (root@pam only in PVE)',
  },
  {
    id: 'ct-features',
    class: 'host-resource',
    risk: 'privileged',
    methods: CHANGES,
    path: re(CREATE_OR_CONFIG_LXC),
    params: ['features'],
    evidence: { keys: ['mknod', 'mount', 'nesting'] },
    when: (v, params) => typeof v === 'string' && (Object.entries(parsePropertyString(v, 'nesting')).some(([k, val]) => k !== 'nesting' && isSet(val)) || (v !== '' && createsPrivileged(params))),
    reason:
      "feature flags other than nesting (mount, mknod, fuse, keyctl, force_rw_sys) loosen the container confinement, and on a privileged container (created with unprivileged 0, or restored without unprivileged 1) nesting too exposes the host's procfs and sysfs to a root that is the host's (root@pam only in PVE)",
  },
  {
    id: 'ct-privileged',
    class: 'host-resource',
    risk: 'privileged',
    methods: ['POST'],
    path: re(String.raw`/nodes/\{node\}/lxc`),
    params: ['unprivileged'],
    evidence: { type: 'boolean' },
    // A restore without unprivileged takes the backup's setting: a privileged container's backup
    // comes back privileged (pve-container reads it from the archive).
    whenAbsent: true,
    when: (_v, params) => createsPrivileged(params),
    reason: "a privileged container's root is root on the host; a restore without unprivileged: 1 keeps the backup's setting, which may be privileged",
  },
  {
    id: 'restore-host-path',
    class: 'host-resource',
    risk: 'privileged',
    methods: ['POST'],
    path: re(String.raw`/nodes/\{node\}/(?:qemu|lxc)`),
    params: ['archive', 'ostemplate'],
    evidence: { description: /path|file/i },
    when: (v) => typeof v === 'string' && (v === '-' || v.startsWith('/')),
    reason: 'restores from a file of the node (or stdin) instead of a storage volume',
  },
  // The options qemu-server's create and config handlers leave to root@pam: every key its
  // permission check (check_vm_modify_config_perm) puts under no VM.Config privilege.
  ...(
    [
      ['qemu-affinity', 'host-resource', 'affinity', { format: 'pve-cpuset' }, 'pins the guest to host CPU cores of its choosing'],
      ['qemu-hugepages', 'host-resource', 'hugepages', { description: /hugepages/ }, 'backs guest memory with hugepages the node reserves for it'],
      ['qemu-keephugepages', 'host-resource', 'keephugepages', { description: /hugepages/ }, "keeps the guest's hugepages reserved on the node after it stops"],
      ['qemu-ivshmem', 'host-resource', 'ivshmem', { keys: ['size', 'name'] }, 'shares a memory file of the node (/dev/shm) with the guest, open to host processes and other guests'],
      ['qemu-amd-sev', 'root-only', 'amd-sev', { format: 'pve-qemu-sev-fmt' }, "runs the guest under AMD SEV, with the host CPU's encryption keys and firmware"],
      ['qemu-intel-tdx', 'root-only', 'intel-tdx', { format: 'pve-qemu-tdx-fmt' }, "runs the guest as an Intel TDX trust domain, with the host CPU's keys and firmware"],
      ['qemu-arch', 'root-only', 'arch', { enum: 'aarch64' }, 'chooses the processor architecture QEMU emulates (a foreign one runs in software, without KVM)'],
      ['qemu-spice-enhancements', 'root-only', 'spice_enhancements', { keys: ['foldersharing', 'videostreaming'] }, 'turns on SPICE folder sharing and video streaming'],
      ['qemu-vmgenid', 'root-only', 'vmgenid', { description: /generation id/i }, 'sets the generation ID through which the guest learns it was cloned or rolled back'],
    ] as const
  ).map(
    ([id, cls, param, evidence, reason]): EscalationRule => ({
      id,
      class: cls,
      risk: 'privileged',
      methods: CHANGES,
      path: re(CREATE_OR_CONFIG_QEMU),
      params: [param],
      evidence,
      when: isSet,
      reason: `${reason} (root@pam only in PVE)`,
    }),
  ),
  {
    id: 'backup-job-id',
    class: 'root-only',
    risk: 'privileged',
    methods: ['POST'],
    path: re(String.raw`/nodes/\{node\}/vzdump`),
    params: ['job-id'],
    evidence: { description: /root@pam/ },
    when: isSet,
    reason: 'passes the backup off as a scheduled job in its notifications (root@pam only in PVE)',
  },
  // --- storage definitions written as a side effect (what POST/PUT/DELETE /storage do outright) ---
  {
    id: 'ceph-pool-add-storages',
    class: 'storage-definition',
    risk: 'privileged',
    methods: ['POST'],
    path: re(String.raw`/nodes/\{node\}/ceph/pools?`),
    params: ['add_storages'],
    evidence: { description: /storage/ },
    // pveceph adds the storages of an erasure-coded pool unless told not to.
    whenAbsent: true,
    when: (v, params) => (v === undefined ? isSet(params['erasure-coding']) : isTruthy(v)),
    reason: 'adds cluster-wide VM and container storages for the new pool (what PVE checks as Datastore.Allocate on /storage); the default for an erasure-coded pool',
  },
  {
    id: 'ceph-pool-remove-storages',
    class: 'storage-definition',
    risk: 'privileged',
    methods: ['DELETE'],
    path: re(String.raw`/nodes/\{node\}/ceph/pools?/\{name\}`),
    params: ['remove_storages'],
    evidence: { description: /storages/ },
    when: isTruthy,
    reason: 'removes every storage definition of the pool from the cluster (what PVE checks as Datastore.Allocate on /storage)',
  },
  {
    id: 'cephfs-add-storage',
    class: 'storage-definition',
    risk: 'privileged',
    methods: ['POST'],
    path: re(String.raw`/nodes/\{node\}/ceph/fs/\{name\}`),
    params: ['add-storage'],
    evidence: { description: /storage/ },
    when: isTruthy,
    reason: 'adds the new CephFS to the cluster as a storage (a storage definition)',
  },
  {
    id: 'disk-cleanup-config',
    class: 'storage-definition',
    risk: 'privileged',
    methods: ['DELETE'],
    path: re(String.raw`/nodes/\{node\}/disks/(?:lvm|lvmthin|directory|zfs)/\{name\}`),
    params: ['cleanup-config'],
    evidence: { description: /storage/ },
    when: isTruthy,
    reason: 'edits or removes the storage definitions that use the removed volume group, thin pool, directory or pool (what PVE checks as Datastore.Allocate on /storage)',
  },
  // --- data leaving the cluster (whole operations that do this are in schema/risk-egress.ts) ---
  {
    id: 'backup-mailto',
    class: 'data-egress',
    risk: 'privileged',
    methods: CHANGES,
    path: re(BACKUP),
    params: ['mailto'],
    evidence: { format: 'email-or-username-list' },
    when: (v) => listOf(v).length > 0,
    reason: 'the backup report (guest names, volumes, errors) is mailed to these recipients, any address',
  },
  {
    id: 'sdn-peers',
    class: 'data-egress',
    risk: 'privileged',
    methods: CHANGES,
    path: re(String.raw`/cluster/sdn/zones(?:/\{zone\})?|/cluster/sdn/controllers(?:/\{controller\})?`),
    params: ['peers'],
    evidence: { format: 'ip-list' },
    when: (v) => listOf(v).length > 0,
    reason: 'a VXLAN zone floods guest traffic to its peers and a BGP/EVPN controller exchanges routes with them; raised here so that the privileged SDN apply never carries addresses nobody approved',
  },
  {
    id: 'sdn-zone-dns',
    class: 'data-egress',
    risk: 'privileged',
    methods: CHANGES,
    path: re(String.raw`/cluster/sdn/zones(?:/\{zone\})?`),
    params: ['dns', 'reversedns'],
    evidence: { description: /dns api server/i },
    when: isSet,
    reason: 'guest names and addresses of the zone are registered in that external DNS server',
  },
  {
    id: 'sdn-zone-ipam',
    class: 'data-egress',
    risk: 'privileged',
    methods: CHANGES,
    path: re(String.raw`/cluster/sdn/zones(?:/\{zone\})?`),
    params: ['ipam'],
    evidence: { description: /ipam/i },
    when: (v) => isSet(v) && v !== 'pve',
    reason: "guest addresses and MACs of the zone go to that IPAM server (the built-in 'pve' IPAM keeps them in the cluster)",
  },
  {
    id: 'acme-directory',
    class: 'data-egress',
    risk: 'privileged',
    methods: ['GET'],
    path: re(String.raw`/cluster/acme/(?:meta|tos)`),
    params: ['directory'],
    evidence: { description: /URL/ },
    when: isSet,
    reason: 'the node fetches this URL, any URL, and returns what it found (without it: the default ACME directory)',
  },
  {
    id: 'node-wakeonlan-address',
    class: 'data-egress',
    risk: 'privileged',
    methods: ['PUT'],
    path: re(String.raw`/nodes/\{node\}/config`),
    params: ['wakeonlan'],
    evidence: { keys: ['broadcast-address'] },
    when: (v) => typeof v === 'string' && isSet(parsePropertyString(v, 'mac')['broadcast-address']),
    reason: 'wake-on-LAN packets for the node go to this address instead of the local broadcast',
  },
  // --- guard rails bypassed ---
  {
    id: 'skiplock',
    class: 'lock-bypass',
    risk: 'privileged',
    methods: ['POST', 'PUT', 'DELETE'],
    path: re(`${GUEST}(?:/.*)?`),
    params: ['skiplock'],
    evidence: { description: /root/i },
    when: isTruthy,
    reason: 'ignores the lock a backup, migration or snapshot holds on the guest (root@pam only in PVE)',
  },
  {
    id: 'qemu-lock',
    class: 'lock-bypass',
    risk: 'privileged',
    methods: CHANGES,
    path: re(`${QEMU}/config`),
    params: ['lock'],
    evidence: { description: /lock/i },
    when: isSet,
    reason: 'sets or clears the guest lock by hand (root@pam only in PVE)',
  },
  {
    id: 'migrate-local-devices',
    class: 'lock-bypass',
    risk: 'privileged',
    methods: ['POST'],
    path: re(`${QEMU}/migrate`),
    params: ['force'],
    evidence: { description: /root/i },
    when: isTruthy,
    reason: 'migrates a VM that uses local host devices (root@pam only in PVE)',
  },
];

const ORDER: Readonly<Record<RiskClass, number>> = { read: 0, write: 1, destructive: 2, privileged: 3 };

export function higherRisk(a: RiskClass, b: RiskClass): RiskClass {
  return ORDER[b] > ORDER[a] ? b : a;
}

/** Does the rule's parameter name (`hostpci[n]`) cover this concrete parameter (`hostpci3`)? */
export function paramMatches(ruleParam: string, name: string): boolean {
  if (!ruleParam.endsWith('[n]')) return ruleParam === name;
  const base = ruleParam.slice(0, -3);
  return name.startsWith(base) && /^\d+$/.test(name.slice(base.length));
}

const rulesByOperation = new Map<string, EscalationRule[]>();

/** The rules that apply to an operation (by method and template; cached: the set is fixed). */
export function rulesFor(op: Pick<Operation, 'method' | 'path'>): EscalationRule[] {
  const key = `${op.method} ${op.path}`;
  let rules = rulesByOperation.get(key);
  if (!rules) {
    rules = ESCALATION_RULES.filter((r) => r.methods.includes(op.method) && r.path.test(op.path));
    rulesByOperation.set(key, rules);
  }
  return rules;
}

/** The escalations of one call: every rule whose parameter has an escalating value. */
export function callEscalations(op: Pick<Operation, 'method' | 'path' | 'risk'>, params: Readonly<Record<string, unknown>>): Escalation[] {
  if (op.risk === 'privileged') return [];
  const rules = rulesFor(op);
  if (rules.length === 0) return [];
  const out: Escalation[] = [];
  for (const rule of rules) {
    if (ORDER[rule.risk] <= ORDER[op.risk]) continue;
    const when = rule.when ?? isSet;
    let present = false;
    for (const name of Object.keys(params)) {
      if (!rule.params.some((p) => paramMatches(p, name))) continue;
      present = true;
      if (when(params[name], params)) out.push({ rule: rule.id, class: rule.class, risk: rule.risk, param: name, reason: rule.reason });
    }
    if (!present && rule.whenAbsent && when(undefined, params)) {
      out.push({ rule: rule.id, class: rule.class, risk: rule.risk, param: rule.params[0] as string, reason: rule.reason });
    }
  }
  return out;
}

/**
 * A shutdown of a guest the HA manager manages is a power cut: qemu-server and pve-container hand
 * it to the HA manager (`crm-command stop`), whose agent stops the guest with forceStop after the
 * timeout (timeout 0: at once). Known only once the guest is looked up (its `hastate`), so it is
 * an escalation of the looked-up facts, not of the params.
 */
export const HA_SHUTDOWN_RULE = {
  id: 'ha-guest-shutdown',
  class: 'hard-stop',
  risk: 'destructive',
  path: re(`${GUEST}/status/shutdown`),
  reason: 'the guest is HA-managed: its shutdown goes through the HA manager, which cuts power when it does not stop in time',
} as const;

const CT_CONFIG = re(`${LXC}/config`);
const CT_FEATURES_RULE = ESCALATION_RULES.find((r) => r.id === 'ct-features') as EscalationRule;

/**
 * Whether raising this call needs to know if the container it configures is privileged: a feature
 * flag written to an existing container, which no rule raised from the params. pve-container lets
 * only root@pam change any feature flag of a privileged container (nesting there exposes the
 * host's procfs and sysfs to a root that is the host's), and the call does not say which kind the
 * container is: its config does (`unprivileged`).
 */
export function needsContainerPrivilege(method: HttpMethod, template: string, params: Readonly<Record<string, unknown>>, escalations: readonly Escalation[]): boolean {
  if (method !== 'PUT' || !CT_CONFIG.test(template)) return false;
  return typeof params.features === 'string' && params.features !== '' && !escalations.some((e) => e.rule === 'ct-features');
}

/** What the lookup found, for the escalations that depend on it. */
export interface LookedUp {
  /** The guests the call reaches, as the cluster lists them; undefined when the listing could not be read. */
  guests: ReadonlyArray<{ ha?: string | undefined }> | undefined;
  /** The configured container is privileged (asked only when `needsContainerPrivilege`). */
  privilegedContainer?: boolean;
}

export function guestEscalations(method: HttpMethod, template: string, params: Readonly<Record<string, unknown>>, found: LookedUp): Escalation[] {
  const out: Escalation[] = [];
  if (method === 'POST' && HA_SHUTDOWN_RULE.path.test(template) && (found.guests === undefined || found.guests.some((g) => g.ha !== undefined && g.ha !== 'ignored'))) {
    const { id, class: cls, risk, reason } = HA_SHUTDOWN_RULE;
    out.push({ rule: id, class: cls, risk, param: 'vmid', reason });
  }
  if (found.privilegedContainer === true && needsContainerPrivilege(method, template, params, [])) {
    const { id, class: cls, risk, reason } = CT_FEATURES_RULE;
    out.push({ rule: id, class: cls, risk, param: 'features', reason });
  }
  return out;
}

/** The risk of a call: the operation's class raised by its escalations. */
export function callRisk(op: Pick<Operation, 'method' | 'path' | 'risk'>, params: Readonly<Record<string, unknown>>): { risk: RiskClass; escalations: Escalation[] } {
  const escalations = callEscalations(op, params);
  return { risk: escalations.reduce<RiskClass>((r, e) => higherRisk(r, e.risk), op.risk), escalations };
}

/** Escalation rules a parameter of this operation can trigger (get_schema and search_api show them). */
export function escalatingParams(op: Pick<Operation, 'method' | 'path' | 'risk' | 'params'>): Array<{ param: string; rule: EscalationRule }> {
  const out: Array<{ param: string; rule: EscalationRule }> = [];
  for (const rule of rulesFor(op)) {
    if (ORDER[rule.risk] <= ORDER[op.risk]) continue;
    for (const p of rule.params) {
      if (op.params.some((spec) => paramMatches(p, spec.name) || spec.name === p)) out.push({ param: p, rule });
    }
  }
  return out;
}

function prunes(value: unknown): boolean {
  if (typeof value !== 'string' || value === '') return isSet(value);
  const keys = parsePropertyString(value, 'keep-all');
  return !(isTruthy(keys['keep-all']) && Object.keys(keys).length === 1) && Object.keys(keys).some((k) => k.startsWith('keep-') && k !== 'keep-all');
}
