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
import { analyze, stem, tokenize } from './analyzer.js';

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
  /** What the phrase means said of a guest or a node: "turn on vm 101" starts it, "turn on the firewall" enables it. */
  power?: { terms: Readonly<Record<string, number>>; methods: readonly HttpMethod[] };
}

export const SYNONYM_RULES: readonly SynonymRule[] = [
  // Guests
  { triggers: ['vm', 'virtual machine', 'kvm', 'qemu', 'virtual server', 'vps'], terms: { qemu: 1, vm: 0.4, virtual: 0.4, machine: 0.4, vmid: 0.4, guest: 0.3 } },
  { triggers: ['container', 'ct', 'lxc', 'lxd'], terms: { lxc: 1, container: 0.7, ct: 0.4 } },
  // Only the cluster's resource list holds guests of both kinds: per-node lists are per kind.
  { triggers: ['guest', 'instance', 'workload', 'vm or container', 'vms and containers', 'vms or containers'], terms: { guest: 1, qemu: 0.6, lxc: 0.6, vm: 0.6, resource: 0.6 } },
  { triggers: ['template', 'golden image', 'base image'], terms: { template: 1 } },

  // Hosts and the cluster
  { triggers: ['node', 'host', 'server', 'hypervisor', 'pve host', 'physical host', 'machine', 'box'], terms: { node: 1, host: 0.3 } },
  { triggers: ['cluster', 'datacenter', 'data center', 'dc'], terms: { cluster: 1, datacenter: 0.4 } },
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
    triggers: ['on which node', 'which node', 'what node', 'which host', 'what host', 'on which host', 'where is', 'where are', 'where does', 'where do', 'live', 'lives', 'hosted', 'located', 'resides', 'reside'],
    terms: { resource: 1, cluster: 0.6 },
    weight: 0.8,
    collection: true,
    placement: true,
  },
  // Rankings and totals compare every object of a kind: the cluster-wide views hold the figures.
  {
    triggers: ['most', 'least', 'top', 'highest', 'lowest', 'biggest', 'largest', 'smallest', 'busiest', 'heaviest', 'how many', 'in total', 'total', 'overall', 'rank', 'ranked', 'sorted by'],
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
  { triggers: ['at boot', 'on boot', 'start at boot', 'start on boot', 'starts on boot', 'starts at boot', 'autostart', 'auto start', 'start automatically', 'onboot'], terms: { onboot: 1, startup: 0.5 } },
  { triggers: ['protect', 'protected', 'protection', 'deletion protection', 'prevent deletion', 'from deletion', 'from removal'], terms: { protection: 1 } },
  { triggers: ['swap', 'swap space', 'swap usage'], terms: { swap: 1, memory: 0.5, status: 0.3 } },
  { triggers: ['boot order', 'boot device', 'boot devices', 'boot sequence', 'boot from', 'boots from'], terms: { boot: 1, order: 0.4 } },
  { triggers: ['uefi', 'efi', 'bios', 'ovmf', 'seabios', 'secure boot', 'firmware'], terms: { bios: 1, efidisk: 0.6, ovmf: 0.5 } },
  { triggers: ['start', 'power on', 'boot', 'boot up', 'spin up', 'bring up', 'launch'], terms: { start: 1 }, methods: ['POST'] },
  { triggers: ['stop', 'power off', 'kill', 'halt', 'hard stop', 'pull the plug', 'force off', 'force stop', 'forced stop', 'force kill'], terms: { stop: 1, shutdown: 0.3 }, methods: ['POST'] },
  // "turn on the firewall" enables a feature; "turn on vm 101" or "turn off pve2" powers a guest or node.
  { triggers: ['turn on', 'switch on'], terms: { enable: 1, option: 0.3 }, methods: ['PUT'], state: { enable: 1, config: 0.6, option: 0.5 }, power: { terms: { start: 1 }, methods: ['POST'] } },
  { triggers: ['turn off', 'switch off'], terms: { enable: 1, option: 0.3 }, methods: ['PUT'], state: { enable: 1, config: 0.6, option: 0.5 }, power: { terms: { stop: 1, shutdown: 0.3 }, methods: ['POST'] } },
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
  { triggers: ['migrate', 'migration', 'live migrate', 'live migration', 'move to another node', 'move to another host', 'move to node', 'to node', 'onto node', 'over to node', 'relocate', 'migrated', 'migrating', 'another node', 'other node', 'different node', 'another host', 'other host', 'different host'], terms: { migrate: 1, migration: 0.6 }, methods: ['POST'] },
  { triggers: ['clone', 'copy', 'duplicate', 'full clone', 'linked clone'], terms: { clone: 1, copy: 0.4 }, methods: ['POST'] },
  { triggers: ['resize', 'grow', 'extend', 'enlarge', 'expand', 'increase size', 'make bigger', 'bigger'], terms: { resize: 1, extend: 0.5, size: 0.4 }, methods: ['PUT'] },
  { triggers: ['move', 'transfer', 'relocate disk'], terms: { move: 1, migrate: 0.3 }, methods: ['POST'] },
  { triggers: ['snapshot', 'snap', 'checkpoint'], terms: { snapshot: 1, snap: 0.5 }, methods: ['POST'] },
  { triggers: ['rollback', 'roll back', 'revert', 'revert to', 'go back', 'undo'], terms: { rollback: 1, revert: 0.4 }, methods: ['POST'] },
  { triggers: ['restore', 'recover'], terms: { restore: 1, archive: 0.4, vzdump: 0.2 }, methods: ['POST'] },
  { triggers: ['convert to template', 'make template', 'turn into template', 'templatize'], terms: { template: 1 }, methods: ['POST'] },
  { triggers: ['config', 'configuration', 'settings', 'setting', 'properties', 'conf'], terms: { config: 1, option: 0.6, setting: 0.3 } },
  { triggers: ['options', 'option'], terms: { option: 1, config: 0.7 } },
  { triggers: ['pending', 'pending changes', 'unapplied'], terms: { pending: 1 } },
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
  { triggers: ['storage', 'datastore', 'data store', 'storages', 'store'], terms: { storage: 1, datastore: 0.5 } },
  { triggers: ['iso', 'iso image', 'installer', 'install media', 'cd image', 'cdrom'], terms: { iso: 1, content: 0.6, image: 0.4 } },
  { triggers: ['image', 'images', 'ova', 'appliance image'], terms: { image: 1, content: 0.5, iso: 0.3 } },
  { triggers: ['storage content', 'content', 'files on storage', 'contents'], terms: { content: 1, volume: 0.3 } },
  { triggers: ['container template', 'ct template', 'lxc template', 'appliance', 'turnkey', 'aplinfo'], terms: { aplinfo: 1, appliance: 0.8, template: 0.5 } },
  { triggers: ['backup', 'vzdump', 'dump'], terms: { vzdump: 1, backup: 1 }, methods: ['POST'], plural: { content: 1, backup: 0.8, vzdump: 0.4 } },
  { triggers: ['back up', 'backup now', 'run backup', 'run a backup', 'start backup', 'start a backup'], terms: { vzdump: 1, backup: 1 }, methods: ['POST'] },
  { triggers: ['backup files', 'backup archives', 'stored backups', 'existing backups', 'backups on storage', 'backups on a storage', 'backups in storage', 'backup volumes'], terms: { content: 1, backup: 0.5, storage: 0.5 } },
  { triggers: ['backup job', 'backup schedule', 'scheduled backup', 'backup plan', 'backup jobs'], terms: { backup: 1, job: 0.6, schedule: 0.4, vzdump: 0.4 } },
  { triggers: ['not backed up', 'without backup', 'unprotected', 'no backup', 'missing backup', 'uncovered'], terms: { backed: 1, backup: 0.5, not: 0.5 } },
  { triggers: ['prune', 'retention', 'cleanup old backups', 'old backups', 'keep last'], terms: { prune: 1, prunebackup: 1, backup: 0.3 } },
  { triggers: ['upload', 'upload file'], terms: { upload: 1 }, methods: ['POST'] },
  { triggers: ['download', 'fetch from url', 'from url', 'url', 'wget'], terms: { download: 1, url: 0.6 } },
  { triggers: ['how much', 'free space', 'disk space', 'capacity', 'space left', 'how full', 'almost full', 'full', 'filling up', 'usage', 'utilization', 'used space'], terms: { status: 0.6, used: 0.5, avail: 0.5, usage: 0.3 }, weight: 0.6 },
  { triggers: ['zfs', 'zpool', 'zfs pool'], terms: { zfs: 1, zpool: 0.6 } },
  { triggers: ['lvm', 'volume group', 'vg'], terms: { lvm: 1 } },
  { triggers: ['thin pool', 'lvm thin', 'lvmthin', 'thinpool'], terms: { lvmthin: 1, thin: 0.5 } },
  { triggers: ['smart', 'disk health', 'smart status', 'smart values'], terms: { smart: 1, health: 0.5 } },
  { triggers: ['wipe', 'wipe disk', 'zap', 'erase disk'], terms: { wipe: 1, wipedisk: 1 }, methods: ['PUT'] },
  { triggers: ['gpt', 'partition table', 'initialize disk'], terms: { initgpt: 1, gpt: 1 } },
  { triggers: ['nfs'], terms: { nfs: 1, storage: 0.3 } },
  { triggers: ['cifs', 'smb', 'samba', 'windows share'], terms: { cifs: 1 } },
  { triggers: ['iscsi', 'san'], terms: { iscsi: 1 } },
  { triggers: ['pbs', 'proxmox backup server', 'backup server'], terms: { pbs: 1 } },
  { triggers: ['scan', 'discover', 'probe'], terms: { scan: 1 } },
  { triggers: ['file restore', 'single file restore', 'restore file', 'restore a file'], terms: { file: 1, restore: 1 } },

  // Networking
  { triggers: ['ip', 'ip address', 'ip addresses', 'ipv4', 'ipv6', 'address', 'addresses'], terms: { interface: 1, ip: 0.6, network: 0.4, address: 0.4 } },
  { triggers: ['nic', 'network card', 'network interface', 'network interfaces', 'iface', 'interface', 'interfaces', 'network device', 'ethernet', 'network config'], terms: { network: 1, iface: 0.7, interface: 0.5 } },
  { triggers: ['network', 'networking', 'net'], terms: { network: 1, net: 0.3 } },
  // A guest's bridge and VLAN tag are in its net0… options (its config).
  { triggers: ['bridge', 'linux bridge', 'vmbr', 'bond', 'vlan', 'ovs', 'vlan tag'], terms: { bridge: 1, network: 0.7, iface: 0.3, net: 0.4 } },
  { triggers: ['firewall', 'fw', 'iptables', 'packet filter', 'nftables'], terms: { firewall: 1 } },
  { triggers: ['rule', 'firewall rule', 'fw rule'], terms: { rule: 1, firewall: 0.3 } },
  { triggers: ['security group', 'firewall group'], terms: { security: 1, group: 0.5, firewall: 0.5 } },
  { triggers: ['ipset', 'ip set', 'ip list', 'blocklist', 'allowlist', 'whitelist', 'blacklist'], terms: { ipset: 1 } },
  // PVE blocks an address by putting it in an IP set (or a rule) of the firewall.
  { triggers: ['block', 'ban'], terms: { ipset: 0.8, firewall: 0.6, rule: 0.3 }, methods: ['POST'] },
  { triggers: ['unblock', 'unban'], terms: { ipset: 0.8, firewall: 0.6, rule: 0.3 }, methods: ['DELETE'] },
  // What a firewall rule says: let traffic in or keep it out, to a port or a service.
  { triggers: ['allow', 'permit', 'deny', 'reject', 'open port', 'open ports'], terms: { rule: 1, firewall: 0.5, dport: 0.4 }, methods: ['POST'] },
  { triggers: ['port', 'ports', 'inbound', 'incoming traffic', 'outbound'], terms: { rule: 1, firewall: 0.5, dport: 0.4 } },
  { triggers: ['alias', 'network alias'], terms: { alias: 1 } },
  // A guest's MAC address is in its net0… options (its config), as its bridge is.
  { triggers: ['mac', 'mac address', 'mac addresses', 'hwaddr', 'macaddr', 'hardware address'], terms: { hwaddr: 1, macaddr: 1, net: 0.6, config: 0.3 } },
  { triggers: ['dns', 'nameserver', 'resolver', 'resolv conf', 'search domain'], terms: { dns: 1 } },
  { triggers: ['hosts file', 'etc hosts', '/etc/hosts'], terms: { host: 1, etc: 1 } },
  { triggers: ['sdn', 'software defined network', 'software defined networking'], terms: { sdn: 1 } },
  { triggers: ['vnet', 'virtual network'], terms: { vnet: 1, sdn: 0.3 } },
  { triggers: ['subnet', 'cidr', 'prefix'], terms: { subnet: 1 } },
  { triggers: ['zone', 'evpn', 'vxlan'], terms: { zone: 1 } },
  { triggers: ['ipam', 'ip management', 'dhcp'], terms: { ipam: 1 } },
  // netin / netout: the per-guest counters the resource list and status reads return.
  { triggers: ['traffic', 'bandwidth', 'network traffic', 'network bandwidth', 'network throughput', 'network counters', 'netstat', 'network io', 'network usage', 'throughput'], terms: { netstat: 1, network: 0.4, netin: 0.6, netout: 0.6 } },
  { triggers: ['disk io', 'io', 'iops', 'disk reads', 'disk writes', 'disk read', 'disk write', 'disk throughput', 'io load'], terms: { diskread: 1, diskwrite: 1, io: 0.4 } },

  // Guest access and the guest agent
  { triggers: ['console', 'vnc', 'novnc', 'remote console', 'screen'], terms: { vncproxy: 1, termproxy: 0.8, vnc: 0.6, console: 0.5 } },
  { triggers: ['terminal', 'shell', 'ssh', 'xterm', 'tty', 'serial console', 'command line'], terms: { termproxy: 1, vncshell: 0.7, shell: 0.6, terminal: 0.3 } },
  { triggers: ['spice', 'virt viewer', 'remote viewer'], terms: { spiceproxy: 1, spiceshell: 1, spice: 0.6 } },
  { triggers: ['guest agent', 'qemu agent', 'qga', 'agent', 'qemu guest agent'], terms: { agent: 1 } },
  { triggers: ['ping', 'responding', 'responsive', 'respond', 'reachable', 'answering'], terms: { ping: 1, status: 0.3 } },
  { triggers: ['run command', 'shell command', 'shell commands', 'execute command', 'exec', 'execute', 'run a command', 'execute a command', 'command', 'commands'], terms: { exec: 1, command: 0.6, execute: 0.4 }, methods: ['POST'] },
  { triggers: ['read file', 'read a file', 'cat', 'file content', 'get file'], terms: { file: 1, read: 0.5 } },
  { triggers: ['write file', 'write a file', 'put file', 'push file', 'place file'], terms: { file: 1, write: 1 } },
  { triggers: ['guest os', 'operating system', 'os info', 'os version', 'distribution', 'distro', 'os'], terms: { osinfo: 1, os: 0.5 } },
  { triggers: ['guest hostname', 'host name', 'hostname'], terms: { hostname: 1, name: 0.3 } },
  { triggers: ['filesystem', 'filesystems', 'file system', 'mounted filesystems', 'fsinfo'], terms: { fsinfo: 1, filesystem: 0.5 } },
  { triggers: ['trim', 'fstrim'], terms: { fstrim: 1 } },
  { triggers: ['fsfreeze', 'freeze filesystem', 'quiesce'], terms: { fsfreeze: 1 } },
  { triggers: ['keyboard layout', 'keymap', 'keyboard language'], terms: { keyboard: 1 } },
  { triggers: ['send key', 'sendkey', 'keypress', 'key press', 'ctrl alt del', 'keyboard'], terms: { sendkey: 1, key: 0.5 }, methods: ['PUT'] },
  { triggers: ['cloud init', 'cloud-init', 'cloudinit', 'ci', 'user data', 'userdata'], terms: { cloudinit: 1 } },
  { triggers: ['qemu monitor', 'hmp', 'monitor command', 'human monitor'], terms: { monitor: 1 } },
  { triggers: ['mount point', 'mountpoint', 'mp', 'rootfs', 'root disk'], terms: { volume: 1, mp: 0.6, rootfs: 0.6 } },

  // Monitoring
  { triggers: ['status', 'state', 'health', 'healthy', 'up', 'alive', 'online', 'uptime'], terms: { status: 1, current: 0.5 } },
  { triggers: ['running', 'active', 'run', 'runs'], terms: { status: 0.6, running: 0.5, current: 0.4 }, weight: 0.5 },
  { triggers: ['right now', 'currently', 'at the moment', 'current'], terms: { current: 1, status: 0.6 }, weight: 0.6, when: true },
  { triggers: ['cpu', 'cpus', 'processor', 'vcpu', 'vcpus', 'cores', 'core', 'sockets'], terms: { cpu: 1, core: 0.5, status: 0.3 }, weight: 0.6 },
  { triggers: ['memory', 'ram', 'mem', 'free memory', 'available memory', 'memory usage', 'memory used', 'used memory'], terms: { memory: 1, mem: 0.8, status: 0.3 }, weight: 0.6 },
  { triggers: ['memory block', 'memory blocks'], terms: { memory: 1, block: 1 } },
  { triggers: ['load', 'load average', 'loadavg', 'busy', 'performance', 'utilisation'], terms: { loadavg: 1, status: 0.6, cpu: 0.4 }, weight: 0.6 },
  {
    triggers: ['history', 'graph', 'graphs', 'chart', 'trend', 'statistics', 'stats', 'over time', 'rrd', 'time series', 'historical',
      'last hour', 'last day', 'last week', 'last month', 'last year', 'past hour', 'past day', 'past week', 'past month', 'past year', 'yesterday', 'over the last', 'over the past'],
    terms: { rrddata: 1, rrd: 0.6, statistic: 0.5 },
  },
  { triggers: ['metric server', 'metric servers', 'metrics server', 'metrics servers', 'external metric server', 'influxdb server', 'influx server', 'graphite server'], terms: { metric: 1, server: 1 } },
  // Sending metrics somewhere is configuring an external metric server.
  { triggers: ['send metrics', 'ship metrics', 'push metrics', 'forward metrics', 'send stats', 'ship stats', 'send statistics'], terms: { metric: 1, server: 1 }, methods: ['POST'] },
  { triggers: ['metric', 'metrics', 'influxdb', 'graphite', 'opentelemetry', 'prometheus', 'exporter'], terms: { metric: 1, server: 0.3 } },
  { triggers: ['log', 'logs', 'logfile', 'output'], terms: { log: 1 } },
  // Both read the node's log; the word the operator used decides between them.
  { triggers: ['syslog', 'system log', 'dmesg'], terms: { syslog: 1, journal: 0.8, log: 0.5 } },
  { triggers: ['journal', 'journald', 'journalctl'], terms: { journal: 1, syslog: 0.8, log: 0.5 } },
  { triggers: ['task', 'tasks', 'upid', 'activity', 'recent activity', 'worker'], terms: { task: 1 } },
  { triggers: ['job', 'jobs', 'scheduled job', 'cron'], terms: { job: 1, schedule: 0.3, task: 0.3 } },
  { triggers: ['schedule', 'scheduled', 'nightly', 'daily', 'weekly', 'hourly', 'monthly', 'every night', 'every day', 'every hour', 'every week', 'every minute', 'minutes', 'recurring', 'periodic', 'periodically', 'regularly'], terms: { schedule: 1, job: 0.5 } },
  // What failed in PVE is a task: its status holds the error, its log the reason.
  { triggers: ['fail', 'failed', 'error', 'errors', 'errored', 'broken', 'crashed', 'unsuccessful'], terms: { error: 1, fail: 0.5, task: 0.4 } },
  { triggers: ['why', 'reason', 'cause', 'what went wrong'], terms: { log: 1, error: 0.5 }, weight: 0.6 },
  { triggers: ['version', 'release', 'pve version', 'proxmox version', 'which version'], terms: { version: 1 } },
  { triggers: ['report', 'diagnostics', 'system report', 'support report'], terms: { report: 1 } },
  // A guest named by its name, not its ID: only the resource list maps names to guests (pve.findGuest).
  { triggers: ['named', 'called', 'with the name', 'by name', 'by its name'], terms: { resource: 1, name: 0.6 }, weight: 1.4 },
  { triggers: ['resources', 'inventory', 'overview', 'everything', 'all resources', 'cluster resources'], terms: { resource: 1 } },
  // Cluster-wide guest listings live in the resource list, not under a node.
  { triggers: ['guests in the cluster', 'vms in the cluster', 'across the cluster', 'cluster wide', 'whole cluster'], terms: { resource: 1, cluster: 0.6 }, collection: true },
  { triggers: ['next id', 'next free id', 'free vmid', 'free id', 'next vmid', 'available vmid', 'unused vmid', 'new vmid', 'nextid'], terms: { nextid: 1, vmid: 0.4 } },
  { triggers: ['hardware', 'device', 'devices'], terms: { hardware: 1, device: 0.6 } },
  { triggers: ['pci', 'passthrough', 'pci passthrough', 'gpu', 'graphics card', 'pcie'], terms: { pci: 1, hardware: 0.4 } },
  { triggers: ['usb', 'usb device', 'usb stick', 'usb passthrough', 'dongle'], terms: { usb: 1, hardware: 0.4 } },
  { triggers: ['mapping', 'resource mapping', 'hardware mapping', 'directory mapping', 'virtiofs'], terms: { mapping: 1 } },

  // Node administration
  { triggers: ['service', 'services', 'daemon', 'systemd', 'systemd unit'], terms: { service: 1 } },
  { triggers: ['time', 'timezone', 'time zone', 'clock', 'ntp', 'date'], terms: { time: 1, timezone: 0.8 } },
  { triggers: ['apt', 'package', 'packages', 'upgrade', 'upgrades', 'patch', 'patches', 'available updates', 'pending updates', 'updates', 'apt update'], terms: { apt: 1, update: 0.5, package: 0.4 } },
  { triggers: ['repository', 'repositories', 'repo', 'repos', 'sources list', 'enterprise repo', 'no subscription repo'], terms: { repository: 1, apt: 0.5 } },
  { triggers: ['changelog', 'release notes'], terms: { changelog: 1 } },
  { triggers: ['subscription', 'license', 'licence', 'subscription key'], terms: { subscription: 1 } },
  { triggers: ['certificate', 'certificates', 'cert', 'certs', 'ssl', 'tls', 'https cert', 'ssl certificate'], terms: { certificate: 1, cert: 0.5 } },
  { triggers: ['acme', 'lets encrypt', 'letsencrypt', 'let s encrypt'], terms: { acme: 1, certificate: 0.3 } },
  { triggers: ['ceph', 'rbd', 'rados'], terms: { ceph: 1 } },
  { triggers: ['osd', 'object storage daemon'], terms: { osd: 1, ceph: 0.3 } },
  { triggers: ['ceph monitor', 'ceph mon', 'mon'], terms: { mon: 1, ceph: 0.3 } },
  { triggers: ['ceph manager', 'mgr'], terms: { mgr: 1, ceph: 0.3 } },
  { triggers: ['mds', 'metadata server', 'cephfs', 'ceph fs', 'ceph filesystem'], terms: { mds: 0.7, fs: 1, ceph: 0.3 } },
  { triggers: ['crush', 'crush map', 'placement'], terms: { crush: 1 } },
  { triggers: ['flag', 'flags', 'noout', 'norebalance', 'nodown'], terms: { flag: 1 } },
  { triggers: ['ha', 'high availability', 'highly available', 'ha manager', 'fencing', 'failover'], terms: { ha: 1 } },
  { triggers: ['replication', 'replicated', 'storage replication', 'zfs replication', 'sync job'], terms: { replication: 1 } },
  // Replicating is something set up: to replicate is to create the job, to stop is to remove it.
  { triggers: ['replicate', 'replicating'], terms: { replication: 1 }, methods: ['POST'] },
  { triggers: ['stop replicating', 'stop replication', 'no longer replicate', 'stop the replication'], terms: { replication: 1 }, methods: ['DELETE'] },
  { triggers: ['join', 'join cluster', 'add node', 'join a cluster', 'cluster join'], terms: { join: 1, cluster: 0.3 }, methods: ['POST'] },
  { triggers: ['notification', 'notifications', 'alert', 'alerts', 'email', 'mail'], terms: { notification: 1, endpoint: 0.3 } },
  // A kind of notification endpoint named keeps its own word: each kind has its own operations.
  { triggers: ['smtp', 'smtp server', 'mail server'], terms: { smtp: 1, endpoint: 0.4, notification: 0.4 } },
  { triggers: ['sendmail'], terms: { sendmail: 1, endpoint: 0.4, notification: 0.4 } },
  { triggers: ['gotify'], terms: { gotify: 1, endpoint: 0.4, notification: 0.4 } },
  { triggers: ['webhook', 'web hook'], terms: { webhook: 1, endpoint: 0.4, notification: 0.4 } },
  { triggers: ['matcher', 'notification matcher', 'notification rule', 'routing'], terms: { matcher: 1, notification: 0.4 } },

  // Access control
  { triggers: ['user', 'users', 'account', 'accounts', 'who', 'logged in', 'people', 'login name', 'username'], terms: { user: 1, access: 0.2 } },
  { triggers: ['token', 'api token', 'api key', 'api keys', 'api tokens', 'apikey'], terms: { token: 1, api: 0.3 } },
  { triggers: ['expire', 'expires', 'expired', 'expiry', 'expiration', 'expiry date', 'valid', 'still valid', 'validity', 'valid until'], terms: { expire: 1 } },
  { triggers: ['password', 'passwd', 'passphrase'], terms: { password: 1 } },
  { triggers: ['permission', 'permissions', 'acl', 'access control', 'access control list', 'rights', 'can do', 'allowed'], terms: { acl: 1, permission: 0.8, role: 0.2 } },
  // "what permissions does bob have" asks what a user may do, wherever it was granted.
  { triggers: ['effective permissions', 'my permissions', 'what can i do', 'allowed to', 'what permissions', 'which permissions', 'what rights', 'which rights'], terms: { permission: 1, acl: 0.3 } },
  { triggers: ['grant', 'give access', 'allow access'], terms: { acl: 1, permission: 0.6 }, methods: ['PUT'] },
  { triggers: ['revoke'], terms: { revoke: 1, delete: 0.3 }, methods: ['DELETE'] },
  { triggers: ['role', 'roles'], terms: { role: 1 } },
  { triggers: ['who has', 'who can', 'role assignment', 'role assignments', 'assigned roles', 'their roles'], terms: { acl: 1, permission: 0.5, role: 0.3 } },
  { triggers: ['privilege', 'privileges', 'privs'], terms: { privs: 1, role: 0.6, permission: 0.4 } },
  { triggers: ['group', 'groups', 'user group', 'team'], terms: { group: 1 } },
  { triggers: ['login', 'log in', 'sign in', 'authenticate', 'ticket', 'session', 'auth ticket', 'csrf'], terms: { ticket: 1, login: 0.4 }, methods: ['POST'] },
  { triggers: ['realm', 'realms', 'ldap', 'active directory', 'ad', 'auth server', 'authentication server', 'identity provider', 'domain', 'domains', 'openid', 'oidc', 'sso'], terms: { domain: 1, realm: 0.8 } },
  { triggers: ['sync users', 'ldap sync', 'realm sync', 'sync realm', 'sync'], terms: { sync: 1, realm: 0.3 }, methods: ['POST'] },
  { triggers: ['tfa', '2fa', 'mfa', 'two factor', 'otp', 'totp', 'yubikey', 'webauthn', 'second factor', 'recovery keys'], terms: { tfa: 1 } },
  { triggers: ['pool', 'resource pool', 'pools'], terms: { pool: 1 } },
  { triggers: ['pool members', 'members of a pool', 'pool content', 'in a pool', 'in the pool'], terms: { pool: 1, poolid: 0.8, member: 0.6 } },
];

