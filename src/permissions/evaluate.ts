/**
 * Evaluate PVE permission expressions (the `permissions` block of an API method) for a principal.
 *
 * The semantics follow pve-access-control's `check_api2_permissions` / `exec_api2_perm_check`:
 * `perm` (all privileges, or one of them with `any`), `require_param`, `and`, `or`,
 * `userid-param` (`self` / `Realm.AllocateUser`), `userid-group`, `perm-modify`, and the
 * object-level `user: all|world`. Failure messages are PVE's 403 texts, so the simulator can send
 * them as-is and the safety layer can show the model what a real node would answer.
 */
import { fillAclPath, normalizeAclPath } from './acl-path.js';

export interface PermissionEnv {
  /** Request parameters (path values included); used for `{placeholders}` and `require_param`. */
  params: Record<string, unknown>;
  /** The authenticated principal: `user@realm`, or `user@realm!token` for API tokens. */
  userid: string;
  /** Effective privilege of the principal on an ACL path (token privsep already applied). */
  hasPriv(path: string, priv: string): boolean;
  /** Groups a user belongs to (for `userid-group`); without it only `/access/groups` ACLs count. */
  groupsOf?(userid: string): string[];
  /** Whether a user exists (for `userid-param self`); assumed true when absent. */
  userExists?(userid: string): boolean;
}

export interface MissingPrivilege {
  path: string;
  privs: string[];
}

export type PermissionResult = { ok: true } | { ok: false; missing: MissingPrivilege[]; message: string };

const OK: PermissionResult = { ok: true };

function denied(what: string | undefined, missing: MissingPrivilege[] = []): PermissionResult {
  return { ok: false, missing, message: what ? `Permission check failed (${what})` : 'Permission check failed' };
}

/** Privileges `perm-modify` accepts besides Permissions.Modify, by ACL path prefix. */
const MODIFY_ALTERNATIVES: Array<[RegExp, string]> = [
  [/^\/storage\/.+$/, 'Datastore.Allocate'],
  [/^\/vms\/.+$/, 'VM.Allocate'],
  [/^\/pool\/.+$/, 'Pool.Allocate'],
];

const USERID_RE = /^([^\s:/]+)@([A-Za-z][A-Za-z0-9.\-_]+)$/;

/**
 * Evaluate either a whole permissions object (`{check?, user?}`, with PVE's top-level rules:
 * `world`/`all`, root@pam bypass, no block = root only) or a bare check expression.
 */
export function evaluatePermission(check: unknown, env: PermissionEnv): PermissionResult {
  if (Array.isArray(check)) return evaluateCheck(check, env);
  if (check !== null && typeof check === 'object') return evaluateBlock(check as Record<string, unknown>, env);
  if (check === undefined || check === null) return evaluateBlock(undefined, env);
  return denied('invalid permission expression');
}

function evaluateBlock(perms: Record<string, unknown> | undefined, env: PermissionEnv): PermissionResult {
  if (perms?.user === 'world') return OK;
  if (env.userid === 'root@pam') return OK;
  if (!perms || (perms.user === undefined && perms.check === undefined)) return denied('user != root@pam');
  if (perms.user === 'all') return OK;
  if (Array.isArray(perms.check)) return evaluateCheck(perms.check, env);
  return denied(undefined);
}

function evaluateCheck(expr: unknown[], env: PermissionEnv): PermissionResult {
  const [test, ...rest] = expr;
  switch (test) {
    case 'and': {
      for (const sub of rest) {
        if (!Array.isArray(sub)) return denied('invalid permission expression');
        const res = evaluateCheck(sub, env);
        if (!res.ok) return res;
      }
      return OK;
    }
    case 'or': {
      const missing: MissingPrivilege[] = [];
      for (const sub of rest) {
        if (!Array.isArray(sub)) continue;
        const res = evaluateCheck(sub, env);
        if (res.ok) return OK;
        missing.push(...res.missing);
      }
      return denied(undefined, missing);
    }
    case 'perm':
      return evaluatePerm(rest, env);
    case 'userid-param':
      return evaluateUseridParam(rest[0], env);
    case 'userid-group':
      return evaluateUseridGroup(rest, env);
    case 'perm-modify':
      return evaluatePermModify(rest[0], env);
    default:
      return denied(`unknown permission test '${String(test)}'`);
  }
}

