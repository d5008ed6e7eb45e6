/**
 * The simulator's own evaluation of an operation's `permissions`, following what pveproxy does
 * before a handler runs (pve-access-control's check_api2_permissions and the checks it runs):
 *
 * - `user: world` lets anonymous callers in (exempt calls carry no user); any other anonymous call
 *   fails `user != null`; root@pam passes everything; no permissions block means root only
 *   (`user != root@pam`); `user: all` lets every authenticated caller in; otherwise the `check`
 *   expression decides, and a block with neither fails without a reason;
 * - `perm PATH PRIVS [any 1] [require_param P]`: all (or with `any` one) of the privileges on the
 *   filled-in, normalized path; a missing `require_param` fails without a reason;
 * - `and` stops at the first failing part (its reason is the answer), `or` passes with the first
 *   passing part and otherwise fails without a reason;
 * - `userid-param self` / `Realm.AllocateUser`, `userid-group PRIVS [groups_param create|update]`
 *   and `perm-modify PATH` as pve-access-control defines them.
 *
 * Every refusal is a 403. Its message is `Permission check failed (…)` where PVE raises a
 * permission exception, and PVE's plain error text (`no such user ('x')`, `value 'x' does not look
 * like a valid user name`, `invalid privilege 'X'`) where it dies with one, because pveproxy
 * answers both with 403.
 */
import { fillTemplate, normalizePath } from './acl-path.js';
import { isPrivilege } from './privileges.js';

export interface PermissionSubject {
  /** `user@realm`, `user@realm!token`, or '' for an anonymous caller. */
  authId: string;
  /** Request parameters (path values included). */
  params: Record<string, unknown>;
  /** Whether the caller holds the privilege on a normalized ACL path (undefined: no valid path). */
  hasPriv(path: string | undefined, priv: string): boolean;
  userExists(userid: string): boolean;
  /** Every group and its members (for `userid-group`). */
  groups(): Iterable<{ groupid: string; members: Iterable<string> }>;
}

export type PermissionVerdict = { allowed: true } | { allowed: false; message: string };

const ALLOWED: PermissionVerdict = { allowed: true };

/** A refusal, carried as an exception through nested checks the way PVE raises one. */
class Refusal extends Error {}

function refuse(what?: string): never {
  throw new Refusal(what === undefined ? 'Permission check failed' : `Permission check failed (${what})`);
}

function dieWith(text: string): never {
  throw new Refusal(text);
}

export function checkOperationPermissions(permissions: unknown, subject: PermissionSubject): PermissionVerdict {
  try {
    checkBlock(permissions, subject);
    return ALLOWED;
  } catch (error) {
    if (error instanceof Refusal) return { allowed: false, message: error.message };
    throw error;
  }
}

function checkBlock(permissions: unknown, s: PermissionSubject): void {
  const block = permissions !== null && typeof permissions === 'object' && !Array.isArray(permissions) ? (permissions as Record<string, unknown>) : undefined;
  if (s.authId === '') {
    if (block?.user === 'world') return;
    refuse('user != null');
  }
  if (s.authId === 'root@pam') return;
  if (block === undefined) refuse('user != root@pam');
  if (block.user === 'all') return;
  if (Array.isArray(block.check) && block.check.length > 0) {
    run(block.check, s, false);
    return;
  }
  refuse();
}

/** One check expression; with `quiet` a failure returns false instead of raising (inside `or`). */
function run(check: unknown[], s: PermissionSubject, quiet: boolean): boolean {
  const [test, ...args] = check;
  switch (test) {
    case 'and':
      for (const sub of args) {
        if (!Array.isArray(sub)) break;
        run(sub, s, false);
      }
      return true;
    case 'or':
      for (const sub of args) {
        if (!Array.isArray(sub)) break;
        if (run(sub, s, true)) return true;
      }
      if (quiet) return false;
      refuse();
    case 'perm':
      return perm(args, s, quiet);
    case 'userid-group':
      return useridGroup(args, s, quiet);
    case 'userid-param':
      return useridParam(args, s, quiet);
    case 'perm-modify':
      return permModify(args, s, quiet);
    default:
      // PVE dies here: an internal error, answered 403 like the other check failures.
      dieWith('unknown permission test');
  }
}

function namedOptions(list: unknown[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (let i = 0; i + 1 < list.length; i += 2) out.set(String(list[i]), list[i + 1]);
  return out;
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x) => String(x)) : [];
}

function verifyPrivs(privs: string[]): void {
  for (const p of privs) if (!isPrivilege(p)) dieWith(`invalid privilege '${p}'`);
}

/** All of `privs` on the path (check), or one of them (check_any). */
function holds(s: PermissionSubject, path: string | undefined, privs: string[], any: boolean, quiet: boolean): boolean {
  verifyPrivs(privs);
  if (any) {
    if (privs.some((p) => s.hasPriv(path, p))) return true;
    if (quiet) return false;
    refuse(`${path ?? ''}, ${privs.join('|')}`);
  }
  for (const p of privs) {
    if (s.hasPriv(path, p)) continue;
    if (quiet) return false;
    refuse(`${path ?? ''}, ${p}`);
  }
  return true;
}

