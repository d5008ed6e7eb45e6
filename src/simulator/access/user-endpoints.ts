/**
 * User accounts and their API tokens: list, create, read, update and delete, with PVE's checks
 * (who may see or change whom, realms that exist, token secrets shown once).
 */
import { arr, bool, int, NULL, obj, opt, str } from '../cluster/endpoints/schema.js';
import { PveHttpError, type SimEndpoint, type SimRequestContext } from '../contract.js';
import { splitList } from '../formats.js';
import { type AccessEndpointEnv, accountOf, die, flag } from './endpoint-env.js';
import { type ApiToken, newUser, type User } from './store.js';
import { randomUUID } from 'node:crypto';

const USERID = str('User ID (`name@realm`).', { format: 'pve-userid', maxLength: 64 });
const TOKENID = str('Token name (the part after `!`).', { pattern: '(?^:[A-Za-z][A-Za-z0-9\\.\\-_]+)' });
const USER_FIELDS = {
  comment: opt(str('Free-form note.', { maxLength: 2048 })),
  email: opt(str('E-mail address.', { format: 'email-opt', maxLength: 254 })),
  enable: opt(bool('Whether the account may log in (1) or is locked (0).', { default: 1 })),
  expire: opt(int('Account expiry as epoch seconds; 0 = never.', { minimum: 0 })),
  firstname: opt(str('Given name.', { maxLength: 1024 })),
  lastname: opt(str('Family name.', { maxLength: 1024 })),
  keys: opt(str('Yubico key IDs for second-factor login.', { pattern: '[0-9a-zA-Z!=]{0,4096}' })),
};
const TOKEN_INFO = {
  comment: opt(str('Free-form note.')),
  expire: opt(int("Expiry as epoch seconds; 0 = never. Defaults to the owner's expiry.", { minimum: 0, default: 'same as user' })),
  privsep: opt(bool("1 = the token only has privileges granted to it (and held by its owner); 0 = all of its owner's.", { default: 1 })),
};
const TOKEN_PERMS = { check: ['or', ['userid-param', 'self'], ['userid-group', ['User.Modify']]] };

function tokenInfo(t: ApiToken): Record<string, unknown> {
  return { ...(t.comment !== undefined ? { comment: t.comment } : {}), expire: t.expire, privsep: t.privsep ? 1 : 0 };
}

/** A user's tokens as list entries (`tokenid` plus settings). */
function tokenList(u: User): Array<Record<string, unknown>> {
  return [...u.tokens].map(([tokenid, t]) => ({ tokenid, ...tokenInfo(t) }));
}

function userFields(u: User): Record<string, unknown> {
  const out: Record<string, unknown> = { enable: u.enable ? 1 : 0, expire: u.expire };
  for (const k of ['firstname', 'lastname', 'email', 'comment'] as const) if (u[k] !== undefined) out[k] = u[k];
  return out;
}

/** PVE's valid ACL paths (`check_path`). */

