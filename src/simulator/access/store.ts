/**
 * The simulated access-control configuration (what PVE keeps in user.cfg): realms, users with
 * their API tokens, groups, roles and ACLs, plus PVE's privilege computation — ACL inheritance
 * along the path (deeper entries replace inherited ones, user entries beat group entries,
 * `NoAccess` wins), pool ACLs for pool members, root@pam bypass and token privilege separation.
 */
import { normalizePath, pathLevels } from './acl-path.js';
import { ALL_PRIVILEGES, BUILTIN_ROLES } from './privileges.js';

export type RealmType = 'pam' | 'pve';

export interface Realm {
  realm: string;
  type: RealmType;
  comment: string;
  /** Offered first in the GUI login form. */
  default?: boolean;
}

export interface ApiToken {
  comment?: string;
  /** Epoch seconds, 0 = never. */
  expire: number;
  privsep: boolean;
  secret: string;
}

export interface User {
  userid: string;
  enable: boolean;
  /** Epoch seconds, 0 = never. */
  expire: number;
  firstname?: string;
  lastname?: string;
  email?: string;
  comment?: string;
  /** Plain text: this is a simulator; pam users get theirs at start, pve users through the API. */
  password?: string;
  groups: Set<string>;
  tokens: Map<string, ApiToken>;
  /** Base32 TOTP secret when the user has TOTP as second factor. */
  totpSecret?: string;
  /** Unused recovery codes. */
  recoveryCodes: string[];
}

export interface Group {
  groupid: string;
  comment?: string;
  members: Set<string>;
}

export interface Role {
  roleid: string;
  privs: Set<string>;
  /** Built-in roles cannot be changed. */
  special: boolean;
}

export type AclSubjectType = 'user' | 'group' | 'token';

export interface AclEntry {
  path: string;
  type: AclSubjectType;
  /** userid, groupid or full token id. */
  ugid: string;
  roleid: string;
  propagate: boolean;
}

export const USERID_RE = /^([^\s:/]+)@([A-Za-z][A-Za-z0-9.\-_]+)$/;
export const FULL_TOKEN_RE = /^([^\s:/]+@[A-Za-z][A-Za-z0-9.\-_]+)!([A-Za-z][A-Za-z0-9.\-_]+)$/;

/** Pools whose ACLs also apply to an ACL path of a guest or storage (pool ACLs apply to members). */
export type PoolResolver = (aclPath: string) => string[];

export class AccessStore {
  readonly realms = new Map<string, Realm>();
  readonly users = new Map<string, User>();
  readonly groups = new Map<string, Group>();
  readonly roles = new Map<string, Role>();
  /** ACL entries by normalized path. */
  readonly acl = new Map<string, AclEntry[]>();
  poolsFor: PoolResolver = () => [];

  constructor(private readonly clockSec: () => number) {
    this.realms.set('pam', { realm: 'pam', type: 'pam', comment: 'Linux PAM standard authentication' });
    this.realms.set('pve', { realm: 'pve', type: 'pve', comment: 'Proxmox VE authentication server', default: true });
    for (const [roleid, privs] of Object.entries(BUILTIN_ROLES)) {
      this.roles.set(roleid, { roleid, privs: new Set(privs), special: true });
    }
    this.users.set('root@pam', newUser('root@pam', { comment: 'Built-in superuser' }));
  }

  nowSec(): number {
    return this.clockSec();
  }

  user(userid: string): User | undefined {
    return this.users.get(userid);
  }

  /** Why a user may not log in or use tokens now, or `undefined` when the account is usable. */
  userProblem(userid: string): string | undefined {
    const u = this.users.get(userid);
    if (!u) return `no such user ('${userid}')`;
    if (!u.enable) return `user '${userid}' is disabled`;
    if (u.expire > 0 && u.expire < this.nowSec()) return `account expired`;
    return undefined;
  }

  groupsOf(userid: string): string[] {
    return [...(this.users.get(userid)?.groups ?? [])];
  }

