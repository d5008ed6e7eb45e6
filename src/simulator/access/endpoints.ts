/**
 * The simulator's `/access` operations: login and ticket renewal (with TOTP second factor),
 * realms, effective permissions, users, API tokens, ACLs and roles. Parameter names, types and
 * permission checks follow PVE; all descriptions are the project's own.
 */
import { randomUUID } from 'node:crypto';
import { PveHttpError, type SimEndpoint, type SimRequestContext } from '../contract.js';
import { arr, bool, int, NULL, obj, opt, str } from '../cluster/endpoints/schema.js';
import { normalizePath } from './acl-path.js';
import { splitList } from '../formats.js';
import { computeCapabilities } from './capabilities.js';
import { newUser, USERID_RE, type AccessStore, type AclSubjectType, type ApiToken, type User } from './store.js';
import type { TicketAuthority } from './tickets.js';
import { verifyTotp } from './totp.js';

export interface AccessEndpointEnv {
  store: AccessStore;
  tickets: TicketAuthority;
  /** Corosync cluster name; `undefined` for a stand-alone node. */
  clusterName(): string | undefined;
}

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
  expire: opt(int('Expiry as epoch seconds; 0 = never. Defaults to the owner\'s expiry.', { minimum: 0, default: 'same as user' })),
  privsep: opt(bool('1 = the token only has privileges granted to it (and held by its owner); 0 = all of its owner\'s.', { default: 1 })),
};
const TOKEN_PERMS = { check: ['or', ['userid-param', 'self'], ['userid-group', ['User.Modify']]] };

const authFailure = () => new PveHttpError(401, 'authentication failure\n');
const die = (message: string) => new PveHttpError(500, `${message}\n`);

function flag(value: unknown, fallback: boolean): boolean {
  return value === undefined ? fallback : value === 1 || value === true;
}

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
const ACL_PATH_RE =
  /^(?:\/|\/access|\/access\/groups|\/access\/groups\/[\w.-]+|\/access\/realm|\/access\/realm\/[\w.-]+|\/nodes|\/nodes\/[\w.-]+|\/pool|\/pool\/[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+){0,2}|\/sdn(?:\/[\w.-]+)*|\/storage|\/storage\/[\w.-]+|\/vms|\/vms\/[1-9][0-9]{2,}|\/mapping(?:\/[\w.-]+)*)$/;