/** A compiled rule: the stemmed trigger tokens and the stemmed, weighted terms to search. */
export interface CompiledSynonym {
  tokens: string[];
  terms: Map<string, number>;
  weight: number;
  methods?: readonly HttpMethod[];
  collection?: true;
  ranking?: true;
  placement?: true;
  when?: true;
  pluralTerms?: Map<string, number>;
  stateTerms?: Map<string, number>;
  power?: { terms: Map<string, number>; methods: readonly HttpMethod[] };
}

function compileTerms(words: Readonly<Record<string, number>>): Map<string, number> {
  const terms = new Map<string, number>();
  for (const [word, weight] of Object.entries(words)) {
    for (const term of analyze(word)) terms.set(term, Math.max(terms.get(term) ?? 0, weight));
  }
  return terms;
}

/** Analyze a trigger without dropping stopwords, since they can be part of a phrase ("back up"). */
function triggerTokens(trigger: string): string[] {
  return tokenize(trigger).map(stem);
}

/**
 * Compile the table into a lookup keyed by the first trigger token, longest triggers first, so the
 * query parser can match greedily in one pass.
 */
export function compileSynonyms(rules: readonly SynonymRule[] = SYNONYM_RULES): Map<string, CompiledSynonym[]> {
  const byFirst = new Map<string, CompiledSynonym[]>();
  for (const rule of rules) {
    const terms = compileTerms(rule.terms);
    const pluralTerms = rule.plural ? compileTerms(rule.plural) : undefined;
    const stateTerms = rule.state ? compileTerms(rule.state) : undefined;
    const weight = rule.weight ?? 1;
    const power = rule.power ? { terms: compileTerms(rule.power.terms), methods: rule.power.methods } : undefined;
    for (const trigger of rule.triggers) {
      const tokens = triggerTokens(trigger);
      const first = tokens[0];
      if (first === undefined) continue;
      const list = byFirst.get(first) ?? [];
      list.push({ tokens, terms, weight, ...(rule.methods ? { methods: rule.methods } : {}), ...(rule.collection ? { collection: rule.collection } : {}), ...(rule.ranking ? { ranking: rule.ranking } : {}), ...(rule.placement ? { placement: rule.placement } : {}), ...(rule.when ? { when: rule.when } : {}), ...(pluralTerms ? { pluralTerms } : {}), ...(stateTerms ? { stateTerms } : {}), ...(power ? { power } : {}) });
      byFirst.set(first, list);
    }
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.tokens.length - a.tokens.length);
  return byFirst;
}
