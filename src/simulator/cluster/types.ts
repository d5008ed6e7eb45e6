/**
 * The simulated cluster's state as plain data. Handlers read and change it; runtime metrics
 * (cpu, mem, uptime, traffic) are not stored but derived from these records and the clock.
 */

export type GuestType = 'qemu' | 'lxc';

/**
 * A guest configuration as PVE stores and returns it: integer and boolean options are numbers,
 * `number` options and every string option (including qemu `memory`) are strings.
 */
export type GuestConfig = Record<string, string | number>;

export interface SimNode {
  name: string;
  online: boolean;
  nodeid: number;
  ip: string;
  /** Logical CPUs. */
  maxcpu: number;
  cpuModel: string;
  sockets: number;
  /** Bytes. */
  maxmem: number;
  /** Root filesystem size in bytes. */
  rootfsTotal: number;
  /** Epoch ms at which the node booted (drives node uptime and task pstart). */
  bootedAt: number;
  sslFingerprint: string;
  /** Subscription level ('' when none, as PVE reports it). */
  level: string;
  kernel: string;
  /** Next PID handed to a worker task or guest process. */
  nextPid: number;
  interfaces: NodeInterface[];
  /**
   * Files on the node outside any storage (hook scripts…), by absolute path. Snippets on the
   * node's storages exist as files too; see node-files.ts.
   */
  files?: Set<string>;
}

export interface NodeInterface {
  iface: string;
  type: 'eth' | 'bridge' | 'bond' | 'vlan';
  active: number;
  autostart: number;
  method: string;
  method6: string;
  families: string[];
  address?: string;
  netmask?: string;
  cidr?: string;
  gateway?: string;
  bridge_ports?: string;
  bridge_stp?: string;
  bridge_fd?: string;
  bridge_vlan_aware?: number;
  comments?: string;
  priority: number;
}

export interface Snapshot {
  name: string;
  description: string;
  /** Epoch seconds. */
  snaptime: number;
  /** 1 when RAM state was saved (qemu only). */
  vmstate?: number;
  parent?: string;
  /** The guest configuration at snapshot time (without snapshot bookkeeping keys). */
  config: GuestConfig;
}

export interface Guest {
  vmid: number;
  type: GuestType;
  node: string;
  config: GuestConfig;
  /** Changes queued for the next start (hot-plug not possible while running). */
  pending: GuestConfig;
  /** Option names queued for deletion (`delete` on a running guest). */
  pendingDelete: Set<string>;
  /** qemu: the cloud-init options as the current cloud-init drive was generated (undefined: from the current config). */
  cloudinitGenerated?: GuestConfig;
  /** Pending deletions asked for with `force` (the volume is destroyed, not kept as unused). */
  pendingForce?: Set<string>;
  status: 'running' | 'stopped';
  /** qemu only: `paused` while suspended. */
  paused: boolean;
  /** Epoch ms of the last start (meaningful while running). */
  startedAt: number;
  pid: number;
  snapshots: Snapshot[];
  pool?: string;
}

export type StorageContent = 'images' | 'rootdir' | 'iso' | 'vztmpl' | 'backup' | 'snippets' | 'import';

export interface SimStorage {
  storage: string;
  type: 'dir' | 'lvmthin' | 'nfs' | 'rbd' | 'zfspool';
  content: StorageContent[];
  shared: boolean;
  /** Nodes the storage is available on (`undefined` = all). */
  nodes?: string[];
  /** Bytes per node (shared storages: the single shared pool). */
  total: number;
  disabled: boolean;
  /** Extra definition keys (path, server, export, pool, vgname, thinpool…). */
  props: Record<string, string | number>;
}

/** A volume that is not a guest disk (guest disks are derived from guest configs). */
export interface StoredVolume {
  storage: string;
  /** Node that holds it (local storages) or undefined for shared storages. */
  node?: string;
  volid: string;
  content: StorageContent;
  format: string;
  size: number;
  /** Epoch seconds. */
  ctime: number;
  vmid?: number;
  notes?: string;
  protected?: number;
  /** Backups: the guest configuration saved in the archive (what a restore brings back). */
  config?: GuestConfig;
}

/** A cluster firewall IP set; `entries` newest first, as PVE keeps them. */
export interface IpSet {
  name: string;
  comment?: string;
  entries: IpSetEntry[];
}

export interface IpSetEntry {
  /** An address, a CIDR network, or an alias name, exactly as given. */
  cidr: string;
  comment?: string;
  nomatch?: boolean;
}

export interface Pool {
  poolid: string;
  comment?: string;
  /** VMIDs (guests keep `pool` in sync). */
  vms: Set<number>;
  storages: Set<string>;
}

/** A scheduled backup job (`/cluster/backup`); values typed as PVE returns them. */
export type BackupJob = Record<string, string | number> & { id: string };

export interface HaResource {
  sid: string;
  type: 'vm' | 'ct';
  state: 'started' | 'stopped' | 'enabled' | 'disabled' | 'ignored';
  max_restart: number;
  max_relocate: number;
  failback: number;
  comment?: string;
}

/** An HA rule (`/cluster/ha/rules`): where resources may run, or which run together or apart. */
export interface HaRule {
  rule: string;
  type: 'node-affinity' | 'resource-affinity';
  /** HA resource IDs (`vm:101`, `ct:102`), in the order given. */
  resources: string[];
  /** node-affinity: `node[:priority]` entries. */
  nodes?: string[];
  /** node-affinity: only the listed nodes (1) or preferably them (0). */
  strict?: number;
  /** resource-affinity: keep together (`positive`) or apart (`negative`). */
  affinity?: 'positive' | 'negative';
  disable?: number;
  comment?: string;
  /** Position in rules.cfg. */
  order: number;
}

/** An attempt of a node to contact the outside (recorded, never made); see outbound.ts. */
export interface OutboundRequest {
  /** Epoch ms. */
  at: number;
  node: string;
  user: string;
  kind: 'query-url-metadata' | 'download-url' | 'remote-migrate';
  url: string;
}
