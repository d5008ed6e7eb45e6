/**
 * Firewall IP sets: named lists of addresses and networks that firewall rules match on (an
 * operator's block list, the admin networks), cluster-wide and per guest. PVE mounts a set's
 * entries with an empty fragment delimiter, so an entry's path segment is the whole CIDR, slash
 * included (`/cluster/firewall/ipset/blocked/10.0.0.0/24`). Entries keep PVE's order: newest first.
 */
import { createHash } from 'node:crypto';
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint, SimPermissions, SimRequestContext } from '../../contract.js';
import { FIREWALL_ALIAS_RE } from '../../formats.js';
import { assertUnmodified, fail, paramError } from '../errors.js';
import { firewallOf, guestFirewall } from '../firewall.js';
import type { ClusterState } from '../state.js';
import type { GuestType, IpSet, IpSetEntry } from '../types.js';
import { changeOperations } from './change.js';
import { flag, optStr, reqInt, reqStr } from './params.js';
import { arr, bool, obj, opt, P, perm, str } from './schema.js';

const NAME_RULES = { pattern: '[A-Za-z][A-Za-z0-9\\-\\_]+', minLength: 2, maxLength: 64 } as const;
const NAME = str('Name of the IP set.', NAME_RULES);
const CIDR = str('An address, a network in CIDR notation, or the name of a firewall alias.', { format: 'IPorCIDRorAlias' });
const DIGEST = opt(str('Refuse the change unless the current list has this digest (guards against concurrent edits).', { maxLength: 64 }));
const ENTRY_SETTINGS: Record<string, SchemaNode> = {
  comment: opt(str('Free-form note.')),
  nomatch: opt(bool('Exclude this entry from the set (matches everything else the set holds).')),
};
const ENTRY = obj({ cidr: str('The entry.'), comment: opt(str('Note.')), nomatch: opt(bool('Excluded entry.')), digest: str('Digest of the whole list.', { maxLength: 64 }) });

/** PVE hands every item of a listing the digest of the whole listing. */
function withDigest<T extends object>(items: T[]): { items: Array<T & { digest: string }>; digest: string } {
  const digest = createHash('sha1').update(JSON.stringify(items)).digest('hex');
  return { items: items.map((item) => ({ ...item, digest })), digest };
}

function entryView(e: IpSetEntry): Record<string, unknown> {
  return { cidr: e.cidr, ...(e.nomatch ? { nomatch: 1 } : {}), ...(e.comment !== undefined ? { comment: e.comment } : {}) };
}

/** Where a family of IP set operations lives and who may use it. */
interface IpsetScope {
  /** The path of the set list. */
  base: string;
  /** Words for the sets in descriptions: "the cluster-wide", "the guest's". */
  whose: string;
  /** Path parameters of the scope itself (`node`, `vmid`). */
  context: Record<string, SchemaNode>;
  audit: SimPermissions;
  modify: SimPermissions;
  /** The scope's sets. */
  sets(ctx: SimRequestContext): Map<string, IpSet>;
  /** Alias names entries may refer to (`name`, `dc/name`, `guest/name`). */
  aliases(ctx: SimRequestContext): Set<string>;
}

function clusterAliases(state: ClusterState): Set<string> {
  return new Set([...firewallOf(state).cluster.aliases.keys()].flatMap((n) => [n, `dc/${n}`]));
}

export function clusterIpsetEndpoints(state: ClusterState): SimEndpoint[] {
  return ipsetEndpoints({
    base: '/cluster/firewall/ipset',
    whose: 'the cluster-wide',
    context: {},
    audit: { check: perm('/', ['Sys.Audit']) },
    modify: { check: perm('/', ['Sys.Modify']) },
    sets: () => state.ipsets,
    aliases: () => clusterAliases(state),
  });
}

export function guestIpsetEndpoints(state: ClusterState, type: GuestType): SimEndpoint[] {
  return ipsetEndpoints({
    base: `/nodes/{node}/${type}/{vmid}/firewall/ipset`,
    whose: "the guest's",
    context: { node: P.node, vmid: P.vmid },
    audit: { check: perm('/vms/{vmid}', ['VM.Audit']) },
    modify: { check: perm('/vms/{vmid}', ['VM.Config.Network']) },
    // PVE keeps a guest's firewall in /etc/pve/firewall/<vmid>.fw and reads it without looking
    // for the guest: any VMID answers (an empty list when there is no file), on any node's path.
    sets: (ctx) => state.guestIpsets(reqInt(ctx, 'vmid')),
    aliases: (ctx) => {
      const known = clusterAliases(state);
      for (const n of guestFirewall(state, reqInt(ctx, 'vmid')).aliases.keys()) known.add(n).add(`guest/${n}`);
      return known;
    },
  });
}

