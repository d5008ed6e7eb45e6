/**
 * Operators think in the node's command line: `qm set`, `pct enter`, `pvesm status`, `ha-manager
 * add`. A request that names such a command names the API operation(s) the command calls, as
 * outright as a path does; this table says which. Written from the CLIs' documented behaviour (the
 * CLI tools are thin wrappers over these handlers); commands with no API counterpart (`pct push`,
 * `qm rescan`, `pveam update`) are left out rather than pointed somewhere near.
 */
import type { HttpMethod, OperationKey } from '../schema/model.js';

const N = '/nodes/{node}';
const Q = `${N}/qemu/{vmid}`;
const L = `${N}/lxc/{vmid}`;

/** Per-guest commands qm and pct share, by subcommand: the path under the guest. */
const GUEST_COMMON: ReadonlyArray<[string, OperationKey[]]> = [
  ['config', ['GET {g}/config']],
  ['pending', ['GET {g}/pending']],
  ['destroy', ['DELETE {g}']],
  ['start', ['POST {g}/status/start']],
  ['stop', ['POST {g}/status/stop']],
  ['shutdown', ['POST {g}/status/shutdown']],
  ['reboot', ['POST {g}/status/reboot']],
  ['suspend', ['POST {g}/status/suspend']],
  ['resume', ['POST {g}/status/resume']],
  ['status', ['GET {g}/status/current']],
  ['migrate', ['POST {g}/migrate']],
  ['remote-migrate|remote_migrate', ['POST {g}/remote_migrate']],
  ['clone', ['POST {g}/clone']],
  ['template', ['POST {g}/template']],
  ['resize|disk resize', ['PUT {g}/resize']],
  ['snapshot', ['POST {g}/snapshot']],
  ['listsnapshot', ['GET {g}/snapshot']],
  ['delsnapshot', ['DELETE {g}/snapshot/{snapname}']],
  ['rollback', ['POST {g}/snapshot/{snapname}/rollback']],
  ['vncproxy', ['POST {g}/vncproxy']],
];

const guest = (tool: string, kind: string, g: string): Array<[string, OperationKey[]]> =>
  GUEST_COMMON.map(([sub, keys]): [string, OperationKey[]] => [
    sub
      .split('|')
      .map((s) => `${tool} ${s}`)
      .join('|'),
    keys.map((k) => k.replace('{g}', g) as OperationKey),
  ]).concat([
    [`${tool} list`, [`GET ${N}/${kind}` as OperationKey]],
    [`${tool} create|${tool} restore`, [`POST ${N}/${kind}` as OperationKey]],
  ]);

