/**
 * Blast radius of access changes: deleting a pool, a user or an API token, and ACL changes. What
 * goes with each is what grants or names it: ACL entries, tokens, backup jobs selecting a pool.
 */
import { type BlastItem, type BlastRadius, type BlastReads, plural } from './blast-radius.js';
import { guestDirectory, guestLabel } from './blast-radius-guests.js';
import { listOf } from '../pve/list-value.js';

/** Privileges that let their holder change who may do what, or the hosts themselves. */
const POWERFUL = ['Permissions.Modify', 'User.Modify', 'Sys.Modify', 'Realm.Allocate', 'Sys.Console'];

async function aclEntries(r: BlastReads): Promise<Array<Record<string, unknown>>> {
  return (await r.list('/access/acl')) ?? [];
}

/** `DELETE /pools/{poolid}`: members, ACL entries on the pool, backup jobs selecting it. */
export async function poolDeleteRadius(r: BlastReads, poolid: string): Promise<BlastRadius> {
  const pool = await r.object(`/pools/${encodeURIComponent(poolid)}`);
  const members = Array.isArray(pool?.members) ? (pool.members as Array<Record<string, unknown>>) : [];
  const items: BlastItem[] = [];
  if (members.length > 0)
    items.push({
      kind: 'guest',
      what: plural(members.length, 'member'),
      effect: `still in it (${members
        .slice(0, 10)
        .map((m) => String(m.id ?? m.vmid ?? m.storage))
        .join(', ')}): PVE refuses to delete a pool that is not empty`,
      severe: true,
    });
  for (const e of await aclEntries(r)) {
    if (e.path === `/pool/${poolid}`)
      items.push({ kind: 'acl', what: `${String(e.type)} ${String(e.ugid)} role ${String(e.roleid)}`, effect: `granted on /pool/${poolid}: the grant goes with the pool` });
  }
  for (const j of (await r.list('/cluster/backup')) ?? []) {
    if (j.pool === poolid) items.push({ kind: 'job', what: `backup job '${String(j.id)}'`, effect: 'selects its guests by this pool: it backs up nothing afterwards', severe: true });
  }
  return r.finish(
    'pool-delete',
    `pool '${poolid}': ${plural(members.length, 'member')}, ${plural(items.filter((i) => i.kind === 'acl').length, 'ACL entry', 'ACL entries')}, ${plural(items.filter((i) => i.kind === 'job').length, 'backup job')} depend on it`,
    items,
  );
}

/** `DELETE /access/users/{userid}`: its tokens and every ACL entry naming the user or one of its tokens. */
export async function userDeleteRadius(r: BlastReads, userid: string, own: readonly string[]): Promise<BlastRadius> {
  const items: BlastItem[] = [];
  // Checked before any read: a failed read must not hide that this server cuts itself off.
  const mine = own.filter((id) => id === userid || id.startsWith(`${userid}!`));
  for (const id of mine) items.push(ownLoss(id, id === userid ? 'this server logs in as this user' : 'this server authenticates with this token of the user'));
  const tokens = (await r.list(`/access/users/${encodeURIComponent(userid)}/token`)) ?? [];
  for (const t of tokens)
    if (!mine.includes(`${userid}!${String(t.tokenid)}`))
      items.push({ kind: 'token', what: `API token ${userid}!${String(t.tokenid)}`, effect: 'deleted with the user: whatever authenticates with it stops working', severe: true });
  const acl = (await aclEntries(r)).filter((e) => e.ugid === userid || (typeof e.ugid === 'string' && e.ugid.startsWith(`${userid}!`)));
  for (const e of acl) items.push({ kind: 'acl', what: `${String(e.ugid)} role ${String(e.roleid)} on ${String(e.path)}`, effect: 'removed' });
  return r.finish(
    'user-delete',
    `${mine.length > 0 ? 'THIS SERVER LOSES ACCESS to the cluster; ' : ''}user ${userid}: ${plural(tokens.length, 'API token')} and ${plural(acl.length, 'ACL entry', 'ACL entries')} go with it`,
    items,
  );
}

