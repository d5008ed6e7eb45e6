/**
 * Privileges and built-in roles of PVE 9 (names are facts of the product; the grouping into
 * root/admin/user/audit tiers mirrors how PVE builds its special roles).
 */

interface PrivilegeGroup {
  /** Only Administrator gets these. */
  root: string[];
  admin: string[];
  user: string[];
  audit: string[];
}

const GROUPS: Record<'VM' | 'Sys' | 'Datastore' | 'SDN' | 'User' | 'Pool' | 'Mapping', PrivilegeGroup> = {
  VM: {
    root: [],
    admin: [
      'VM.Allocate',
      'VM.Migrate',
      'VM.Clone',
      'VM.Snapshot',
      'VM.Snapshot.Rollback',
      'VM.Replicate',
      'VM.Config.Disk',
      'VM.Config.CPU',
      'VM.Config.Memory',
      'VM.Config.Network',
      'VM.Config.HWType',
      'VM.Config.Options',
      'VM.GuestAgent.Unrestricted',
    ],
    user: [
      'VM.Config.CDROM',
      'VM.Config.Cloudinit',
      'VM.Console',
      'VM.Backup',
      'VM.PowerMgmt',
      'VM.GuestAgent.Audit',
      'VM.GuestAgent.FileRead',
      'VM.GuestAgent.FileWrite',
      'VM.GuestAgent.FileSystemMgmt',
    ],
    audit: ['VM.Audit'],
  },
  Sys: {
    root: ['Sys.PowerMgmt', 'Sys.Modify', 'Sys.Incoming', 'Permissions.Modify'],
    admin: ['Sys.Console', 'Sys.Syslog', 'Sys.AccessNetwork'],
    user: [],
    audit: ['Sys.Audit'],
  },
  Datastore: {
    root: [],
    admin: ['Datastore.Allocate', 'Datastore.AllocateTemplate'],
    user: ['Datastore.AllocateSpace'],
    audit: ['Datastore.Audit'],
  },
  SDN: { root: [], admin: ['SDN.Allocate'], user: ['SDN.Use'], audit: ['SDN.Audit'] },
  User: { root: ['Realm.Allocate'], admin: ['User.Modify', 'Group.Allocate', 'Realm.AllocateUser'], user: [], audit: [] },
  Pool: { root: [], admin: ['Pool.Allocate'], user: [], audit: ['Pool.Audit'] },
  Mapping: { root: [], admin: ['Mapping.Modify'], user: ['Mapping.Use'], audit: ['Mapping.Audit'] },
};

type Tier = keyof PrivilegeGroup;
type GroupName = keyof typeof GROUPS;

function collect(groups: GroupName[], tiers: Tier[]): string[] {
  return groups.flatMap((g) => tiers.flatMap((t) => GROUPS[g][t]));
}

const ALL_GROUPS = Object.keys(GROUPS) as GroupName[];

export const ALL_PRIVILEGES: readonly string[] = collect(ALL_GROUPS, ['root', 'admin', 'user', 'audit']).sort();

const PRIVILEGE_SET = new Set(ALL_PRIVILEGES);

export function isPrivilege(name: string): boolean {
  return PRIVILEGE_SET.has(name);
}

/** The built-in roles (not editable through the API, `special: 1`). */
export const BUILTIN_ROLES: Readonly<Record<string, readonly string[]>> = {
  Administrator: ALL_PRIVILEGES,
  NoAccess: [],
  PVEAdmin: collect(ALL_GROUPS, ['admin', 'user', 'audit']),
  PVEAuditor: collect(ALL_GROUPS, ['audit']),
  PVEVMAdmin: collect(['VM'], ['admin', 'user', 'audit']),
  PVEVMUser: collect(['VM'], ['user', 'audit']),
  PVEUserAdmin: collect(['User'], ['admin', 'user', 'audit']),
  PVEDatastoreAdmin: collect(['Datastore'], ['admin', 'user', 'audit']),
  PVEDatastoreUser: collect(['Datastore'], ['user', 'audit']),
  PVESysAdmin: collect(['Sys'], ['admin', 'user', 'audit']),
  PVEPoolAdmin: collect(['Pool'], ['admin', 'user', 'audit']),
  PVEPoolUser: collect(['Pool'], ['user', 'audit']),
  PVESDNAdmin: collect(['SDN'], ['admin', 'user', 'audit']),
  PVESDNUser: collect(['SDN'], ['user', 'audit']),
  PVEMappingAdmin: collect(['Mapping'], ['admin', 'user', 'audit']),
  PVEMappingUser: collect(['Mapping'], ['user', 'audit']),
  PVETemplateUser: ['VM.Clone', 'VM.Audit'],
};
