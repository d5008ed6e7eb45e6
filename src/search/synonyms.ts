/**
 * Proxmox VE vocabulary: the words operators use mapped to the words the API uses.
 *
 * An operator says "vm", "container", "host", "backup", "power off"; the API says `qemu`, `lxc`,
 * `node`, `vzdump`, `status/stop`. Each rule lists the phrases that trigger it and the index terms
 * (with weights) a match searches for. Everything here is written as plain words; the analyzer stems
 * both sides when the table is compiled, so "snapshots" and "snapshot" trigger the same rule.
 * Longer phrases win over their parts ("ip address" before "ip").
 */
import type { HttpMethod } from '../schema/model.js';
import { OPERATION_SYNONYM_RULES } from './synonyms-ops.js';
import { SYSTEM_SYNONYM_RULES } from './synonyms-system.js';

export interface SynonymRule {
  /** Phrases (one or more words) that trigger the rule. */
  triggers: readonly string[];
  /** Index terms searched when the rule fires, weighted by how well each one stands for the phrase. */
  terms: Readonly<Record<string, number>>;
  /**
   * An action word that opens the request implies its method ("upload an iso" → POST, "snapshot
   * vm 100" → POST); later in the request it is a noun ("list vm snapshots").
   */
  methods?: readonly HttpMethod[];
  /**
   * Importance in the request (default 1). Measurements (cpu, memory, usage) rarely appear in
   * operation text, so an operation that lacks them should not lose much.
   */
  weight?: number;
  /** The phrase asks about many things at once ("all guests", "the most memory"): listings answer it. */
  collection?: true;
  /**
   * What the word means in the plural, when that is the things an action leaves behind rather than
   * the action: "backups" are archives on a storage, "back up" is a vzdump.
   */
  plural?: Readonly<Record<string, number>>;
  /** The phrase compares or counts objects ("most", "how many"); said of one named guest it asks for that guest's own figure. */
  ranking?: true;
  /** The phrase asks where something lives ("which node hosts vm 150"): said of one guest, the answer is where, not the guest. */
  placement?: true;
  /**
   * What the action word means in a question, when the state it leaves is not a runtime status:
   * "which vms have the agent enabled" asks about configuration ("which vms are stopped" about status).
   */
  state?: Readonly<Record<string, number>>;
  /** The phrase says when ("right now"): a state to read in a question, nothing in a request to act ("back up vm 101 right now"). */
  when?: true;
  /** The act brings a guest back into being from its backup ("restore vm 118"): the guest named need not exist, the backup is the archive. */
  recreates?: true;
  /** What the phrase means said of a guest or a node: "turn on vm 101" starts it, "turn on the firewall" enables it. */
  power?: { terms: Readonly<Record<string, number>>; methods: readonly HttpMethod[] };
}