  setAcl(entry: AclEntry): void {
    const path = normalizePath(entry.path);
    if (path === undefined) throw new Error(`invalid ACL path '${entry.path}'`);
    const list = (this.acl.get(path) ?? []).filter((e) => !(e.type === entry.type && e.ugid === entry.ugid && e.roleid === entry.roleid));
    list.push({ ...entry, path });
    this.acl.set(path, list);
  }

  deleteAcl(entry: Omit<AclEntry, 'propagate'>): void {
    const path = normalizePath(entry.path);
    if (path === undefined) return;
    const list = (this.acl.get(path) ?? []).filter((e) => !(e.type === entry.type && e.ugid === entry.ugid && e.roleid === entry.roleid));
    if (list.length > 0) this.acl.set(path, list);
    else this.acl.delete(path);
  }

  /** Remove every ACL entry naming a subject (user, group or token deleted). */
  dropAclSubject(type: AclSubjectType, ugid: string): void {
    for (const [path, list] of this.acl) {
      const kept = list.filter((e) => !(e.type === type && e.ugid === ugid));
      if (kept.length > 0) this.acl.set(path, kept);
      else this.acl.delete(path);
    }
  }

  aclEntries(): AclEntry[] {
    return [...this.acl.values()].flat();
  }

  /**
   * Effective privileges of a principal (`user@realm` or `user@realm!token`) on a path.
   * root@pam has every privilege; a non-separated token has its owner's; a separated token has
   * the intersection of its owner's and its own.
   */
  privileges(authId: string, path: string): Set<string> {
    if (authId === 'root@pam') return new Set(ALL_PRIVILEGES);
    const token = FULL_TOKEN_RE.exec(authId);
    if (token) {
      const owner = token[1] as string;
      const info = this.users.get(owner)?.tokens.get(token[2] as string);
      if (!info) return new Set();
      const ownerPrivs = this.privileges(owner, path);
      if (!info.privsep) return ownerPrivs;
      const own = this.principalPrivileges('token', authId, path);
      return new Set([...own].filter((p) => ownerPrivs.has(p)));
    }
    return this.principalPrivileges('user', authId, path);
  }

  hasPriv(authId: string, path: string, priv: string): boolean {
    return this.privileges(authId, path).has(priv);
  }

  private principalPrivileges(type: 'user' | 'token', ugid: string, path: string): Set<string> {
    // Nobody holds privileges on what is not an ACL path.
    const normalized = normalizePath(path);
    if (normalized === undefined) return new Set();
    const roles = this.rolesAt(type, ugid, normalized);
    if (!roles.has('NoAccess')) {
      for (const pool of this.poolsFor(normalized)) for (const r of this.rolesAt(type, ugid, `/pool/${pool}`)) roles.add(r);
    }
    if (roles.has('NoAccess')) return new Set();
    const privs = new Set<string>();
    for (const r of roles) for (const p of this.roles.get(r)?.privs ?? []) privs.add(p);
    return privs;
  }

  /** Roles in effect at a path: walk from `/` down; each level with matching entries replaces the inherited set. */
  private rolesAt(type: 'user' | 'token', ugid: string, path: string): Set<string> {
    const chain = pathLevels(path);
    const memberOf = type === 'user' ? (this.users.get(ugid)?.groups ?? new Set<string>()) : new Set<string>();
    let roles = new Set<string>();
    chain.forEach((level, i) => {
      const entries = this.acl.get(level);
      if (!entries) return;
      const final = i === chain.length - 1;
      const applies = (e: AclEntry) => final || e.propagate;
      const own = entries.filter((e) => e.type === type && e.ugid === ugid && applies(e));
      if (own.length > 0) {
        roles = new Set(own.map((e) => e.roleid));
        return;
      }
      const viaGroup = entries.filter((e) => e.type === 'group' && memberOf.has(e.ugid) && applies(e));
      if (viaGroup.length > 0) roles = new Set(viaGroup.map((e) => e.roleid));
    });
    return roles;
  }
}

export function newUser(userid: string, fields: Partial<Omit<User, 'userid' | 'groups' | 'tokens' | 'recoveryCodes'>> = {}): User {
  return { userid, enable: true, expire: 0, ...fields, groups: new Set(), tokens: new Map(), recoveryCodes: [] };
}
