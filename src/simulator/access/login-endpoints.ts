/**
 * Login and ticket renewal (with a TOTP or recovery-code second factor), the realms a login may
 * name, and effective permissions.
 */
import { arr, bool, NULL, obj, opt, str } from '../cluster/endpoints/schema.js';
import { PveHttpError, type SimEndpoint, type SimRequestContext } from '../contract.js';
import { splitList } from '../formats.js';
import { normalizePath } from './acl-path.js';
import { computeCapabilities } from './capabilities.js';
import { type AccessEndpointEnv, accountOf, authFailure } from './endpoint-env.js';
import { type User, USERID_RE } from './store.js';
import { verifyTotp } from './totp.js';

export function accessLoginEndpoints(env: AccessEndpointEnv): SimEndpoint[] {
  const { store, tickets } = env;
  const requireUser = (userid: string): User => accountOf(store, userid);

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
      handler: () => [...store.realms.values()].map((r) => ({ realm: r.realm, type: r.type, comment: r.comment, ...(r.default ? { default: 1 } : {}) })),
    },
    {
      method: 'GET',
      path: '/access/permissions',
      description: 'Effective privileges per ACL path of the caller, or of another user or token.',
      parameters: {
        userid: opt(
          str('User or token to report on (needs Sys.Audit on /access unless it is the caller or its token).', {
            pattern: '(?^:^(?^:[^\\s:/]+)\\@(?^:[A-Za-z][A-Za-z0-9\\.\\-_]+)(?:!(?^:[A-Za-z][A-Za-z0-9\\.\\-_]+))?$)',
          }),
        ),
        path: opt(str('Report only this ACL path.')),
      },
      returns: { type: 'object', description: 'Map of ACL path to a map of privilege name to 1.' },
      permissions: { user: 'all', description: 'Any user for themselves; Sys.Audit on /access for others.' },
      handler: permissionsOf,
    },
  ];
}
