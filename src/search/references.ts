/**
 * References are not vocabulary: an ID, a name, a permission path or a quoted value says what kind
 * of thing the request is about, not what to do with it. They are rewritten to the kind they name
 * before a request's words are read.
 */
import { NODE_ID } from './roles.js';

/**
 * Operators name things by their IDs: `root@pam!ci` is an API token, `alice@pve` a user, `pve2` or
 * `proxmox-3` a node (PVE's default host names). The IDs' own words (pam, root, pve) say nothing
 * about the operation, the kind of thing they name does.
 */
const NAMED_IDS: ReadonlyArray<[RegExp, string]> = [
  // A quoted value of several words ("run 'systemctl restart nginx' inside vm 305", "the calendar
  // event 'mon..fri 02:30'") is what the operation is given, not what it is: its words say nothing.
  // First, before an ID's apostrophe ("pve2's") can open a quote.
  [/(?<=^|\s)(['"`])[^'"`]*\s[^'"`]*\1(?=[\s.,;:!?)]|$)/g, ' '],
  // A task's UPID names the task; the node, type, guest and user written inside it say nothing more.
  [/\bUPID:\S*/gi, ' task '],
  [/[\w.-]+@[a-z][\w.-]*![\w.-]+/gi, ' api token '],
  [/[\w.-]+@[a-z][\w.-]*/gi, ' user '],
  [NODE_ID, ' node '],
  // A permission path ("/vms", "/vms/100", "/pool/dev"): ACLs are set on it; no API path starts so.
  [/(?<![\w/])\/(?:vms|pool)(?:\/[\w.-]*)*/gi, ' acl path '],
  // A backup archive named by its file ("vzdump-qemu-118-2024_01_01-00_00_00.vma.zst") is one
  // volume of a storage's content.
  [/\bvzdump-(?:qemu|lxc|openvz)-[\w.-]+/gi, ' volume '],
  // A storage named by a hyphenated ID after a preposition ("from backup-nas", "on pbs-main",
  // "to nas-old"): its words name the storage, not a backup or a restore.
  [/\b(from|on|onto|to|into)\s+((?:the\s+)?(?:storage\s+)?)[a-z0-9]*(?:nas|nfs|pbs|backup|backups|cifs|smb|san|iscsi|store|datastore)[a-z0-9]*(?:-[a-z0-9]+)+\b/gi, ' $1 storage '],
  [/\b(from|on|onto|to|into)\s+((?:the\s+)?(?:storage\s+)?)[a-z0-9]+(?:-[a-z0-9]+)*-(?:nas|nfs|pbs|backup|backups|cifs|smb|san|iscsi|store|datastore)\b/gi, ' $1 storage '],
  // PVE's default storage IDs (local-lvm, local-zfs): their words name the storage, not LVM or ZFS.
  [/\blocal-[a-z0-9]+\b/gi, ' storage '],
  // So is PVE's default directory storage, plain "local", unless a noun follows ("local disks").
  [/\blocal\b(?![ -]?(?:disk|disks|storage|storages|user|users|account|accounts|time|network|repo|repository)\b)/gi, ' storage '],
  // "read-only access" names a kind of access, not the act of reading.
  [/\bread[- ]only\b/gi, ' readonly '],
  // "box 330", "machine 105": a colloquial word for the guest an ID names.
  [/\b(?:machine|box)\s+(?=[0-9]+\b)/gi, ' guest '],
  // "the vm named web01", "guests tagged prod": a name or tag value says the thing is looked up by
  // it; the value's own words say nothing.
  [/\b(named|called|tagged|labelled|labeled)\s+["']?[\w.-]+["']?/gi, ' $1 '],
];
/**
 * An agent's function-style name ("listSnapshots", "getClusterStatus", "deleteUser") is its words:
 * a lowercase start and capitalised words after it. "iSCSI", "VM.PowerMgmt" or "PVEAuditor" are
 * not written so and stay whole.
 */
const CAMEL_CASE = /\b[a-z]+(?:[A-Z][a-z]+)+\b/g;
/** The index term of the kind of thing each ID names: the request is about that one item (items.ts). */
export const ID_KINDS: ReadonlyArray<[RegExp, string]> = [
  [/\bUPID:\S*/i, 'task'],
  [/[\w.-]+@[a-z][\w.-]*![\w.-]+/i, 'token'],
  [/[\w.-]+@[a-z][\w.-]*/i, 'user'],
  [/\blocal-[a-z0-9]+\b/i, 'storage'],
  // An HA resource's ID ("vm:101", "ct:200").
  [/\b(?:vm|ct):[0-9]+\b/i, 'resource'],
];

/** The request with its references read as the kinds of thing they name. */
export function readReferences(text: string): string {
  return NAMED_IDS.reduce(
    (t, [pattern, kind]) => t.replace(pattern, kind),
    text.replace(CAMEL_CASE, (word) => word.replace(/(?<=[a-z])(?=[A-Z])/g, ' ')),
  );
}
