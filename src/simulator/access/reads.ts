/**
 * Read-only views of the access configuration: the section index, groups with their members, one
 * role's privileges, one realm, and second factors (TOTP and recovery keys, never their secrets).
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint, SimRequestContext } from '../contract.js';
import { PveHttpError } from '../contract.js';
import { ANY, LIST, OBJ, perm, str } from '../cluster/endpoints/schema.js';
import type { AccessEndpointEnv } from './endpoint-env.js';
import type { User } from './store.js';

type Json = Record<string, unknown>;

const die = (message: string) => new PveHttpError(500, `${message}\n`);
const param = (ctx: SimRequestContext, name: string): string => String(ctx.params[name] ?? '');

function tfaEntries(u: User): Json[] {
  const created = Math.floor(u.expire > 0 ? u.expire - 365 * 86400 : 1_735_689_600);
  const out: Json[] = [];
  if (u.totpSecret) out.push({ id: `totp-${createHash('sha1').update(u.userid).digest('hex').slice(0, 8)}`, type: 'totp', description: 'Authenticator app', created, enable: 1 });
  if (u.recoveryCodes.length > 0) out.push({ id: 'recovery', type: 'recovery', description: `${u.recoveryCodes.length} recovery keys`, created });
  return out;
}

export function accessReadEndpoints({ store }: AccessEndpointEnv): SimEndpoint[] {
  const user = (ctx: SimRequestContext): User => {
    const u = store.user(param(ctx, 'userid'));
    if (!u) throw die(`no such user ('${param(ctx, 'userid')}')`);
    return u;
  };
  const handlers: SimEndpoint[] = [
    {
      method: 'GET',
      path: '/access',
      description: 'Access-control sections (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => ['acl', 'domains', 'groups', 'openid', 'password', 'permissions', 'roles', 'tfa', 'ticket', 'users'].map((subdir) => ({ subdir })),
    },
    {
      method: 'GET',
      path: '/access/openid',
      description: 'OpenID Connect login steps (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => ['auth-url', 'login'].map((subdir) => ({ subdir })),
    },
    {
      method: 'GET',
      path: '/access/groups',
      description: 'User groups the caller may see, with their members.',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) =>
        [...store.groups.values()]
          .filter((g) => ctx.hasPriv(`/access/groups/${g.groupid}`, 'Sys.Audit') || ctx.hasPriv(`/access/groups/${g.groupid}`, 'Group.Allocate'))
          .map((g) => ({ groupid: g.groupid, ...(g.comment ? { comment: g.comment } : {}), users: [...g.members].sort().join(',') })),
    },
    {
      method: 'GET',
      path: '/access/groups/{groupid}',
      description: 'One group: its comment and members.',
      parameters: { groupid: str('The groupid asked for.', { format: 'pve-groupid' }) },
      returns: OBJ,
      permissions: { check: perm('/access/groups', ['Sys.Audit', 'Group.Allocate'], 'any', 1) },
      handler: (ctx) => {
        const g = store.groups.get(param(ctx, 'groupid'));
        if (!g) throw die(`group '${param(ctx, 'groupid')}' does not exist`);
        return { ...(g.comment ? { comment: g.comment } : {}), members: [...g.members].sort() };
      },
    },
    {
      method: 'GET',
      path: '/access/roles/{roleid}',
      description: 'The privileges one role grants.',
      parameters: { roleid: str('The roleid asked for.', { format: 'pve-roleid' }) },
      returns: OBJ,
      permissions: { user: 'all' },
      handler: (ctx) => {
        const r = store.roles.get(param(ctx, 'roleid'));
        if (!r) throw die(`role '${param(ctx, 'roleid')}' does not exist`);
        return Object.fromEntries([...r.privs].sort().map((p) => [p, 1]));
      },
    },
    {
      method: 'GET',
      path: '/access/domains/{realm}',
      description: "One authentication realm's settings.",
      parameters: { realm: str('The realm asked for.', { format: 'pve-realm', maxLength: 32 }) },
      returns: ANY,
      permissions: { check: perm('/access/realm', ['Realm.Allocate', 'Sys.Audit'], 'any', 1) },
      handler: (ctx) => {
        const r = store.realms.get(param(ctx, 'realm'));
        if (!r) throw die(`domain '${param(ctx, 'realm')}' does not exist`);
        const out = { type: r.type, comment: r.comment, ...(r.default ? { default: 1 } : {}) };
        return { ...out, digest: createHash('sha1').update(JSON.stringify(out)).digest('hex') };
      },
    },
    {
      method: 'GET',
      path: '/access/tfa',
      description: 'Two-factor (TFA) entries of every user the caller may see (never their secrets).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      protected: true,
      handler: (ctx) =>
        [...store.users.values()]
          .filter((u) => u.userid === ctx.principal.userid || ctx.hasPriv('/access/groups', 'Sys.Audit') || ctx.hasPriv('/access/groups', 'User.Modify'))
          .map((u) => ({ userid: u.userid, entries: tfaEntries(u) })),
    },
    {
      method: 'GET',
      path: '/access/tfa/{userid}',
      description: 'The second factors (two-factor or TFA entries) registered for one user.',
      parameters: { userid: str('User ID (user@realm).', { format: 'pve-userid', maxLength: 64 }) },
      returns: LIST,
      permissions: { check: ['or', ['userid-param', 'self'], ['userid-group', ['User.Modify', 'Sys.Audit']]] },
      protected: true,
      handler: (ctx) => tfaEntries(user(ctx)),
    },
    {
      method: 'GET',
      path: '/access/tfa/{userid}/{id}',
      description: 'One two-factor (TFA) entry of a user.',
      parameters: { userid: str('User ID (user@realm).', { format: 'pve-userid', maxLength: 64 }), id: str('Identifier of the object.') },
      returns: OBJ,
      permissions: { check: ['or', ['userid-param', 'self'], ['userid-group', ['User.Modify', 'Sys.Audit']]] },
      protected: true,
      handler: (ctx) => {
        const e = tfaEntries(user(ctx)).find((x) => x.id === param(ctx, 'id'));
        if (!e) throw die('no such tfa entry');
        return e;
      },
    },
    {
      method: 'GET',
      path: '/access/users/{userid}/tfa',
      description: 'Which kinds of two-factor (TFA) entry a user has.',
      parameters: { userid: str('User ID (user@realm).', { format: 'pve-userid', maxLength: 64 }) },
      returns: OBJ,
      permissions: { check: ['or', ['userid-param', 'self'], ['userid-group', ['User.Modify', 'Sys.Audit']]] },
      protected: true,
      handler: (ctx) => {
        // Recovery keys back up the other factors; they are not a kind of factor of their own here.
        const types = tfaEntries(user(ctx))
          .map((e) => e.type)
          .filter((t) => t !== 'recovery');
        return types.length ? { types } : {};
      },
    },
  ];
  return handlers;
}