function ipsetEndpoints(scope: IpsetScope): SimEndpoint[] {
  const { base, context } = scope;
  const ipset = (ctx: SimRequestContext): IpSet => {
    const name = reqStr(ctx, 'name');
    const set = scope.sets(ctx).get(name);
    if (!set) throw fail(`no such IPSet '${name}'`);
    return set;
  };
  const setList = (sets: Map<string, IpSet>) =>
    withDigest([...sets.values()].sort((a, b) => a.name.localeCompare(b.name)).map((s) => ({ name: s.name, ...(s.comment !== undefined ? { comment: s.comment } : {}) })));
  const entryList = (set: IpSet) => withDigest(set.entries.map(entryView));

  const audit = scope.audit;
  const change = changeOperations(scope.modify);

  return [
    {
      method: 'GET',
      path: base,
      description: `${scope.whose.charAt(0).toUpperCase()}${scope.whose.slice(1)} IP sets, by name.`,
      parameters: { ...context },
      returns: arr(obj({ name: NAME, comment: opt(str('Note.')), digest: str('Digest of the whole list.', { maxLength: 64 }) }), { links: [{ rel: 'child', href: '{name}' }] }),
      permissions: audit,
      handler: (ctx) => setList(scope.sets(ctx)).items,
    },
    change(
      'POST',
      base,
      `Create one of ${scope.whose} IP sets, or rename one (and change its comment) with rename.`,
      { ...context, name: NAME, comment: opt(str('Free-form note.')), digest: DIGEST, rename: opt(str('The existing set to rename to name (the same name only changes the comment).', NAME_RULES)) },
      (ctx) => {
        const sets = scope.sets(ctx);
        const name = reqStr(ctx, 'name');
        const comment = optStr(ctx, 'comment');
        const from = optStr(ctx, 'rename');
        if (from === undefined) {
          if (sets.has(name)) throw paramError('name', `IPSet '${name}' already exists`);
          sets.set(name, { name, ...(comment !== undefined ? { comment } : {}), entries: [] });
          return null;
        }
        assertUnmodified(setList(sets).digest, optStr(ctx, 'digest'));
        const existing = sets.get(from);
        if (!existing) throw paramError('name', `IPSet '${from}' does not exists`);
        if (name !== from && sets.has(name)) throw paramError('name', `IPSet '${name}' does already exist`);
        sets.delete(from);
        sets.set(name, { ...existing, name, ...(comment !== undefined ? { comment } : {}) });
        return null;
      },
    ),
    {
      method: 'GET',
      path: `${base}/{name}`,
      description: `The entries of one of ${scope.whose} IP sets, newest first.`,
      parameters: { ...context, name: NAME },
      returns: arr(ENTRY, { links: [{ rel: 'child', href: '{cidr}' }] }),
      permissions: audit,
      handler: (ctx) => entryList(ipset(ctx)).items,
    },
    change('POST', `${base}/{name}`, `Add an address, network or alias to one of ${scope.whose} IP sets.`, { ...context, name: NAME, cidr: CIDR, ...ENTRY_SETTINGS }, (ctx) => {
      const set = ipset(ctx);
      const cidr = reqStr(ctx, 'cidr');
      if (set.entries.some((e) => e.cidr === cidr)) throw paramError('cidr', `address '${cidr}' already exists`);
      if (/\/0+$/.test(cidr)) throw paramError('cidr', 'a zero prefix is not allowed in ipset entries');
      // An alias must exist in the datacenter (or, for a guest's set, in the guest's file).
      if (FIREWALL_ALIAS_RE.test(cidr) && !scope.aliases(ctx).has(cidr.toLowerCase())) throw fail(`no such alias '${cidr}'`);
      const comment = optStr(ctx, 'comment');
      set.entries.unshift({ cidr, ...(flag(ctx, 'nomatch') ? { nomatch: true } : {}), ...(comment ? { comment } : {}) });
      return null;
    }),
    change('DELETE', `${base}/{name}`, `Delete one of ${scope.whose} IP sets; one with entries only with force.`, { ...context, name: NAME, force: opt(bool('Delete the entries too.')) }, (ctx) => {
      const set = ipset(ctx);
      if (set.entries.length > 0 && !flag(ctx, 'force')) throw fail(`IPSet '${set.name}' is not empty`);
      scope.sets(ctx).delete(set.name);
      return null;
    }),
    {
      method: 'GET',
      path: `${base}/{name}/{cidr}`,
      description: `One entry of one of ${scope.whose} IP sets.`,
      parameters: { ...context, name: NAME, cidr: CIDR },
      returns: ENTRY,
      permissions: audit,
      protected: true,
      handler: (ctx) => {
        const cidr = reqStr(ctx, 'cidr');
        const found = entryList(ipset(ctx)).items.find((e) => e.cidr === cidr);
        if (!found) throw paramError('cidr', 'no such IP/Network');
        return found;
      },
    },
    change(
      'PUT',
      `${base}/{name}/{cidr}`,
      'Change the comment and exclusion of an IP set entry (both are replaced).',
      { ...context, name: NAME, cidr: CIDR, ...ENTRY_SETTINGS, digest: DIGEST },
      (ctx) => {
        const set = ipset(ctx);
        assertUnmodified(entryList(set).digest, optStr(ctx, 'digest'));
        const cidr = reqStr(ctx, 'cidr');
        const index = set.entries.findIndex((e) => e.cidr === cidr);
        if (index < 0) throw paramError('cidr', 'no such IP/Network');
        const comment = optStr(ctx, 'comment');
        set.entries[index] = { cidr, ...(flag(ctx, 'nomatch') ? { nomatch: true } : {}), ...(comment !== undefined ? { comment } : {}) };
        return null;
      },
    ),
    change('DELETE', `${base}/{name}/{cidr}`, 'Remove an entry from an IP set (nothing happens when it is not there).', { ...context, name: NAME, cidr: CIDR, digest: DIGEST }, (ctx) => {
      const set = ipset(ctx);
      assertUnmodified(entryList(set).digest, optStr(ctx, 'digest'));
      const cidr = reqStr(ctx, 'cidr');
      set.entries = set.entries.filter((e) => e.cidr !== cidr);
      return null;
    }),
  ];
}