function perm(args: unknown[], s: PermissionSubject, quiet: boolean): boolean {
  const [template, privsRaw, ...rest] = args;
  const privs = stringList(privsRaw);
  if (typeof template !== 'string' || template === '' || !Array.isArray(privsRaw)) dieWith('missing parameters');
  const opts = namedOptions(rest);
  const required = opts.get('require_param');
  if (typeof required === 'string' && required !== '' && (s.params[required] === undefined || s.params[required] === null)) {
    if (quiet) return false;
    refuse();
  }
  const path = normalizePath(fillTemplate(template, s.params));
  return holds(s, path, privs, Boolean(opts.get('any')), quiet);
}

const USER_PART = /^[^\s:/]+$/;
const REALM = /^[A-Za-z][A-Za-z0-9.\-_]+$/;

/** PVE's user name check: length 3..64, `name@realm`; returns [userid, realm] or dies/undefined. */
function verifyUsername(value: unknown, quiet: boolean): [string, string] | undefined {
  const name = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  let problem: string | undefined;
  if (name.length < 3) problem = `user name '${name}' is too short`;
  else if (name.length > 64) problem = `user name '${name}' is too long (${name.length} > 64)`;
  else {
    const at = name.lastIndexOf('@');
    const user = name.slice(0, at);
    const realm = name.slice(at + 1);
    if (at > 0 && USER_PART.test(user) && REALM.test(realm)) return [name, realm];
    problem = `value '${name}' does not look like a valid user name`;
  }
  if (quiet) return undefined;
  dieWith(problem);
}

function userMustExist(value: unknown, s: PermissionSubject, quiet: boolean): string | undefined {
  const verified = verifyUsername(value, quiet);
  if (!verified) return undefined;
  if (s.userExists(verified[0])) return verified[0];
  if (quiet) return undefined;
  dieWith(`no such user ('${verified[0]}')`);
}

function splitList(value: unknown): string[] {
  const text = Array.isArray(value) ? value.map(String).join('\0') : value === undefined || value === null ? '' : String(value);
  if (text.includes('\0')) return text.split('\0');
  return text
    .replace(/[,;]/g, ' ')
    .trim()
    .split(/\s+/)
    .filter((x) => x !== '');
}

function useridGroup(args: unknown[], s: PermissionSubject, quiet: boolean): boolean {
  const [privsRaw, ...rest] = args;
  const privs = stringList(privsRaw);
  const opts = namedOptions(rest);
  const groupsParam = opts.get('groups_param');
  const checkExisting = !groupsParam || groupsParam !== 'create';
  const target = s.params.userid;
  if (checkExisting && userMustExist(target, s, quiet) === undefined) return false;
  // Any of the privileges on /access/groups covers every group, hence every user.
  if (holds(s, '/access/groups', privs, true, true)) return true;
  const managed = new Map<string, string[]>();
  for (const g of s.groups()) {
    if (holds(s, `/access/groups/${g.groupid}`, privs, true, true)) managed.set(g.groupid, [...g.members]);
  }
  const wanted = privs.join('|');
  if (groupsParam) {
    const named = splitList(s.params.groups);
    if (named.length === 0) refuse(`/access/groups, ${wanted}`);
    for (const g of named) if (!managed.has(g)) refuse(`/access/groups/${g}, ${wanted}`);
  }
  if (checkExisting) {
    const reachable = new Set([...managed.values()].flat());
    if (!reachable.has(String(target))) {
      if (quiet) return false;
      refuse();
    }
  }
  return true;
}

function useridParam(args: unknown[], s: PermissionSubject, quiet: boolean): boolean {
  // The user name is checked first, and without mercy: even inside `or` a bad name dies.
  const verified = verifyUsername(s.params.userid, false) as [string, string];
  const [subtest] = args;
  if (!subtest) dieWith('missing parameters');
  if (subtest === 'self') {
    if (!s.userExists(verified[0])) {
      if (quiet) return false;
      dieWith(`no such user ('${verified[0]}')`);
    }
    if (s.authId === verified[0]) return true;
    if (quiet) return false;
    refuse();
  }
  if (subtest === 'Realm.AllocateUser') return holds(s, `/access/realm/${verified[1]}`, ['Realm.AllocateUser'], false, quiet);
  dieWith('unknown userid-param test');
}

/** Privileges besides Permissions.Modify that allow changing ACLs below an object's path. */
const ALLOCATE_FOR: ReadonlyArray<[string, string]> = [
  ['/storage/', 'Datastore.Allocate'],
  ['/vms/', 'VM.Allocate'],
  ['/pool/', 'Pool.Allocate'],
];

function permModify(args: unknown[], s: PermissionSubject, quiet: boolean): boolean {
  const [template] = args;
  const path = normalizePath(fillTemplate(typeof template === 'string' ? template : '', s.params));
  // PVE's API2::ACL refuses an invalid path itself; the check lets it through to get there.
  if (path === undefined) return false;
  const privs = ['Permissions.Modify'];
  for (const [prefix, priv] of ALLOCATE_FOR) {
    if (path.startsWith(prefix) && path.length > prefix.length) {
      privs.push(priv);
      break;
    }
  }
  return holds(s, path, privs, true, quiet);
}