/** `DELETE /access/users/{userid}/token/{tokenid}`: the ACL entries of the token. */
export async function tokenDeleteRadius(r: BlastReads, userid: string, tokenid: string, own: readonly string[]): Promise<BlastRadius> {
  const id = `${userid}!${tokenid}`;
  const mine = own.includes(id);
  const items: BlastItem[] = mine ? [ownLoss(id, 'this server authenticates with this token')] : [];
  const token = await r.object(`/access/users/${encodeURIComponent(userid)}/token/${encodeURIComponent(tokenid)}`);
  if (token && !mine)
    items.push({ kind: 'token', what: `API token ${id}${token.comment ? ` (${String(token.comment)})` : ''}`, effect: 'deleted: whatever authenticates with it stops working at once', severe: true });
  const acl = (await aclEntries(r)).filter((e) => e.ugid === id);
  for (const e of acl) items.push({ kind: 'acl', what: `${id} role ${String(e.roleid)} on ${String(e.path)}`, effect: 'removed' });
  return r.finish('token-delete', `${mine ? 'THIS SERVER LOSES ACCESS to the cluster; ' : ''}API token ${id} and ${plural(acl.length, 'ACL entry', 'ACL entries')} of it go`, items);
}

/** The credential this server itself uses: deleting it cuts the server off the cluster at once. */
function ownLoss(id: string, how: string): BlastItem {
  return {
    kind: id.includes('!') ? 'token' : 'user',
    what: `${id} (this server's own credential)`,
    effect: `deleted: ${how}, so this server loses access to the cluster — every later call fails and nothing here can undo it`,
    severe: true,
  };
}

/**
 * `PUT /access/acl`: who gains or loses which role on what the path covers (one guest, a pool's
 * members, a node, a storage, everything under `/`), and which of those privileges are powerful.
 */
export async function aclRadius(r: BlastReads, params: Record<string, unknown>, own: readonly string[] = []): Promise<BlastRadius> {
  const path = String(params.path ?? '/');
  const revoke = params.delete === 1 || params.delete === true || params.delete === '1';
  const propagate = params.propagate === undefined || Number(params.propagate) === 1;
  const subjects = [...listOf(params.users).map((u) => `user ${u}`), ...listOf(params.groups).map((g) => `group ${g}`), ...listOf(params.tokens).map((t) => `token ${t}`)];
  const roles = listOf(params.roles);
  const items: BlastItem[] = [];
  const reach = await pathReach(r, path, propagate);
  const current = (await aclEntries(r)).filter((e) => e.path === path);
  for (const role of roles) {
    const def = await r.object(`/access/roles/${encodeURIComponent(role)}`);
    const privs = def ? Object.keys(def).filter((k) => Number(def[k]) === 1) : [];
    const powerful = privs.filter((p) => POWERFUL.includes(p));
    for (const s of subjects) {
      const had = current.some((e) => `${String(e.type)} ${String(e.ugid)}` === s && e.roleid === role);
      const effect = revoke
        ? had
          ? `loses role ${role} on ${reach}`
          : `has no role ${role} on ${path}: nothing to revoke`
        : had
          ? `already has role ${role} on ${path}`
          : `gains role ${role} (${privs.length > 0 ? `${plural(privs.length, 'privilege')}${powerful.length > 0 ? `, including ${powerful.join(', ')}` : ''}` : 'privileges not read'}) on ${reach}`;
      // Revoking a role from this server's own credential (or, for a token, from its user) takes that access from this server.
      const ownSubject = revoke && had && own.some((id) => s === `token ${id}` || s === `user ${id.split('!')[0]}`);
      items.push({
        kind: 'acl',
        what: ownSubject ? `${s} (this server's own credential)` : s,
        effect: ownSubject ? `${effect}: this server loses that access` : effect,
        severe: ownSubject || (!revoke && !had && (powerful.length > 0 || (path === '/' && propagate))),
      });
    }
  }
  return r.finish('acl-change', `${revoke ? 'revokes' : 'grants'} ${plural(roles.length, 'role')} for ${plural(subjects.length, 'subject')} on ${reach}`, items);
}

async function pathReach(r: BlastReads, path: string, propagate: boolean): Promise<string> {
  const below = propagate ? ' and everything below it' : ' only';
  if (path === '/') return propagate ? '/ — the whole cluster' : '/ only';
  const vm = /^\/vms\/(\d+)$/.exec(path);
  if (vm) {
    const g = (await guestDirectory(r))?.find((x) => x.vmid === Number(vm[1]));
    return `${path} (${g ? guestLabel(g) : 'no such guest now'})`;
  }
  const pool = /^\/pool\/([^/]+)$/.exec(path);
  if (pool) {
    const p = await r.object(`/pools/${encodeURIComponent(pool[1] ?? '')}`);
    const n = Array.isArray(p?.members) ? p.members.length : undefined;
    return `${path} (${n === undefined ? 'members not read' : `${plural(n, 'member')} now, and every guest added later`})`;
  }
  return `${path}${below}`;
}
