/**
 * The rest of the synonym table (synonyms.ts, where the rules start): networking, guest access and
 * the guest agent, monitoring, node administration and access control, in the order the table
 * lists them.
 */
import type { SynonymRule } from './synonyms.js';

export const SYSTEM_SYNONYM_RULES: readonly SynonymRule[] = [
  // Networking
  { triggers: ['ip', 'ip address', 'ip addresses', 'ipv4', 'ipv6', 'address', 'addresses'], terms: { interface: 1, ip: 0.6, network: 0.4, address: 0.4 } },
  {
    triggers: ['nic', 'network card', 'network interface', 'network interfaces', 'iface', 'interface', 'interfaces', 'network device', 'ethernet', 'network config'],
    terms: { network: 1, iface: 0.7, interface: 0.5, net: 0.5 },
  },
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
  { triggers: ['dns', 'nameserver', 'name server', 'name servers', 'resolver', 'resolv conf', 'search domain', 'resolve', 'resolves', 'name resolution', 'upstream dns'], terms: { dns: 1 } },
  { triggers: ['hosts file', 'etc hosts', '/etc/hosts'], terms: { host: 1, etc: 1 } },
  { triggers: ['sdn', 'software defined network', 'software defined networking'], terms: { sdn: 1 } },
  { triggers: ['vnet', 'virtual network'], terms: { vnet: 1, sdn: 0.3 } },
  { triggers: ['subnet', 'cidr', 'prefix'], terms: { subnet: 1 } },
  { triggers: ['zone', 'evpn', 'vxlan'], terms: { zone: 1 } },
  { triggers: ['ipam', 'ip management', 'dhcp'], terms: { ipam: 1 } },
  // netin / netout: the per-guest counters the resource list and status reads return.
  {
    triggers: ['traffic', 'bandwidth', 'network traffic', 'network bandwidth', 'network throughput', 'network counters', 'netstat', 'network io', 'network usage', 'throughput'],
    terms: { netstat: 1, network: 0.4, netin: 0.6, netout: 0.6 },
  },
  { triggers: ['disk io', 'io', 'iops', 'disk reads', 'disk writes', 'disk read', 'disk write', 'disk throughput', 'io load'], terms: { diskread: 1, diskwrite: 1, io: 0.4 } },

  // Guest access and the guest agent
  { triggers: ['console', 'vnc', 'novnc', 'remote console', 'screen'], terms: { vncproxy: 1, termproxy: 0.8, vnc: 0.6, console: 0.5 } },
  { triggers: ['terminal', 'shell', 'ssh', 'xterm', 'tty', 'serial console', 'command line'], terms: { termproxy: 1, vncshell: 0.7, shell: 0.6, terminal: 0.3 } },
  { triggers: ['spice', 'virt viewer', 'remote viewer'], terms: { spiceproxy: 1, spiceshell: 1, spice: 0.6 } },
  { triggers: ['guest agent', 'qemu agent', 'qga', 'agent', 'qemu guest agent'], terms: { agent: 1 } },
  { triggers: ['ping', 'responding', 'responsive', 'respond', 'reachable', 'answering'], terms: { ping: 1, status: 0.3 } },
  {
    triggers: ['run command', 'shell command', 'shell commands', 'execute command', 'exec', 'execute', 'run a command', 'execute a command', 'command', 'commands'],
    terms: { exec: 1, command: 0.6, execute: 0.4 },
    methods: ['POST'],
  },
  { triggers: ['read file', 'read a file', 'cat', 'file content', 'get file'], terms: { file: 1, read: 0.5 } },
  { triggers: ['write file', 'write a file', 'put file', 'push file', 'place file'], terms: { file: 1, write: 1 } },
  { triggers: ['guest os', 'operating system', 'os info', 'os version', 'distribution', 'distro', 'os'], terms: { osinfo: 1, os: 0.5 } },
  { triggers: ['guest hostname', 'host name', 'hostname'], terms: { hostname: 1, name: 0.3 } },
  { triggers: ['filesystem', 'filesystems', 'file system', 'mounted filesystems', 'fsinfo'], terms: { fsinfo: 1, filesystem: 0.5 } },
  // Trimming is an act the agent runs (a POST), not a property to read.
  { triggers: ['trim', 'fstrim'], terms: { fstrim: 1 }, methods: ['POST'] },
  { triggers: ['fsfreeze', 'freeze filesystem', 'quiesce'], terms: { fsfreeze: 1 } },
  { triggers: ['keyboard layout', 'keymap', 'keyboard language'], terms: { keyboard: 1 } },
  { triggers: ['send key', 'sendkey', 'keypress', 'key press', 'ctrl alt del', 'keyboard'], terms: { sendkey: 1, key: 0.5 }, methods: ['PUT'] },
  { triggers: ['cloud init', 'cloud-init', 'cloudinit', 'ci', 'user data', 'userdata'], terms: { cloudinit: 1 } },
  { triggers: ['qemu monitor', 'hmp', 'monitor command', 'human monitor'], terms: { monitor: 1 } },
  { triggers: ['mount point', 'mountpoint', 'mp', 'rootfs', 'root disk'], terms: { volume: 1, mp: 0.6, rootfs: 0.6 } },

  // Monitoring
  {
    triggers: ['status', 'state', 'health', 'healthy', 'up', 'alive', 'online', 'uptime', 'finished', 'succeeded', 'successful', 'ok', 'completed', 'warning', 'warnings'],
    terms: { status: 1, current: 0.5 },
  },
  { triggers: ['running', 'active', 'run', 'runs'], terms: { status: 0.6, running: 0.5, current: 0.4 }, weight: 0.5 },
  { triggers: ['right now', 'currently', 'at the moment', 'current'], terms: { current: 1, status: 0.6 }, weight: 0.6, when: true },
  { triggers: ['cpu', 'cpus', 'processor', 'vcpu', 'vcpus', 'cores', 'core', 'sockets'], terms: { cpu: 1, core: 0.5, status: 0.3 }, weight: 0.6 },
  { triggers: ['memory', 'ram', 'mem', 'free memory', 'available memory', 'memory usage', 'memory used', 'used memory'], terms: { memory: 1, mem: 0.8, status: 0.3 }, weight: 0.6 },
  { triggers: ['memory block', 'memory blocks'], terms: { memory: 1, block: 1 } },
  { triggers: ['load', 'load average', 'loadavg', 'busy', 'performance', 'utilisation'], terms: { loadavg: 1, status: 0.6, cpu: 0.4 }, weight: 0.6 },
  {
    triggers: [
      'history',
      'graph',
      'graphs',
      'chart',
      'trend',
      'statistics',
      'stats',
      'over time',
      'rrd',
      'time series',
      'historical',
      'last hour',
      'last day',
      'last week',
      'last month',
      'last year',
      'past hour',
      'past day',
      'past week',
      'past month',
      'past year',
      'yesterday',
      'over the last',
      'over the past',
    ],
    terms: { rrddata: 1, rrd: 0.6, statistic: 0.5 },
  },
  {
    triggers: ['metric server', 'metric servers', 'metrics server', 'metrics servers', 'external metric server', 'influxdb server', 'influx server', 'graphite server'],
    terms: { metric: 1, server: 1 },
  },
  // Sending metrics somewhere is configuring an external metric server.
  { triggers: ['send metrics', 'ship metrics', 'push metrics', 'forward metrics', 'send stats', 'ship stats', 'send statistics'], terms: { metric: 1, server: 1 }, methods: ['POST'] },
  { triggers: ['metric', 'metrics', 'influxdb', 'graphite', 'opentelemetry', 'prometheus', 'exporter'], terms: { metric: 1, server: 0.3 } },
  { triggers: ['log', 'logs', 'logfile', 'output'], terms: { log: 1 } },
  // Both read the node's log; the word the operator used decides between them.
  { triggers: ['syslog', 'system log', 'dmesg'], terms: { syslog: 1, journal: 0.8, log: 0.5 } },
  { triggers: ['journal', 'journald', 'journalctl'], terms: { journal: 1, syslog: 0.8, log: 0.5 } },
  { triggers: ['task', 'tasks', 'upid', 'activity', 'recent activity', 'worker'], terms: { task: 1 } },
  { triggers: ['job', 'jobs', 'scheduled job', 'cron'], terms: { job: 1, schedule: 0.3, task: 0.3 } },
  {
    triggers: [
      'schedule',
      'scheduled',
      'nightly',
      'daily',
      'weekly',
      'hourly',
      'monthly',
      'every night',
      'every day',
      'every hour',
      'every week',
      'every minute',
      'minutes',
      'recurring',
      'periodic',
      'periodically',
      'regularly',
    ],
    terms: { schedule: 1, job: 0.5 },
  },
  // What failed in PVE is a task: its status holds the error, its log the reason.
  { triggers: ['fail', 'failed', 'error', 'errors', 'errored', 'broken', 'crashed', 'unsuccessful'], terms: { error: 1, fail: 0.5, task: 0.4 } },
  { triggers: ['why', 'reason', 'cause', 'what went wrong'], terms: { log: 1, error: 0.5, task: 0.5 }, weight: 0.6 },
  { triggers: ['version', 'release', 'pve version', 'proxmox version', 'which version'], terms: { version: 1 } },
  { triggers: ['report', 'diagnostics', 'system report', 'support report'], terms: { report: 1 } },
  // A guest named by its name, not its ID: only the resource list maps names to guests (pve.findGuest).
  { triggers: ['named', 'called', 'with the name', 'by name', 'by its name'], terms: { resource: 1, name: 0.6 }, weight: 1.4 },
  { triggers: ['resources', 'inventory', 'overview', 'everything', 'all resources', 'cluster resources'], terms: { resource: 1 } },
  // Cluster-wide guest listings live in the resource list, not under a node.
  { triggers: ['guests in the cluster', 'vms in the cluster', 'across the cluster', 'cluster wide', 'whole cluster'], terms: { resource: 1, cluster: 0.6 }, collection: true },
  { triggers: ['next id', 'next free id', 'free vmid', 'free id', 'next vmid', 'available vmid', 'unused vmid', 'new vmid', 'nextid'], terms: { nextid: 1, vmid: 0.4 } },
  { triggers: ['hardware', 'device', 'devices'], terms: { hardware: 1, device: 0.6 } },
  { triggers: ['pci', 'passthrough', 'pass through', 'pci passthrough', 'gpu', 'graphics card', 'pcie'], terms: { pci: 1, hardware: 0.4 } },
  { triggers: ['usb', 'usb device', 'usb stick', 'usb passthrough', 'dongle'], terms: { usb: 1, hardware: 0.4 } },
  { triggers: ['mapping', 'resource mapping', 'hardware mapping', 'directory mapping'], terms: { mapping: 1 } },

  // Node administration
  { triggers: ['service', 'services', 'daemon', 'systemd', 'systemd unit'], terms: { service: 1 } },
  { triggers: ['time', 'timezone', 'time zone', 'clock', 'ntp', 'date'], terms: { time: 1, timezone: 0.8 } },
  {
    triggers: ['apt', 'package', 'packages', 'upgrade', 'upgrades', 'patch', 'patches', 'available updates', 'pending updates', 'updates', 'apt update'],
    terms: { apt: 1, update: 0.5, package: 0.4 },
  },
  { triggers: ['repository', 'repositories', 'repo', 'repos', 'sources list', 'enterprise repo', 'no subscription repo'], terms: { repository: 1, apt: 0.5 } },
  { triggers: ['changelog', 'release notes'], terms: { changelog: 1 } },
  { triggers: ['subscription', 'license', 'licence', 'subscription key', 'pvesubscription'], terms: { subscription: 1 } },
  { triggers: ['certificate', 'certificates', 'cert', 'certs', 'ssl', 'tls', 'https cert', 'ssl certificate'], terms: { certificate: 1, cert: 0.5 } },
  { triggers: ['acme', 'lets encrypt', 'letsencrypt', 'let s encrypt'], terms: { acme: 1, certificate: 0.3 } },
  { triggers: ['ceph', 'rbd', 'rados', 'pveceph'], terms: { ceph: 1 } },
  { triggers: ['osd', 'object storage daemon'], terms: { osd: 1, ceph: 0.3 } },
  { triggers: ['ceph monitor', 'ceph mon', 'mon'], terms: { mon: 1, ceph: 0.3 } },
  { triggers: ['ceph manager', 'mgr'], terms: { mgr: 1, ceph: 0.3 } },
  { triggers: ['mds', 'metadata server', 'cephfs', 'ceph fs', 'ceph filesystem'], terms: { mds: 0.7, fs: 1, ceph: 0.3 } },
  { triggers: ['crush', 'crush map', 'placement'], terms: { crush: 1 } },
  { triggers: ['flag', 'flags', 'noout', 'norebalance', 'nodown', 'rebalance', 'rebalancing', 'backfill', 'backfilling', 'nobackfill'], terms: { flag: 1 } },
  { triggers: ['ha', 'high availability', 'highly available', 'ha manager', 'fencing', 'failover', 'ha managed', 'managed by ha', 'under ha'], terms: { ha: 1 } },
  { triggers: ['replication', 'replicated', 'storage replication', 'zfs replication', 'sync job', 'pvesr'], terms: { replication: 1 } },
  // Replicating is something set up: to replicate is to create the job, to stop is to remove it.
  { triggers: ['replicate', 'replicating'], terms: { replication: 1 }, methods: ['POST'] },
  { triggers: ['stop replicating', 'stop replication', 'no longer replicate', 'stop the replication'], terms: { replication: 1 }, methods: ['DELETE'] },
  { triggers: ['join', 'join cluster', 'add node', 'join a cluster', 'cluster join'], terms: { join: 1, cluster: 0.3 }, methods: ['POST'] },
  { triggers: ['notification', 'notifications', 'notify', 'notified', 'alert', 'alerts', 'email', 'mail'], terms: { notification: 1, endpoint: 0.3 } },
  // A kind of notification endpoint named keeps its own word: each kind has its own operations.
  { triggers: ['smtp', 'smtp server', 'mail server'], terms: { smtp: 1, endpoint: 0.4, notification: 0.4 } },
  { triggers: ['sendmail'], terms: { sendmail: 1, endpoint: 0.4, notification: 0.4 } },
  { triggers: ['gotify'], terms: { gotify: 1, endpoint: 0.4, notification: 0.4 } },
  { triggers: ['webhook', 'web hook'], terms: { webhook: 1, endpoint: 0.4, notification: 0.4 } },
  { triggers: ['matcher', 'notification matcher', 'notification rule', 'routing', 'notify only', 'only notify', 'filter notifications'], terms: { matcher: 1, notification: 0.4 } },

  // Access control
  { triggers: ['user', 'users', 'account', 'accounts', 'who', 'logged in', 'people', 'login name', 'username'], terms: { user: 1, access: 0.2 } },
  { triggers: ['token', 'api token', 'api key', 'api keys', 'api tokens', 'apikey'], terms: { token: 1, api: 0.3 } },
  { triggers: ['expire', 'expires', 'expired', 'expiry', 'expiration', 'expiry date', 'valid', 'still valid', 'validity', 'valid until'], terms: { expire: 1 } },
  { triggers: ['password', 'passwd', 'passphrase'], terms: { password: 1 } },
  { triggers: ['permission', 'permissions', 'acl', 'access control', 'access control list', 'rights', 'can do', 'allowed'], terms: { acl: 1, permission: 0.8, role: 0.2 } },
  // "what permissions does bob have" asks what a user may do, wherever it was granted.
  { triggers: ['effective permissions', 'my permissions', 'what can i do', 'allowed to', 'what permissions', 'which permissions', 'what rights', 'which rights'], terms: { permission: 1, acl: 0.3 } },
  { triggers: ['grant', 'give access', 'allow access', 'let user', 'allow user'], terms: { acl: 1, permission: 0.6 }, methods: ['PUT'] },
  // A role held on a path ("the auditor role on /", "admin rights on a pool") is an ACL entry.
  { triggers: ['role on', 'roles on', 'rights on', 'admin rights', 'permission on', 'permissions on', 'access to', 'access on'], terms: { acl: 1, permission: 0.5 } },
  { triggers: ['revoke'], terms: { revoke: 1, delete: 0.3 }, methods: ['DELETE'] },
  { triggers: ['role', 'roles'], terms: { role: 1 } },
  { triggers: ['who has', 'who can', 'role assignment', 'role assignments', 'assigned roles', 'their roles'], terms: { acl: 1, permission: 0.5, role: 0.3 } },
  { triggers: ['privilege', 'privileges', 'privs'], terms: { privs: 1, role: 0.6, permission: 0.4 } },
  { triggers: ['group', 'groups', 'user group', 'team'], terms: { group: 1 } },
  { triggers: ['login', 'log in', 'sign in', 'authenticate', 'ticket', 'session', 'auth ticket', 'csrf'], terms: { ticket: 1, login: 0.4 }, methods: ['POST'] },
  {
    triggers: ['realm', 'realms', 'ldap', 'active directory', 'ad', 'auth server', 'authentication server', 'identity provider', 'domain', 'domains', 'openid', 'oidc', 'sso'],
    terms: { domain: 1, realm: 0.8 },
  },
  { triggers: ['sync users', 'ldap sync', 'realm sync', 'sync realm', 'sync'], terms: { sync: 1, realm: 0.3 }, methods: ['POST'] },
  { triggers: ['tfa', '2fa', 'mfa', 'two factor', 'otp', 'totp', 'yubikey', 'webauthn', 'second factor', 'recovery keys'], terms: { tfa: 1 } },
  { triggers: ['pool', 'resource pool', 'pools'], terms: { pool: 1 } },
  { triggers: ['pool members', 'members of a pool', 'pool content', 'in a pool', 'in the pool'], terms: { pool: 1, poolid: 0.8, member: 0.6 } },
];