function options(list: unknown[]): Record<string, unknown> {
  const opts: Record<string, unknown> = {};
  for (let i = 0; i + 1 < list.length; i += 2) opts[String(list[i])] = list[i + 1];
  return opts;
}

function privList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function evaluatePerm(args: unknown[], env: PermissionEnv): PermissionResult {
  const [template, privsRaw, ...optList] = args;
  const privs = privList(privsRaw);
  if (typeof template !== 'string' || privs.length === 0) return denied('invalid permission expression');
  const opts = options(optList);
  const path = normalizeAclPath(fillAclPath(template, env.params));
  const requireParam = opts.require_param;
  if (typeof requireParam === 'string') {
    const v = env.params[requireParam];
    if (v === undefined || v === null) return denied(undefined, [{ path, privs }]);
  }
  return checkPrivs(env, path, privs, Boolean(opts.any));
}

function checkPrivs(env: PermissionEnv, path: string, privs: string[], any: boolean): PermissionResult {
  if (any) {
    if (privs.some((p) => env.hasPriv(path, p))) return OK;
    return denied(`${path}, ${privs.join('|')}`, [{ path, privs }]);
  }
  const missing = privs.filter((p) => !env.hasPriv(path, p));
  if (missing.length === 0) return OK;
  return denied(`${path}, ${missing[0]}`, [{ path, privs: missing }]);
}

function evaluateUseridParam(subtest: unknown, env: PermissionEnv): PermissionResult {
  const target = env.params.userid;
  const m = typeof target === 'string' ? USERID_RE.exec(target) : null;
  if (!m) return denied(`invalid user name '${String(target ?? '')}'`);
  if (subtest === 'self') {
    if (env.userExists && !env.userExists(target as string)) return denied(`no such user ('${String(target)}')`);
    return env.userid === target ? OK : denied(undefined);
  }
  if (subtest === 'Realm.AllocateUser') {
    return checkPrivs(env, `/access/realm/${m[2]}`, ['Realm.AllocateUser'], false);
  }
  return denied(`unknown userid-param test '${String(subtest)}'`);
}

/**
 * `userid-group`: the caller needs one of the privileges on `/access/groups` (all users), or on a
 * group the target user belongs to. With `groups_param`, every group named in `groups` must be
 * one the caller may manage (`create` additionally skips the existing-user check).
 */
function evaluateUseridGroup(args: unknown[], env: PermissionEnv): PermissionResult {
  const [privsRaw, ...optList] = args;
  const privs = privList(privsRaw);
  const opts = options(optList);
  if (privs.some((p) => env.hasPriv('/access/groups', p))) return OK;
  const mayManage = (group: string) => privs.some((p) => env.hasPriv(`/access/groups/${group}`, p));
  const wanted = privs.join('|');
  if (opts.groups_param !== undefined) {
    const groups = splitGroups(env.params.groups);
    if (opts.groups_param === 'create' && groups.length === 0) {
      return denied(`/access/groups, ${wanted}`, [{ path: '/access/groups', privs }]);
    }
    for (const g of groups) {
      if (!mayManage(g)) return denied(`/access/groups/${g}, ${wanted}`, [{ path: `/access/groups/${g}`, privs }]);
    }
  }
  if (opts.groups_param === 'create') return OK;
  const target = typeof env.params.userid === 'string' ? env.params.userid : '';
  const targetGroups = env.groupsOf ? env.groupsOf(target) : [];
  if (targetGroups.some(mayManage)) return OK;
  return denied(undefined, [{ path: '/access/groups', privs }]);
}

function splitGroups(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String).filter((s) => s.length > 0);
  if (typeof value !== 'string') return [];
  return value.split(/[,;\s\0]+/).filter((s) => s.length > 0);
}

function evaluatePermModify(template: unknown, env: PermissionEnv): PermissionResult {
  const raw = typeof template === 'string' ? fillAclPath(template, env.params) : '';
  if (raw === '' || raw === '-') return checkPrivs(env, '/access', ['Permissions.Modify'], false);
  const path = normalizeAclPath(raw);
  const privs = ['Permissions.Modify'];
  for (const [re, priv] of MODIFY_ALTERNATIVES) if (re.test(path)) privs.push(priv);
  return checkPrivs(env, path, privs, true);
}
