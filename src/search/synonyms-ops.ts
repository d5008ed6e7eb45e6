/**
 * Operator words for cluster operations the API names in its own terms: HA relocation and
 * placement rules, corosync's settings, the datacenter's limits, certificates brought from
 * elsewhere, directory sharing, a backup job's coverage, the Ceph configuration file, accounts
 * locked or unlocked. Written in our own words, like synonyms.ts.
 */
import type { SynonymRule } from './synonyms.js';

export const OPERATION_SYNONYM_RULES: readonly SynonymRule[] = [
  // HA relocation stops the guest and starts it on the other node; a live move is a migration.
  { triggers: ['relocate', 'relocation'], terms: { relocate: 1, migrate: 0.6 }, methods: ['POST'] },
  // Which guests may share a node: HA's affinity rules ("keep them on different nodes").
  {
    triggers: [
      'on different nodes',
      'on separate nodes',
      'same node',
      'same host',
      'apart',
      'affinity',
      'anti affinity',
      'colocation',
      'colocate',
      'keep together',
      'prefer',
      'prefers',
      'preferred node',
      'preferred nodes',
    ],
    terms: { affinity: 1, rule: 0.5, ha: 0.5 },
  },
  // The HA stack's elected master and each node's local resource manager are the manager's status.
  { triggers: ['ha master', 'master node', 'master', 'crm', 'lrm', 'ha manager status'], terms: { manager: 1, status: 0.6, ha: 0.5 } },
  // "what is running on pve2", "is anything still running on it": the guests are the unnamed object.
  {
    triggers: ['what is running', 'what runs', 'whats running', 'what s running', 'what is hosted', 'anything running', 'anything still running', 'anything left'],
    terms: { resource: 1, guest: 0.6, qemu: 0.5, lxc: 0.5, status: 0.4 },
    collection: true,
  },
  { triggers: ['totem', 'corosync settings', 'corosync config', 'corosync configuration', 'token timeout', 'corosync token', 'cipher'], terms: { totem: 1, corosync: 0.5 } },
  {
    triggers: ['bandwidth limit', 'bandwidth limits', 'bwlimit', 'speed limit', 'throttle', 'migration bandwidth', 'limit bandwidth'],
    terms: { bwlimit: 1, limit: 0.4 },
  },
  {
    triggers: ['custom certificate', 'own certificate', 'wildcard', 'wildcard certificate', 'corporate certificate', 'commercial certificate', 'certificate and key', 'private key'],
    terms: { custom: 1, certificate: 0.6 },
  },
  {
    triggers: ['host directory', 'shared folder', 'share a directory', 'share directory', 'directory share', 'virtiofs', 'share a folder'],
    terms: { dir: 1, mapping: 0.8 },
  },
  { triggers: ['included volumes', 'included disks', 'what is included', 'covered disks', 'which disks are backed up'], terms: { included: 1, volume: 0.5 } },
  { triggers: ['ceph conf', 'ceph config', 'ceph configuration', 'ceph config file'], terms: { cfg: 1, raw: 0.6, ceph: 0.5 } },
  { triggers: ['lock out', 'block user', 'disable user', 'deactivate user', 'disable the account', 'disable account'], terms: { enable: 1, user: 0.6 }, methods: ['PUT'] },
  // A user is unlocked after failed second factors; a guest's lock (backup, migrate) is a config option.
  { triggers: ['unlock'], terms: { unlock: 1, tfa: 0.5 }, methods: ['PUT'], power: { terms: { lock: 1, config: 0.6 }, methods: ['PUT', 'POST'] } },
  // What a guest is restored from: a backup archive, which creating the guest takes.
  {
    triggers: ['from backup', 'from a backup', 'from the backup', 'from its backup', 'from backups', 'from a backup archive', 'from the backup archive', 'from backup archive'],
    terms: { archive: 1, restore: 0.6 },
  },
  // Which network live migrations take is a datacenter option (`migration: network=…`), not a migration.
  { triggers: ['migration network', 'migrations use', 'migration traffic', 'network for migration', 'network for migrations'], terms: { migration: 1, option: 0.4 } },
  // When a schedule's calendar event fires next: the job schedule's analysis.
  {
    triggers: ['calendar event', 'calendar events', 'calendar string', 'calendar spec', 'calendar expression', 'fire next', 'run next', 'next run', 'next runs'],
    terms: { analyze: 1, schedule: 0.6 },
  },
  // A backup's own guest configuration, read from the archive before restoring it.
  {
    triggers: ['config inside', 'config stored inside', 'configuration inside', 'config in the backup', 'config of the backup', 'config from the backup', 'config of a backup', 'config stored in'],
    terms: { extractconfig: 1, config: 0.4 },
  },
  // HA switched off for the whole cluster (no fencing) is disarmed, and armed again after.
  { triggers: ['switch off ha', 'turn off ha', 'disable ha', 'ha off', 'disarm', 'disarm ha'], terms: { disarm: 1, ha: 0.6 }, methods: ['POST'] },
  { triggers: ['guest password', 'root password', 'administrator password', 'admin password', 'password inside'], terms: { password: 1, agent: 0.5, user: 0.3 } },
];