export function accessEndpoints(env: AccessEndpointEnv): SimEndpoint[] {
  const { store, tickets } = env;

  const requireUser = (userid: string): User => {
    const u = store.user(userid);
    if (!u) throw die(`no such user ('${userid}')`);
    return u;
  };
  /** The account named by `{userid}`. */
  const pathUser = (ctx: SimRequestContext): User => requireUser(String(ctx.params.userid));

  const issue = (username: string) => {
    const name = env.clusterName();
    return {
      username,
      ticket: tickets.issue(username),
      CSRFPreventionToken: tickets.csrfToken(username),
      cap: computeCapabilities(store, username),
      ...(name !== undefined && store.hasPriv(username, '/', 'Sys.Audit') ? { clustername: name } : {}),
    };
  };

  const secondFactor = (u: User, response: string): boolean => {
    const m = /^(totp|recovery):(.*)$/.exec(response);
    if (!m) return false;
    if (m[1] === 'totp') return u.totpSecret !== undefined && verifyTotp(u.totpSecret, m[2] as string, store.nowSec());
    const idx = u.recoveryCodes.indexOf(m[2] as string);
    if (idx < 0) return false;
    u.recoveryCodes.splice(idx, 1);
    return true;
  };

  const login = (ctx: SimRequestContext) => {
    const p = ctx.params;
    let username = String(p.username);
    if (typeof p.realm === 'string' && !username.includes('@')) username = `${username}@${p.realm}`;
    const password = String(p.password);
    if (!USERID_RE.test(username) || store.userProblem(username)) throw authFailure();
    const user = requireUser(username);
    const challenge = p['tfa-challenge'];
    if (typeof challenge === 'string') {
      const half = tickets.verify(challenge, username);
      if (p.otp !== undefined || !half?.data.startsWith('!tfa!') || !secondFactor(user, password)) throw authFailure();
      return issue(username);
    }
    const renewal = password.startsWith('PVE:') ? tickets.verify(password) : undefined;
    if (renewal) {
      if (renewal.data !== username && renewal.data !== 'root@pam') throw authFailure();
      return issue(username);
    }
    if (user.password === undefined || user.password !== password) throw authFailure();
    if (typeof p.path === 'string' && typeof p.privs === 'string') {
      const path = normalizePath(p.path);
      if (path === undefined) throw authFailure();
      if (!splitList(p.privs).every((priv) => store.hasPriv(username, path, priv))) throw authFailure();
      return { username };
    }
    if (user.totpSecret !== undefined) {
      if (typeof p.otp === 'string') {
        if (!verifyTotp(user.totpSecret, p.otp, store.nowSec())) throw authFailure();
        return issue(username);
      }
      const tfa = JSON.stringify({ totp: true, recovery: user.recoveryCodes.map((_, i) => i) });
      return { username, ticket: tickets.issue(`!tfa!${tfa}`, username), CSRFPreventionToken: tickets.csrfToken(username), NeedTFA: 1 };
    }
    return issue(username);
  };

  const permissionsOf = (ctx: SimRequestContext) => {
    const caller = ctx.principal.authId;
    const target = typeof ctx.params.userid === 'string' ? ctx.params.userid : caller;
    const ownToken = target.startsWith(`${ctx.principal.userid}!`) && ctx.principal.tokenid === undefined;
    if (target !== caller && !ownToken && !ctx.hasPriv('/access', 'Sys.Audit')) {
      throw new PveHttpError(403, 'Permission check failed (/access, Sys.Audit)\n');
    }
    const paths =
      typeof ctx.params.path === 'string'
        ? [normalizePath(ctx.params.path) ?? ctx.params.path]
        : [...new Set(['/', '/access', '/access/groups', '/nodes', '/pool', '/sdn', '/storage', '/vms', ...store.acl.keys()])];
    const out: Record<string, Record<string, 1>> = {};
    for (const path of paths) {
      const privs = store.privileges(target, path);
      if (privs.size > 0) out[path] = Object.fromEntries([...privs].sort().map((pr) => [pr, 1 as const]));
    }
    return out;
  };

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
      path: '/access/ticket',
      description: 'Placeholder for the login form; returns nothing. Log in with POST.',
      parameters: {},
      returns: NULL,
      permissions: { user: 'world' },
      handler: () => null,
    },
    {
      method: 'POST',
      path: '/access/ticket',
      description:
        'Log in: trade a password (or a still-valid ticket, to renew it) for an authentication ticket and CSRF token. Users with a second factor first get a half ticket and `NeedTFA`, then send the code with `tfa-challenge`.',
      parameters: {
        username: str('User name, with or without `@realm`.', { maxLength: 64 }),
        password: str('The password, a valid ticket (renewal), or the second-factor response (`totp:<code>`, `recovery:<code>`).'),
        realm: opt(str('Realm appended to a bare user name.', { format: 'pve-realm', maxLength: 32 })),
        otp: opt(str('One-time code for an immediate TOTP login.')),
        'tfa-challenge': opt(str('The half ticket from the first step of a second-factor login.')),
        path: opt(str('Only verify privileges on this ACL path instead of logging in.', { maxLength: 64 })),
        privs: opt(str('Privileges to verify on `path`.', { format: 'pve-priv-list', maxLength: 64 })),
        'new-format': opt(bool('Ignored; kept for older clients.', { default: 1 })),
      },
      returns: obj({
        username: str('The authenticated user ID.'),
        ticket: opt(str('The ticket to send as `PVEAuthCookie`.')),
        CSRFPreventionToken: opt(str('Send as `CSRFPreventionToken` header on writes.')),
        clustername: opt(str('Cluster name (needs Sys.Audit on /).')),
      }),
      permissions: { user: 'world', description: 'Anyone may try to log in.' },
      allowtoken: false,
      protected: true,
      handler: login,
    },
    {
      method: 'GET',
      path: '/access/domains',
      description: 'List the authentication realms users can log in with.',
      parameters: {},
      returns: arr(
        obj({
          realm: str('Realm identifier.'),
          type: str('Realm kind (pam, pve, …).'),
          comment: opt(str('Description.')),
          tfa: opt(str('Second factor enforced for the whole realm.', { enum: ['yubico', 'oath'] })),
        }),
        { links: [{ rel: 'child', href: '{realm}' }] },
      ),
      permissions: { user: 'world', description: 'Anyone, so the login form can offer the realms.' },
      handler: () =>
        [...store.realms.values()].map((r) => ({ realm: r.realm, type: r.type, comment: r.comment, ...(r.default ? { default: 1 } : {}) })),
    },
    {
      method: 'GET',
      path: '/access/permissions',
      description: 'Effective privileges per ACL path of the caller, or of another user or token.',
      parameters: {
        userid: opt(str('User or token to report on (needs Sys.Audit on /access unless it is the caller or its token).', {
          pattern: '(?^:^(?^:[^\\s:/]+)\\@(?^:[A-Za-z][A-Za-z0-9\\.\\-_]+)(?:!(?^:[A-Za-z][A-Za-z0-9\\.\\-_]+))?$)',
        })),
        path: opt(str('Report only this ACL path.')),
      },
      returns: { type: 'object', description: 'Map of ACL path to a map of privilege name to 1.' },
      permissions: { user: 'all', description: 'Any user for themselves; Sys.Audit on /access for others.' },
      handler: permissionsOf,
    },
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
          'realm-type': opt(str('Kind of the user\'s realm.', { format: 'pve-realm' })),
          tokens: opt(arr(obj({ tokenid: TOKENID, ...TOKEN_INFO }))),
        }),
        { links: [{ rel: 'child', href: '{userid}' }] },
      ),
      permissions: { user: 'all', description: 'Filtered by User.Modify / Sys.Audit on the user\'s groups.' },
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
      description: 'Create a user account.',
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
      description: 'Change a user account.',
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
      description: 'List a user\'s API tokens (never their secrets).',
      parameters: { userid: USERID },
      returns: arr(obj({ tokenid: TOKENID, ...TOKEN_INFO }), { links: [{ rel: 'child', href: '{tokenid}' }] }),
      permissions: TOKEN_PERMS,
      handler: (ctx) => tokenList(pathUser(ctx)),
    },
    {
      method: 'GET',
      path: '/access/users/{userid}/token/{tokenid}',
      description: 'Read one API token\'s settings.',
      parameters: { userid: USERID, tokenid: TOKENID },
      returns: obj(TOKEN_INFO),
      permissions: TOKEN_PERMS,
      handler: (ctx) => tokenInfo(requireToken(ctx).token),
    },
    {
      method: 'POST',
      path: '/access/users/{userid}/token/{tokenid}',
      description: 'Create an API token. The secret is returned once, in `value`.',
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
      description: 'Change an API token\'s comment, expiry or privilege separation.',
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
      description: 'Grant (or with `delete` revoke) roles on a path to users, groups or tokens.',
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
      handler: () =>
        [...store.roles.values()].map((r) => ({ roleid: r.roleid, privs: [...r.privs].sort().join(','), special: r.special ? 1 : 0 })),
    },
  ];
}
