/**
 * The datacenter's security groups: named rule sets that guests and nodes include with a group
 * rule; created, renamed and removed here, their rules edited with the firewall rule endpoints.
 */
import type { SimEndpoint } from '../../contract.js';
import { assertUnmodified, fail } from '../errors.js';
import { firewallOf, type FwGroup, groupsDigest } from '../firewall.js';
import type { ClusterState } from '../state.js';
import { changeOperations } from './change.js';
import { DIGEST, firewallGroup, NAME_RULES } from './firewall-shared.js';
import { optStr, reqStr } from './params.js';
import { arr, obj, opt, perm, str } from './schema.js';

export function firewallGroupEndpoints(state: ClusterState): SimEndpoint[] {
  const fw = () => firewallOf(state);
  const group = (name: string): FwGroup => firewallGroup(state, name);
  const change = changeOperations({ check: perm('/', ['Sys.Modify']) });
  const GROUP = str('Security group name.', { ...NAME_RULES, maxLength: 18 });
  return [
    {
      method: 'GET',
      path: '/cluster/firewall/groups',
      description: 'Security groups: named rule sets guests and nodes include with a group rule.',
      parameters: {},
      returns: arr(obj({ group: GROUP, comment: opt(str('Note.')), digest: str('Digest of the groups file.', { maxLength: 64 }) }), { links: [{ rel: 'child', href: '{group}' }] }),
      permissions: { user: 'all', description: 'Sys.Audit on / to see the groups.' },
      handler: (ctx) => {
        if (!ctx.hasPriv('/', 'Sys.Audit')) return [];
        const digest = groupsDigest(fw());
        return [...fw().groups.values()].sort((a, b) => a.group.localeCompare(b.group)).map((g) => ({ group: g.group, ...(g.comment ? { comment: g.comment } : {}), digest }));
      },
    },
    change(
      'POST',
      '/cluster/firewall/groups',
      'Create a security group, or rename one with rename.',
      { group: GROUP, comment: opt(str('Free-form note.')), rename: opt(str('The existing group to rename to group.', { ...NAME_RULES, maxLength: 18 })), digest: DIGEST },
      (ctx) => {
        const groups = fw().groups;
        assertUnmodified(groupsDigest(fw()), optStr(ctx, 'digest'));
        const name = reqStr(ctx, 'group');
        const from = optStr(ctx, 'rename');
        const comment = optStr(ctx, 'comment');
        if (from !== undefined) {
          const g = groups.get(from);
          if (!g) throw fail(`Security group '${from}' does not exist`);
          if (from !== name && groups.has(name)) throw fail(`Security group '${name}' already exists`);
          groups.delete(from);
          groups.set(name, { ...g, group: name, ...(comment !== undefined ? { comment } : {}) });
          return null;
        }
        if (groups.has(name)) throw fail(`Security group '${name}' already exists`);
        groups.set(name, { group: name, ...(comment ? { comment } : {}), rules: [] });
        return null;
      },
    ),
    change('DELETE', '/cluster/firewall/groups/{group}', 'Delete an empty security group.', { group: GROUP }, (ctx) => {
      const name = reqStr(ctx, 'group');
      const g = group(name);
      if (g.rules.length > 0) throw fail(`security group '${name}' is not empty`);
      fw().groups.delete(name);
      return null;
    }),
  ];
}