export const SYNONYM_RULES: readonly SynonymRule[] = [
  // Guests
  { triggers: ['vm', 'virtual machine', 'kvm', 'qemu', 'virtual server', 'vps', 'qm'], terms: { qemu: 1, vm: 0.4, virtual: 0.4, machine: 0.4, vmid: 0.4, guest: 0.3 } },
  { triggers: ['container', 'ct', 'lxc', 'lxd'], terms: { lxc: 1, container: 0.7, ct: 0.4 } },
  // Only the cluster's resource list holds guests of both kinds: per-node lists are per kind.
  { triggers: ['guest', 'instance', 'workload', 'machine', 'vm or container', 'vms and containers', 'vms or containers'], terms: { guest: 1, qemu: 0.6, lxc: 0.6, vm: 0.6, resource: 0.6 } },
  { triggers: ['template', 'golden image', 'base image'], terms: { template: 1 } },

  // Hosts and the cluster
  { triggers: ['node', 'host', 'server', 'hypervisor', 'pve host', 'physical host', 'box', 'pvenode'], terms: { node: 1, host: 0.3 } },
  { triggers: ['cluster', 'datacenter', 'data center', 'dc', 'pvecm'], terms: { cluster: 1, datacenter: 0.4 } },
  // Cluster-wide questions: one view of every guest, node or storage answers them, not a per-node
  // list. The phrase keeps the object it names, so "all guests" still asks about guests.
  {
    triggers: ['each guest', 'every guest', 'all guests', 'each vm', 'every vm', 'each container', 'every container'],
    terms: { resource: 1, guest: 0.6, vm: 0.6, qemu: 0.5, lxc: 0.5, cluster: 0.4 },
    collection: true,
  },
  { triggers: ['each node', 'every node', 'all nodes', 'per node'], terms: { resource: 1, node: 0.8, cluster: 0.4 }, collection: true },
  { triggers: ['each storage', 'every storage', 'all storages', 'all storage'], terms: { resource: 1, storage: 0.8, cluster: 0.4 }, collection: true },
  {
    triggers: ['in the datacenter', 'in the cluster', 'clusterwide', 'with their', 'along with'],
    terms: { resource: 1, cluster: 0.6 },
    weight: 0.8,
    collection: true,
  },
  // Where a guest lives: the cluster's resource list names every guest's node.
  {
    triggers: [
      'on which node',
      'which node',
      'what node',
      'which host',
      'what host',
      'on which host',
      'where is',
      'where are',
      'where does',
      'where do',
      'live',
      'lives',
      'hosted',
      'located',
      'resides',
      'reside',
    ],
    terms: { resource: 1, cluster: 0.6 },
    weight: 0.8,
    collection: true,
    placement: true,
  },
  // Rankings and totals compare every object of a kind: the cluster-wide views hold the figures.
  {
    triggers: [
      'most',
      'least',
      'top',
      'highest',
      'lowest',
      'biggest',
      'largest',
      'smallest',
      'busiest',
      'heaviest',
      'how many',
      'in total',
      'total',
      'overall',
      'rank',
      'ranked',
      'sorted by',
      'eating',
      'hogging',
      'using all',
      'using up',
      'consuming',
    ],
    terms: { resource: 1, cluster: 0.6 },
    weight: 0.8,
    collection: true,
    ranking: true,
  },
  { triggers: ['quorum', 'quorate', 'corosync'], terms: { quorum: 1, status: 0.6, cluster: 0.4, corosync: 0.4 } },
  { triggers: ['cluster member', 'cluster members'], terms: { node: 1, cluster: 0.4 } },
  // Members of what the request names (a pool, a group, the cluster): the thing says which.
  { triggers: ['member', 'members', 'membership'], terms: { member: 1, node: 0.3, group: 0.3 } },

  // Power
  {
    triggers: ['at boot', 'on boot', 'start at boot', 'start on boot', 'starts on boot', 'starts at boot', 'autostart', 'auto start', 'start automatically', 'onboot'],
    terms: { onboot: 1, startup: 0.5 },
  },
  { triggers: ['protect', 'protected', 'protection', 'deletion protection', 'prevent deletion', 'from deletion', 'from removal'], terms: { protection: 1 } },
  { triggers: ['swap', 'swap space', 'swap usage'], terms: { swap: 1, memory: 0.5, status: 0.3 } },
  { triggers: ['boot order', 'boot device', 'boot devices', 'boot sequence', 'boot from', 'boots from'], terms: { boot: 1, order: 0.4 } },
  { triggers: ['uefi', 'efi', 'bios', 'ovmf', 'seabios', 'secure boot', 'firmware'], terms: { bios: 1, efidisk: 0.6, ovmf: 0.5 } },
  { triggers: ['start', 'power on', 'boot', 'boot up', 'spin up', 'bring up', 'launch'], terms: { start: 1 }, methods: ['POST'] },
  { triggers: ['stop', 'power off', 'kill', 'halt', 'hard stop', 'pull the plug', 'force off', 'force stop', 'forced stop', 'force kill'], terms: { stop: 1, shutdown: 0.3 }, methods: ['POST'] },
  // "turn on the firewall" enables a feature; "turn on vm 101" or "turn off pve2" powers a guest or node.
  { triggers: ['turn on', 'switch on'], terms: { enable: 1, option: 0.3 }, methods: ['PUT'], state: { enable: 1, config: 0.6, option: 0.5 }, power: { terms: { start: 1 }, methods: ['POST'] } },
  {
    triggers: ['turn off', 'switch off'],
    terms: { enable: 1, option: 0.3 },
    methods: ['PUT'],
    state: { enable: 1, config: 0.6, option: 0.5 },
    power: { terms: { stop: 1, shutdown: 0.3 }, methods: ['POST'] },
  },
  { triggers: ['shutdown', 'shut down', 'power down', 'graceful shutdown', 'shut off', 'gracefully shut down', 'gracefully stop'], terms: { shutdown: 1, stop: 0.3 }, methods: ['POST'] },
  { triggers: ['reboot', 'restart', 'power cycle', 'bounce', 'cycle'], terms: { reboot: 1, restart: 0.8 }, methods: ['POST'] },
  { triggers: ['reset', 'hard reset', 'hard reboot'], terms: { reset: 1 }, methods: ['POST'] },
  { triggers: ['suspend', 'pause', 'freeze', 'sleep'], terms: { suspend: 1, pause: 0.3 }, methods: ['POST'] },
  { triggers: ['hibernate', 'suspend to disk'], terms: { suspend: 1, todisk: 0.6 }, methods: ['POST'] },
  { triggers: ['resume', 'unpause', 'continue', 'wake up', 'unfreeze'], terms: { resume: 1 }, methods: ['POST'] },
  { triggers: ['start all', 'start everything', 'startall', 'start every'], terms: { startall: 1, start: 0.4 }, methods: ['POST'] },
  { triggers: ['stop all', 'stop everything', 'stopall', 'shutdown all', 'shut down all', 'stop every', 'shut down every', 'shutdown every'], terms: { stopall: 1, stop: 0.4 }, methods: ['POST'] },
  { triggers: ['suspend all', 'suspendall', 'suspend every'], terms: { suspendall: 1 }, methods: ['POST'] },
  { triggers: ['migrate all', 'evacuate', 'migrateall', 'drain', 'migrate every'], terms: { migrateall: 1, migrate: 0.4 }, methods: ['POST'] },
  { triggers: ['bulk', 'mass', 'en masse'], terms: { bulk: 1, all: 0.3 } },
  { triggers: ['wake on lan', 'wol', 'wakeonlan', 'magic packet'], terms: { wakeonlan: 1 }, methods: ['POST'] },

  // Guest lifecycle
  {
    triggers: [
      'migrate',
      'migration',
      'live migrate',
      'live migration',
      'move to another node',
      'move to another host',
      'move to node',
      'to node',
      'onto node',
      'over to node',
      'migrated',
      'migrating',
      'another node',
      'other node',
      'different node',
      'another host',
      'other host',
      'different host',
    ],
    terms: { migrate: 1, migration: 0.6 },
    methods: ['POST'],
  },
  { triggers: ['clone', 'copy', 'duplicate', 'full clone', 'linked clone'], terms: { clone: 1, copy: 0.4 }, methods: ['POST'] },
  { triggers: ['resize', 'grow', 'extend', 'enlarge', 'expand', 'increase size', 'make bigger', 'bigger', 'shrink', 'make smaller'], terms: { resize: 1, extend: 0.5, size: 0.4 }, methods: ['PUT'] },
  { triggers: ['move', 'transfer', 'relocate disk'], terms: { move: 1, migrate: 0.3 }, methods: ['POST'] },
  { triggers: ['snapshot', 'snap', 'checkpoint'], terms: { snapshot: 1, snap: 0.5 }, methods: ['POST'] },
  { triggers: ['rollback', 'roll back', 'revert', 'revert to', 'go back', 'undo', 'throw away', 'discard changes'], terms: { rollback: 1, revert: 0.4 }, methods: ['POST'] },
  { triggers: ['restore', 'recover', 'bring back'], terms: { restore: 1, archive: 0.4, vzdump: 0.2 }, methods: ['POST'], recreates: true },
  { triggers: ['convert to template', 'make template', 'turn into template', 'templatize'], terms: { template: 1 }, methods: ['POST'] },
  { triggers: ['config', 'configuration', 'settings', 'setting', 'properties', 'conf'], terms: { config: 1, option: 0.6, setting: 0.3 } },
  { triggers: ['options', 'option'], terms: { option: 1, config: 0.7 } },
  { triggers: ['pending', 'pending changes', 'unapplied', 'uncommitted', 'not applied', 'not yet applied', 'unsaved', 'staged'], terms: { pending: 1 } },
  // A guest's change that waits for its next start is pending: "what only applies after a reboot".
  {
    triggers: [
      'apply after a reboot',
      'apply after reboot',
      'applies after a reboot',
      'after the next reboot',
      'on next boot',
      'take effect',
      'takes effect',
      'need a reboot',
      'needs a reboot',
      'require a reboot',
      'requires a reboot',
      'reboot required',
    ],
    terms: { pending: 1 },
  },
  { triggers: ['apply', 'reload', 'commit', 'apply changes'], terms: { reload: 1, apply: 1 }, methods: ['PUT'] },
  // What an apply would do, without doing it: the dry run's difference.
  { triggers: ['dry run', 'preview', 'what would change', 'what will change', 'would change', 'what if', 'diff', 'difference', 'simulate'], terms: { dry: 1, difference: 0.5 } },
  { triggers: ['enable', 'disable', 'activate', 'deactivate'], terms: { enable: 1, option: 0.3 }, methods: ['PUT'], state: { enable: 1, config: 0.6, option: 0.5 } },
  { triggers: ['unlink', 'detach disk'], terms: { unlink: 1, disk: 0.3 } },
  { triggers: ['feature', 'capability', 'supported'], terms: { feature: 1, capability: 0.6 } },

  // Storage
  // A guest's disks are its scsi0, virtio0, sata0, ide0 … options: its configuration lists them.
  { triggers: ['disk', 'drive', 'hard disk', 'virtual disk', 'vdisk', 'hdd'], terms: { disk: 1, volume: 0.7, drive: 0.3, scsi: 0.3, virtio: 0.3, sata: 0.3, ide: 0.3 } },
  { triggers: ['volume', 'disk image', 'volid', 'volume id'], terms: { volume: 1, disk: 0.7, image: 0.3 } },
  { triggers: ['physical disk', 'physical disks', 'local disk', 'local disks', 'block device', 'ssd', 'nvme'], terms: { disk: 1, list: 0.5, local: 0.5, dev: 0.3 } },
  { triggers: ['storage', 'datastore', 'data store', 'storages', 'store', 'pvesm'], terms: { storage: 1, datastore: 0.5 } },
  { triggers: ['iso', 'iso image', 'installer', 'install media', 'cd image', 'cdrom'], terms: { iso: 1, content: 0.6, image: 0.4 } },
  { triggers: ['image', 'images', 'ova', 'appliance image'], terms: { image: 1, content: 0.5, iso: 0.3 } },
  { triggers: ['storage content', 'content', 'files on storage', 'contents'], terms: { content: 1, volume: 0.3 } },
  // "what's on the local storage", "what is stored in nas": what a place holds is its content.
  { triggers: ['what s on', 'what is on', 'what is stored', 'what s stored', 'stored on'], terms: { content: 0.7, volume: 0.3 } },
  { triggers: ['container template', 'ct template', 'lxc template', 'appliance', 'turnkey', 'aplinfo', 'pveam'], terms: { aplinfo: 1, appliance: 0.8, template: 0.5 } },
  { triggers: ['backup', 'vzdump', 'dump'], terms: { vzdump: 1, backup: 1 }, methods: ['POST'], plural: { content: 1, backup: 0.8, vzdump: 0.4 } },
  { triggers: ['back up', 'backup now', 'run backup', 'run a backup', 'start backup', 'start a backup'], terms: { vzdump: 1, backup: 1 }, methods: ['POST'] },
  {
    triggers: ['backup files', 'backup archives', 'stored backups', 'existing backups', 'backups on storage', 'backups on a storage', 'backups in storage', 'backup volumes'],
    terms: { content: 1, backup: 0.5, storage: 0.5 },
  },
  { triggers: ['backup job', 'backup schedule', 'scheduled backup', 'backup plan', 'backup jobs'], terms: { backup: 1, job: 0.6, schedule: 0.4, vzdump: 0.4 } },
  { triggers: ['not backed up', 'without backup', 'unprotected', 'no backup', 'missing backup', 'uncovered'], terms: { backed: 1, backup: 0.5, not: 0.5 } },
  { triggers: ['prune', 'retention', 'cleanup old backups', 'old backups', 'keep last'], terms: { prune: 1, prunebackup: 1, backup: 0.3 } },
  { triggers: ['upload', 'upload file'], terms: { upload: 1 }, methods: ['POST'] },
  { triggers: ['download', 'fetch from url', 'from url', 'url', 'wget'], terms: { download: 1, url: 0.6 } },
  {
    triggers: ['how much', 'free space', 'disk space', 'capacity', 'space left', 'how full', 'almost full', 'full', 'filling up', 'usage', 'utilization', 'used space'],
    terms: { status: 0.6, used: 0.5, avail: 0.5, usage: 0.3 },
    weight: 0.6,
  },
  { triggers: ['zfs', 'zpool', 'zfs pool'], terms: { zfs: 1, zpool: 0.6 } },
  { triggers: ['lvm', 'volume group', 'vg'], terms: { lvm: 1 } },
  { triggers: ['thin pool', 'lvm thin', 'lvmthin', 'thinpool'], terms: { lvmthin: 1, thin: 0.5 } },
  { triggers: ['smart', 'disk health', 'smart status', 'smart values', 'wearout', 'wear level', 'dying', 'bad sectors', 'reallocated sectors'], terms: { smart: 1, health: 0.5 } },
  { triggers: ['wipe', 'wipe disk', 'zap', 'erase disk'], terms: { wipe: 1, wipedisk: 1 }, methods: ['PUT'] },
  { triggers: ['gpt', 'partition table', 'initialize disk'], terms: { initgpt: 1, gpt: 1 } },
  { triggers: ['nfs'], terms: { nfs: 1, storage: 0.3 } },
  { triggers: ['cifs', 'smb', 'samba', 'windows share'], terms: { cifs: 1 } },
  { triggers: ['iscsi', 'san'], terms: { iscsi: 1 } },
  { triggers: ['pbs', 'proxmox backup server', 'backup server'], terms: { pbs: 1 } },
  { triggers: ['scan', 'discover', 'probe', 'exports'], terms: { scan: 1 } },
  // One file out of a backup, browsed before it is restored: the file restore reads the archive's tree.
  {
    triggers: [
      'file restore',
      'single file restore',
      'restore file',
      'restore a file',
      'restore one file',
      'restore a single file',
      'one file',
      'single file',
      'browse inside',
      'browse the backup',
      'inside the backup',
      'inside a backup',
      'files inside the backup',
      'files in the backup',
    ],
    terms: { file: 1, restore: 1 },
  },

  // Networking, guest access, monitoring, node administration, access control: synonyms-system.ts.
  ...SYSTEM_SYNONYM_RULES,
  ...OPERATION_SYNONYM_RULES,
];
