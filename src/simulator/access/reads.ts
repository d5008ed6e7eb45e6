/**
 * Read-only views of the access configuration: the section index, groups with their members, one
 * role's privileges, one realm, and second factors (TOTP and recovery keys, never their secrets).
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint, SimRequestContext } from '../contract.js';
import { PveHttpError } from '../contract.js';
import { READ_SPECS } from '../cluster/endpoints/read-specs.js';
import type { AccessStore, User } from './store.js';

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

export function accessReads(store: AccessStore): SimEndpoint[] {
  const user = (ctx: SimRequestContext): User => {
    const u = store.user(param(ctx, 'userid'));
    if (!u) throw die(`no such user ('${param(ctx, 'userid')}')`);
    return u;
  };
  const handlers: Record<string, [string, (ctx: SimRequestContext) => unknown]> = {
    '/access': ['Access-control sections (directory index).', () => ['acl', 'domains', 'groups', 'openid', 'password', 'permissions', 'roles', 'tfa', 'ticket', 'users'].map((subdir) => ({ subdir }))],
    '/access/openid': ['OpenID Connect login steps (directory index).', () => ['auth-url', 'login'].map((subdir) => ({ subdir }))],
    '/access/groups': ['User groups the caller may see, with their members.', (ctx) =>
      [...store.groups.values()]
        .filter((g) => ctx.hasPriv(`/access/groups/${g.groupid}`, 'Sys.Audit') || ctx.hasPriv(`/access/groups/${g.groupid}`, 'Group.Allocate'))
        .map((g) => ({ groupid: g.groupid, ...(g.comment ? { comment: g.comment } : {}), users: [...g.members].sort().join(',') }))],
    '/access/groups/{groupid}': ['One group: its comment and members.', (ctx) => {
      const g = store.groups.get(param(ctx, 'groupid'));
      if (!g) throw die(`group '${param(ctx, 'groupid')}' does not exist`);
      return { ...(g.comment ? { comment: g.comment } : {}), members: [...g.members].sort() };
    }],
    '/access/roles/{roleid}': ['The privileges one role grants.', (ctx) => {
      const r = store.roles.get(param(ctx, 'roleid'));
      if (!r) throw die(`role '${param(ctx, 'roleid')}' does not exist`);
      return Object.fromEntries([...r.privs].sort().map((p) => [p, 1]));
    }],
    '/access/domains/{realm}': ['One authentication realm\'s settings.', (ctx) => {
      const r = store.realms.get(param(ctx, 'realm'));
      if (!r) throw die(`domain '${param(ctx, 'realm')}' does not exist`);
      const out = { type: r.type, comment: r.comment, ...(r.default ? { default: 1 } : {}) };
      return { ...out, digest: createHash('sha1').update(JSON.stringify(out)).digest('hex') };
    }],
    '/access/tfa': ['Two-factor (TFA) entries of every user the caller may see (never their secrets).', (ctx) =>
      [...store.users.values()]
        .filter((u) => u.userid === ctx.principal.userid || ctx.hasPriv('/access/groups', 'Sys.Audit') || ctx.hasPriv('/access/groups', 'User.Modify'))
        .map((u) => ({ userid: u.userid, entries: tfaEntries(u) }))],
    '/access/tfa/{userid}': ['The two-factor (TFA) entries of one user.', (ctx) => tfaEntries(user(ctx))],
    '/access/tfa/{userid}/{id}': ['One two-factor (TFA) entry of a user.', (ctx) => {
      const e = tfaEntries(user(ctx)).find((x) => x.id === param(ctx, 'id'));
      if (!e) throw die('no such tfa entry');
      return e;
    }],
    '/access/users/{userid}/tfa': ['Which kinds of two-factor (TFA) entry a user has.', (ctx) => {
      // Recovery keys back up the other factors; they are not a kind of factor of their own here.
      const types = tfaEntries(user(ctx)).map((e) => e.type).filter((t) => t !== 'recovery');
      return types.length ? { types } : {};
    }],
  };
  return Object.entries(handlers).map(([path, [description, handler]]) => {
    const spec = READ_SPECS[path];
    if (!spec) throw new Error(`no read spec for ${path}`);
    return { method: 'GET', path, description, ...spec, parameters: { ...spec.params }, handler };
  });
}