export function accessUserEndpoints(env: AccessEndpointEnv): SimEndpoint[] {
  const { store } = env;
  const requireUser = (userid: string): User => accountOf(store, userid);
  /** The account named by `{userid}`. */
  const pathUser = (ctx: SimRequestContext): User => requireUser(String(ctx.params.userid));

  const mayListUser = (ctx: SimRequestContext, u: User): boolean => {
    if (u.userid === ctx.principal.userid) return true;
    const privs = ['User.Modify', 'Sys.Audit'];
    if (privs.some((pr) => ctx.hasPriv('/access/groups', pr))) return true;
    return [...u.groups].some((g) => privs.some((pr) => ctx.hasPriv(`/access/groups/${g}`, pr)));
  };

  const setGroups = (u: User, groups: string[], append: boolean) => {
    for (const g of groups) if (!store.groups.has(g)) throw die(`group '${g}' does not exist`);
    if (!append) {
      for (const g of u.groups) store.groups.get(g)?.members.delete(u.userid);
      u.groups.clear();
    }
    for (const g of groups) {
      u.groups.add(g);
      store.groups.get(g)?.members.add(u.userid);
    }
  };

  const applyUserFields = (u: User, p: Record<string, unknown>) => {
    if (p.enable !== undefined) u.enable = flag(p.enable, true);
    if (p.expire !== undefined) u.expire = Number(p.expire);
    for (const k of ['firstname', 'lastname', 'email', 'comment'] as const) if (typeof p[k] === 'string') u[k] = p[k];
  };

  const tokenOf = (ctx: SimRequestContext): { user: User; name: string; token?: ApiToken } => {
    const user = pathUser(ctx);
    const name = String(ctx.params.tokenid);
    const token = user.tokens.get(name);
    return token ? { user, name, token } : { user, name };
  };
  const requireToken = (ctx: SimRequestContext) => {
    const t = tokenOf(ctx);
    if (!t.token) throw die(`no such token '${t.name}' for user '${t.user.userid}'`);
    return { ...t, token: t.token };
  };

  return [
    {
      method: 'GET',
      path: '/access/users',
      description: 'List user accounts the caller may see (itself, members of groups it manages, or all with rights on /access/groups).',
      parameters: {
        enabled: opt(bool('Only enabled (1) or disabled (0) accounts.')),
        full: opt(bool('Include group and token details.', { default: 0 })),
      },
      returns: arr(
        obj({
          userid: USERID,
          ...USER_FIELDS,
          groups: opt(str('Groups, comma-separated.', { format: 'pve-groupid-list' })),
          'realm-type': opt(str("Kind of the user's realm.", { format: 'pve-realm' })),
          tokens: opt(arr(obj({ tokenid: TOKENID, ...TOKEN_INFO }))),
        }),
        { links: [{ rel: 'child', href: '{userid}' }] },
      ),
      permissions: { user: 'all', description: "Filtered by User.Modify / Sys.Audit on the user's groups." },
      handler: (ctx) => {
        const full = ctx.params.full === 1;
        return [...store.users.values()]
          .filter((u) => ctx.params.enabled === undefined || (ctx.params.enabled === 1) === u.enable)
          .filter((u) => mayListUser(ctx, u))
          .sort((a, b) => a.userid.localeCompare(b.userid))
          .map((u) => ({
            userid: u.userid,
            ...userFields(u),
            ...(u.groups.size > 0 ? { groups: [...u.groups].join(',') } : {}),
            'realm-type': store.realms.get(u.userid.split('@')[1] ?? '')?.type ?? 'pve',
            ...(full ? { tokens: tokenList(u) } : {}),
          }));
      },
    },
    {
      method: 'POST',
      path: '/access/users',
      description: 'Create a user account (user@realm) with its name, e-mail and groups and, in the pve realm, a password.',
      parameters: {
        userid: USERID,
        password: opt(str('Initial password (pve realm).', { minLength: 8, maxLength: 64 })),
        groups: opt(str('Groups to join.', { format: 'pve-groupid-list' })),
        ...USER_FIELDS,
      },
      returns: NULL,
      permissions: {
        check: ['and', ['userid-param', 'Realm.AllocateUser'], ['userid-group', ['User.Modify'], 'groups_param', 'create']],
        description: 'Realm.AllocateUser on the realm and User.Modify on the groups given.',
      },
      handler: (ctx) => {
        const p = ctx.params;
        const userid = String(p.userid);
        if (store.users.has(userid)) throw die(`create user failed: user '${userid}' already exists`);
        const realm = userid.split('@')[1] ?? '';
        if (!store.realms.has(realm)) throw die(`create user failed: domain '${realm}' does not exist`);
        const u = newUser(userid);
        applyUserFields(u, p);
        if (typeof p.password === 'string') u.password = p.password;
        setGroups(u, typeof p.groups === 'string' ? splitList(p.groups) : [], true);
        store.users.set(userid, u);
        return null;
      },
    },
    {
      method: 'GET',
      path: '/access/users/{userid}',
      description: 'Read one user account with its groups and tokens.',
      parameters: { userid: USERID },
      returns: obj(
        {
          ...USER_FIELDS,
          groups: opt(arr(str('Group ID.', { format: 'pve-groupid' }))),
          tokens: opt({ type: 'object', additionalProperties: obj(TOKEN_INFO) }),
        },
        { additionalProperties: 0 },
      ),
      permissions: { check: ['userid-group', ['User.Modify', 'Sys.Audit']] },
      handler: (ctx) => {
        const u = pathUser(ctx);
        return {
          ...userFields(u),
          groups: [...u.groups],
          tokens: Object.fromEntries([...u.tokens].map(([name, t]) => [name, tokenInfo(t)])),
        };
      },
    },
    {
      method: 'PUT',
      path: '/access/users/{userid}',
      description: 'Change a user account: name, email, comment, expiry, whether it is enabled, and its groups (add to them with `append`).',
      parameters: {
        userid: USERID,
        groups: opt(str('Groups (replace, or add with `append`).', { format: 'pve-groupid-list' })),
        append: opt(bool('Add `groups` instead of replacing the membership.', { requires: 'groups' })),
        ...USER_FIELDS,
      },
      returns: NULL,
      permissions: { check: ['userid-group', ['User.Modify'], 'groups_param', 'update'] },
      handler: (ctx) => {
        const u = pathUser(ctx);
        applyUserFields(u, ctx.params);
        if (typeof ctx.params.groups === 'string') setGroups(u, splitList(ctx.params.groups), ctx.params.append === 1);
        return null;
      },
    },
    {
      method: 'DELETE',
      path: '/access/users/{userid}',
      description: 'Delete a user account with its tokens and ACL entries.',
      parameters: { userid: USERID },
      returns: NULL,
      permissions: { check: ['and', ['userid-param', 'Realm.AllocateUser'], ['userid-group', ['User.Modify']]] },
      handler: (ctx) => {
        const u = pathUser(ctx);
        setGroups(u, [], false);
        for (const name of u.tokens.keys()) store.dropAclSubject('token', `${u.userid}!${name}`);
        store.dropAclSubject('user', u.userid);
        store.users.delete(u.userid);
        return null;
      },
    },
    {
      method: 'GET',
      path: '/access/users/{userid}/token',
      description: "List a user's API tokens (never their secrets).",
      parameters: { userid: USERID },
      returns: arr(obj({ tokenid: TOKENID, ...TOKEN_INFO }), { links: [{ rel: 'child', href: '{tokenid}' }] }),
      permissions: TOKEN_PERMS,
      handler: (ctx) => tokenList(pathUser(ctx)),
    },
    {
      method: 'GET',
      path: '/access/users/{userid}/token/{tokenid}',
      description: "Read one API token's settings.",
      parameters: { userid: USERID, tokenid: TOKENID },
      returns: obj(TOKEN_INFO),
      permissions: TOKEN_PERMS,
      handler: (ctx) => tokenInfo(requireToken(ctx).token),
    },
    {
      method: 'POST',
      path: '/access/users/{userid}/token/{tokenid}',
      description: 'Create an API token for a user, for scripts and tools to authenticate with; the secret is returned once, in `value`.',
      parameters: { userid: USERID, tokenid: TOKENID, ...TOKEN_INFO },
      returns: obj(
        {
          'full-tokenid': str('`<userid>!<tokenid>`, the ID to send with the secret.', { format_description: '<userid>!<tokenid>' }),
          info: obj(TOKEN_INFO),
          value: str('The token secret.'),
        },
        { additionalProperties: 0 },
      ),
      permissions: TOKEN_PERMS,
      handler: (ctx) => {
        const { user, name, token } = tokenOf(ctx);
        if (token) throw new PveHttpError(400, 'Parameter verification failed.\n', { tokenid: 'Token already exists.' });
        const expire = ctx.params.expire === undefined ? undefined : Number(ctx.params.expire);
        const comment = typeof ctx.params.comment === 'string' && ctx.params.comment !== '' ? ctx.params.comment : undefined;
        // user.cfg stores 0 for "no expiry of its own"; the owner's expiry still applies through the account check.
        const created: ApiToken = { expire: expire ?? 0, privsep: flag(ctx.params.privsep, true), secret: randomUUID(), ...(comment !== undefined ? { comment } : {}) };
        user.tokens.set(name, created);
        // As PVE answers from the new in-memory entry: only the keys that were set (privsep always).
        const info = { privsep: created.privsep ? 1 : 0, ...(expire !== undefined ? { expire } : {}), ...(comment !== undefined ? { comment } : {}) };
        return { 'full-tokenid': `${user.userid}!${name}`, info, value: created.secret };
      },
    },
    {
      method: 'PUT',
      path: '/access/users/{userid}/token/{tokenid}',
      description: "Change an API token's comment, expiry or privilege separation.",
      parameters: {
        userid: USERID,
        tokenid: TOKENID,
        ...TOKEN_INFO,
        delete: opt(str('Settings to reset (comment).', { format: 'pve-configid-list', maxLength: 4096 })),
      },
      returns: obj(TOKEN_INFO),
      permissions: TOKEN_PERMS,
      handler: (ctx) => {
        const { token } = requireToken(ctx);
        const p = ctx.params;
        if (typeof p.comment === 'string') token.comment = p.comment;
        if (p.expire !== undefined) token.expire = Number(p.expire);
        if (p.privsep !== undefined) token.privsep = flag(p.privsep, true);
        if (typeof p.delete === 'string' && splitList(p.delete).includes('comment')) delete token.comment;
        return tokenInfo(token);
      },
    },
    {
      method: 'DELETE',
      path: '/access/users/{userid}/token/{tokenid}',
      description: 'Delete an API token and its ACL entries.',
      parameters: { userid: USERID, tokenid: TOKENID },
      returns: NULL,
      permissions: TOKEN_PERMS,
      handler: (ctx) => {
        const { user, name } = requireToken(ctx);
        user.tokens.delete(name);
        store.dropAclSubject('token', `${user.userid}!${name}`);
        return null;
      },
    },
  ];
}