/** `<command words>` (aliases split by `|`) → the operations it calls, the one it calls first first. */
export const NODE_COMMANDS: ReadonlyArray<[string, OperationKey[]]> = [
  ...guest('qm', 'qemu', Q),
  ['qm set|qm importdisk|qm disk import', [`PUT ${Q}/config`, `POST ${Q}/config`]],
  ['qm reset', [`POST ${Q}/status/reset`]],
  // A lock is a config key: the API unlocks by deleting it from the config.
  ['qm unlock', [`PUT ${Q}/config`]],
  ['qmrestore', [`POST ${N}/qemu`]],
  ['qm move-disk|qm move_disk|qm disk move', [`POST ${Q}/move_disk`]],
  ['qm unlink|qm disk unlink', [`PUT ${Q}/unlink`]],
  ['qm sendkey', [`PUT ${Q}/sendkey`]],
  ['qm monitor', [`POST ${Q}/monitor`]],
  ['qm terminal', [`POST ${Q}/termproxy`]],
  ['qm agent|qm guest cmd', [`POST ${Q}/agent`]],
  ['qm guest exec-status', [`GET ${Q}/agent/exec-status`]],
  ['qm guest exec', [`POST ${Q}/agent/exec`]],
  ['qm guest passwd', [`POST ${Q}/agent/set-user-password`]],
  ['qm cloudinit dump', [`GET ${Q}/cloudinit/dump`]],
  ['qm cloudinit update', [`PUT ${Q}/cloudinit`]],
  ['qm cloudinit pending', [`GET ${Q}/cloudinit`]],
  ...guest('pct', 'lxc', L),
  ['pct set|pct unlock', [`PUT ${L}/config`]],
  ['pct enter|pct console', [`POST ${L}/termproxy`]],
  ['pct move-volume|pct move_volume', [`POST ${L}/move_volume`]],
  ['pct interfaces', [`GET ${L}/interfaces`]],
  ['pvesm status', [`GET ${N}/storage`]],
  ['pvesm add', ['POST /storage']],
  ['pvesm set', ['PUT /storage/{storage}']],
  ['pvesm remove', ['DELETE /storage/{storage}']],
  ['pvesm list', [`GET ${N}/storage/{storage}/content`]],
  ['pvesm alloc', [`POST ${N}/storage/{storage}/content`]],
  ['pvesm free', [`DELETE ${N}/storage/{storage}/content/{volume}`]],
  ['pvesm prune-backups', [`DELETE ${N}/storage/{storage}/prunebackups`, `GET ${N}/storage/{storage}/prunebackups`]],
  ['pvesm extractconfig', [`GET ${N}/vzdump/extractconfig`]],
  ...['nfs', 'cifs', 'iscsi', 'lvm', 'lvmthin', 'zfs', 'pbs'].map((t): [string, OperationKey[]] => [`pvesm scan ${t}`, [`GET ${N}/scan/${t}` as OperationKey]]),
  ['pvecm status', ['GET /cluster/status']],
  ['pvecm nodes', ['GET /cluster/config/nodes']],
  ['pvecm create', ['POST /cluster/config']],
  ['pvecm add', ['POST /cluster/config/join']],
  ['pvecm addnode', ['POST /cluster/config/nodes/{node}']],
  ['pvecm delnode', ['DELETE /cluster/config/nodes/{node}']],
  ['pveum user list', ['GET /access/users']],
  ['pveum user add|pveum useradd', ['POST /access/users']],
  ['pveum user modify|pveum usermod', ['PUT /access/users/{userid}']],
  ['pveum user delete|pveum userdel', ['DELETE /access/users/{userid}']],
  ['pveum user permissions|pveum user token permissions', ['GET /access/permissions']],
  ['pveum user tfa list', ['GET /access/tfa']],
  ['pveum user token list', ['GET /access/users/{userid}/token']],
  ['pveum user token add', ['POST /access/users/{userid}/token/{tokenid}']],
  ['pveum user token modify', ['PUT /access/users/{userid}/token/{tokenid}']],
  ['pveum user token remove', ['DELETE /access/users/{userid}/token/{tokenid}']],
  ['pveum user tfa delete|pveum user tfa unlock', ['DELETE /access/tfa/{userid}/{id}', 'PUT /access/users/{userid}/unlock-tfa']],
  ['pveum group list', ['GET /access/groups']],
  ['pveum group add|pveum groupadd', ['POST /access/groups']],
  ['pveum group modify|pveum groupmod', ['PUT /access/groups/{groupid}']],
  ['pveum group delete|pveum groupdel', ['DELETE /access/groups/{groupid}']],
  ['pveum role list', ['GET /access/roles']],
  ['pveum role add|pveum roleadd', ['POST /access/roles']],
  ['pveum role modify|pveum rolemod', ['PUT /access/roles/{roleid}']],
  ['pveum role delete|pveum roledel', ['DELETE /access/roles/{roleid}']],
  ['pveum acl list', ['GET /access/acl']],
  ['pveum acl modify|pveum acl delete|pveum aclmod|pveum acldel', ['PUT /access/acl']],
  ['pveum realm list', ['GET /access/domains']],
  ['pveum realm add', ['POST /access/domains']],
  ['pveum realm modify', ['PUT /access/domains/{realm}']],
  ['pveum realm delete', ['DELETE /access/domains/{realm}']],
  ['pveum realm sync', ['POST /access/domains/{realm}/sync']],
  ['pveum pool list', ['GET /pools']],
  ['pveum pool add', ['POST /pools']],
  ['pveum pool modify', ['PUT /pools']],
  ['pveum pool delete', ['DELETE /pools']],
  ['pveum passwd', ['PUT /access/password']],
  ['pveum ticket', ['POST /access/ticket']],
  ['ha-manager status', ['GET /cluster/ha/status/current']],
  ['ha-manager config', ['GET /cluster/ha/resources']],
  ['ha-manager add', ['POST /cluster/ha/resources']],
  ['ha-manager set', ['PUT /cluster/ha/resources/{sid}']],
  ['ha-manager remove', ['DELETE /cluster/ha/resources/{sid}']],
  ['ha-manager migrate', ['POST /cluster/ha/resources/{sid}/migrate']],
  ['ha-manager relocate', ['POST /cluster/ha/resources/{sid}/relocate']],
  ['ha-manager groupconfig', ['GET /cluster/ha/groups']],
  ['ha-manager groupadd', ['POST /cluster/ha/groups']],
  ['ha-manager groupset', ['PUT /cluster/ha/groups/{group}']],
  ['ha-manager groupremove', ['DELETE /cluster/ha/groups/{group}']],
  ['ha-manager rules config|ha-manager rules list', ['GET /cluster/ha/rules']],
  ['ha-manager rules add', ['POST /cluster/ha/rules']],
  ['ha-manager rules set', ['PUT /cluster/ha/rules/{rule}']],
  ['ha-manager rules remove', ['DELETE /cluster/ha/rules/{rule}']],
  // vzdump alone is also a noun ("the vzdump defaults"): as a command it takes guests or --all.
  ['vzdump #', [`POST ${N}/vzdump`]],
  ['pveceph status', [`GET ${N}/ceph/status`]],
  ['pveceph init', [`POST ${N}/ceph/init`]],
  ['pveceph pool ls|pveceph pool list', [`GET ${N}/ceph/pool`]],
  ['pveceph pool create', [`POST ${N}/ceph/pool`]],
  ['pveceph pool get', [`GET ${N}/ceph/pool/{name}/status`, `GET ${N}/ceph/pool/{name}`]],
  ['pveceph pool set', [`PUT ${N}/ceph/pool/{name}`]],
  ['pveceph pool destroy', [`DELETE ${N}/ceph/pool/{name}`]],
  ['pveceph osd create', [`POST ${N}/ceph/osd`]],
  ['pveceph osd destroy', [`DELETE ${N}/ceph/osd/{osdid}`]],
  ['pveceph osd details', [`GET ${N}/ceph/osd/{osdid}`]],
  ['pveceph mon create', [`POST ${N}/ceph/mon/{monid}`]],
  ['pveceph mon destroy', [`DELETE ${N}/ceph/mon/{monid}`]],
  ['pveceph mgr create', [`POST ${N}/ceph/mgr/{id}`]],
  ['pveceph mgr destroy', [`DELETE ${N}/ceph/mgr/{id}`]],
  ['pveceph mds create', [`POST ${N}/ceph/mds/{name}`]],
  ['pveceph mds destroy', [`DELETE ${N}/ceph/mds/{name}`]],
  ['pveceph fs create', [`POST ${N}/ceph/fs/{name}`]],
  ['pveceph start', [`POST ${N}/ceph/start`]],
  ['pveceph stop', [`POST ${N}/ceph/stop`]],
  ['pveceph restart', [`POST ${N}/ceph/restart`]],
  ['pvenode cert info', [`GET ${N}/certificates/info`]],
  ['pvenode cert set', [`POST ${N}/certificates/custom`]],
  ['pvenode cert delete', [`DELETE ${N}/certificates/custom`]],
  ['pvenode acme cert order', [`POST ${N}/certificates/acme/certificate`]],
  ['pvenode acme cert renew', [`PUT ${N}/certificates/acme/certificate`]],
  ['pvenode acme cert revoke', [`DELETE ${N}/certificates/acme/certificate`]],
  ['pvenode acme account list', ['GET /cluster/acme/account']],
  ['pvenode acme account register', ['POST /cluster/acme/account']],
  ['pvenode acme account info', ['GET /cluster/acme/account/{name}']],
  ['pvenode acme account update', ['PUT /cluster/acme/account/{name}']],
  ['pvenode acme account deactivate', ['DELETE /cluster/acme/account/{name}']],
  ['pvenode acme plugin list', ['GET /cluster/acme/plugins']],
  ['pvenode acme plugin add', ['POST /cluster/acme/plugins']],
  ['pvenode acme plugin config', ['GET /cluster/acme/plugins/{id}']],
  ['pvenode acme plugin set', ['PUT /cluster/acme/plugins/{id}']],
  ['pvenode acme plugin remove', ['DELETE /cluster/acme/plugins/{id}']],
  ['pvenode config get', [`GET ${N}/config`]],
  ['pvenode config set', [`PUT ${N}/config`]],
  ['pvenode startall', [`POST ${N}/startall`]],
  ['pvenode stopall', [`POST ${N}/stopall`]],
  ['pvenode migrateall', [`POST ${N}/migrateall`]],
  ['pvenode task list', [`GET ${N}/tasks`]],
  ['pvenode task log', [`GET ${N}/tasks/{upid}/log`]],
  ['pvenode task status', [`GET ${N}/tasks/{upid}/status`]],
  ['pvenode wakeonlan', [`POST ${N}/wakeonlan`]],
  ['pvesr list', ['GET /cluster/replication']],
  ['pvesr read', ['GET /cluster/replication/{id}']],
  ['pvesr create-local-job', ['POST /cluster/replication']],
  ['pvesr update|pvesr enable|pvesr disable', ['PUT /cluster/replication/{id}']],
  ['pvesr delete', ['DELETE /cluster/replication/{id}']],
  ['pvesr status', [`GET ${N}/replication`]],
  ['pvesr schedule-now', [`POST ${N}/replication/{id}/schedule_now`]],
  ['pveam available', [`GET ${N}/aplinfo`]],
  ['pveam download', [`POST ${N}/aplinfo`]],
  ['pveam list', [`GET ${N}/storage/{storage}/content`]],
  ['pveam remove', [`DELETE ${N}/storage/{storage}/content/{volume}`]],
  ['pvesubscription get', [`GET ${N}/subscription`]],
  ['pvesubscription set', [`PUT ${N}/subscription`]],
  ['pvesubscription update', [`POST ${N}/subscription`]],
  ['pvesubscription delete', [`DELETE ${N}/subscription`]],
  ['pveversion', [`GET ${N}/version`, 'GET /version']],
  // With -v it lists every PVE package's version.
  ['pveversion -v|pveversion --verbose', [`GET ${N}/apt/versions`]],
  ['pvereport', [`GET ${N}/report`]],
  // The node's own Linux tools, for what the API reads of them.
  ['lsusb', [`GET ${N}/hardware/usb`]],
  ['lspci', [`GET ${N}/hardware/pci`]],
  ['lsblk', [`GET ${N}/disks/list`]],
  ['smartctl', [`GET ${N}/disks/smart`]],
  ['journalctl|dmesg', [`GET ${N}/journal`]],
  ['zpool status', [`GET ${N}/disks/zfs/{name}`, `GET ${N}/disks/zfs`]],
  ['zpool list', [`GET ${N}/disks/zfs`]],
  ['apt update|apt-get update|pveupdate', [`POST ${N}/apt/update`]],
  ['apt list', [`GET ${N}/apt/update`]],
  ['systemctl status', [`GET ${N}/services/{service}/state`]],
  ...['start', 'stop', 'restart', 'reload'].map((s): [string, OperationKey[]] => [`systemctl ${s}|pvedaemon ${s}|pveproxy ${s}`, [`POST ${N}/services/{service}/${s}` as OperationKey]]),
  ['ceph -s', [`GET ${N}/ceph/status`, 'GET /cluster/ceph/status']],
  ['ceph osd tree', [`GET ${N}/ceph/osd`]],
  ['ceph osd set|ceph osd unset', ['PUT /cluster/ceph/flags/{flag}']],
  ['ifreload', [`PUT ${N}/network`]],
];

