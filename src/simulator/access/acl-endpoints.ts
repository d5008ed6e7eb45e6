/**
 * Access control lists and roles: read the ACL entries the caller may audit, change them on paths
 * PVE accepts, and list the roles with their privileges.
 */
import { arr, bool, NULL, obj, opt, str } from '../cluster/endpoints/schema.js';
import type { SimEndpoint } from '../contract.js';
import { splitList } from '../formats.js';
import { normalizePath } from './acl-path.js';
import { type AccessEndpointEnv, die, flag } from './endpoint-env.js';
import type { AclSubjectType } from './store.js';

const ACL_PATH_RE =
  /^(?:\/|\/access|\/access\/groups|\/access\/groups\/[\w.-]+|\/access\/realm|\/access\/realm\/[\w.-]+|\/nodes|\/nodes\/[\w.-]+|\/pool|\/pool\/[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+){0,2}|\/sdn(?:\/[\w.-]+)*|\/storage|\/storage\/[\w.-]+|\/vms|\/vms\/[1-9][0-9]{2,}|\/mapping(?:\/[\w.-]+)*)$/;

export function accessAclEndpoints(env: AccessEndpointEnv): SimEndpoint[] {
  const { store } = env;

  return [
    {
      method: 'GET',
      path: '/access/acl',
      description: 'List ACL entries on paths where the caller has Sys.Audit or Permissions.Modify.',
      parameters: {},
      returns: arr(
        obj(
          {
            path: str('ACL path.'),
            type: str('Subject kind.', { enum: ['user', 'group', 'token'] }),
            ugid: str('User, group or token ID.'),
            roleid: str('Role granted.'),
            propagate: opt(bool('Whether the grant also applies below the path.', { default: 1 })),
          },
          { additionalProperties: 0 },
        ),
      ),
      permissions: { user: 'all', description: 'Entries are filtered by Sys.Audit or Permissions.Modify on their path.' },
      handler: (ctx) =>
        store
          .aclEntries()
          .filter((e) => ctx.hasPriv(e.path, 'Sys.Audit') || ctx.hasPriv(e.path, 'Permissions.Modify'))
          .map((e) => ({ path: e.path, type: e.type, ugid: e.ugid, roleid: e.roleid, propagate: e.propagate ? 1 : 0 })),
    },
    {
      method: 'PUT',
      path: '/access/acl',
      description: 'Give users, groups or API tokens a role on a path such as /vms/100, which decides what they may see or manage there (or with `delete` take it away).',
      parameters: {
        path: str('ACL path, e.g. /vms/100 or /pool/lab.'),
        roles: str('Roles to grant or revoke.', { format: 'pve-roleid-list' }),
        users: opt(str('Users.', { format: 'pve-userid-list' })),
        groups: opt(str('Groups.', { format: 'pve-groupid-list' })),
        tokens: opt(str('API tokens.', { format: 'pve-tokenid-list' })),
        propagate: opt(bool('Also apply below the path.', { default: 1 })),
        delete: opt(bool('Revoke instead of grant.')),
      },
      returns: NULL,
      permissions: { check: ['perm-modify', '{path}'], description: 'Permissions.Modify on the path (or the matching Allocate privilege).' },
      handler: (ctx) => {
        const p = ctx.params;
        const path = normalizePath(String(p.path));
        if (path === undefined || !ACL_PATH_RE.test(path)) throw die(`invalid ACL path '${String(p.path)}'`);
        const subjects: Array<[AclSubjectType, string]> = [
          ...splitList(String(p.users ?? '')).map((u): [AclSubjectType, string] => ['user', u]),
          ...splitList(String(p.groups ?? '')).map((g): [AclSubjectType, string] => ['group', g]),
          ...splitList(String(p.tokens ?? '')).map((t): [AclSubjectType, string] => ['token', t]),
        ];
        if (subjects.length === 0) throw die("either 'users', 'groups' or 'tokens' is required!");
        const roles = splitList(String(p.roles));
        for (const r of roles) if (!store.roles.has(r)) throw die(`role '${r}' does not exist`);
        for (const [type, id] of subjects) {
          if (type === 'user' && !store.users.has(id)) throw die(`user '${id}' does not exist`);
          if (type === 'group' && !store.groups.has(id)) throw die(`group '${id}' does not exist`);
          if (type === 'token') {
            const [owner = '', name = ''] = id.split('!');
            if (!store.user(owner)?.tokens.has(name)) throw die(`no such token '${name}' for user '${owner}'`);
          }
        }
        for (const [type, ugid] of subjects) {
          for (const roleid of roles) {
            if (p.delete === 1) store.deleteAcl({ path, type, ugid, roleid });
            else store.setAcl({ path, type, ugid, roleid, propagate: flag(p.propagate, true) });
          }
        }
        return null;
      },
    },
    {
      method: 'GET',
      path: '/access/roles',
      description: 'List roles and the privileges each grants.',
      parameters: {},
      returns: arr(
        obj({
          roleid: str('Role name.', { format: 'pve-roleid' }),
          privs: opt(str('Privileges, comma-separated.', { format: 'pve-priv-list' })),
          special: opt(bool('Built-in role that cannot be changed.', { default: 0 })),
        }),
        { links: [{ rel: 'child', href: '{roleid}' }] },
      ),
      permissions: { user: 'all' },
      handler: () => [...store.roles.values()].map((r) => ({ roleid: r.roleid, privs: [...r.privs].sort().join(','), special: r.special ? 1 : 0 })),
    },
  ];
}