/** What `pvesh <verb> <path>` calls: the verb is the method. */
const PVESH_METHODS: Readonly<Record<string, HttpMethod>> = { get: 'GET', ls: 'GET', set: 'PUT', create: 'POST', delete: 'DELETE' };

/** An argument `#` stands for: a guest ID or an option (`vzdump 101`, `vzdump --all`). */
const ARGUMENT = /^(?:[0-9]+|--?[a-z][\w-]*)$/;

/** Commands as word lists by their first word, longest first, so `qm guest exec-status` wins over `qm guest exec`. */
const PATTERNS = new Map<string, Array<{ words: string[]; keys: OperationKey[] }>>();
for (const [aliases, keys] of NODE_COMMANDS) {
  for (const alias of aliases.split('|')) {
    const words = alias.split(' ');
    const list = PATTERNS.get(words[0] as string) ?? [];
    list.push({ words, keys });
    PATTERNS.set(words[0] as string, list);
  }
}
for (const list of PATTERNS.values()) list.sort((a, b) => b.words.length - a.words.length);

/** The request's words as a shell would split them, quotes and backticks dropped. */
function shellWords(query: string): string[] {
  return query
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[`'"(]+|[`'",.;:!?)]+$/g, ''))
    .filter((w) => w !== '');
}

/** What a request naming a PVE or node command calls: operation keys, and `pvesh` paths to resolve. */
interface NamedCommand {
  keys: OperationKey[];
  /** `pvesh get /nodes/pve1/qemu`: a method and a concrete or template path. */
  pvesh?: { method: HttpMethod; path: string };
}

/** The commands a request names (`qm set 101 --memory 4096`, "what does `pvesm status` call"), first named first. */
export function namedCommands(query: string): NamedCommand[] {
  const words = shellWords(query);
  const found: NamedCommand[] = [];
  for (let i = 0; i < words.length; i++) {
    const method = words[i] === 'pvesh' ? PVESH_METHODS[words[i + 1] ?? ''] : undefined;
    const path = words[i + 2];
    if (method && path?.startsWith('/')) {
      found.push({ keys: [], pvesh: { method, path } });
      continue;
    }
    const match = PATTERNS.get(words[i] as string)?.find((p) => p.words.every((w, k) => (w === '#' ? ARGUMENT.test(words[i + k] ?? '') : words[i + k] === w)));
    if (match) {
      found.push({ keys: match.keys });
      i += match.words.length - 1;
    }
  }
  return found;
}
