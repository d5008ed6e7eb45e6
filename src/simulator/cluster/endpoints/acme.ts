/**
 * ACME for the nodes' certificates: accounts, DNS plugins, the directories and their terms.
 */
import type { SimEndpoint } from '../../contract.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import { digestOf, extrasOf, named } from './cluster-extras.js';
import { optStr, reqStr } from './params.js';
import { LIST, OBJ, opt, perm, str, TEXT } from './schema.js';

export function acmeEndpoints(state: ClusterState): SimEndpoint[] {
  const x = () => extrasOf(state);
  return [
    {
      method: 'GET',
      path: '/cluster/acme',
      description: 'ACME sections (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => ['account', 'challenge-schema', 'directories', 'meta', 'plugins', 'tos'].map((name) => ({ name })),
    },
    {
      method: 'GET',
      path: '/cluster/acme/account',
      description: 'Registered ACME accounts.',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      protected: true,
      handler: () => x().acmeAccounts.map((a) => ({ name: a.name })),
    },
    {
      method: 'GET',
      path: '/cluster/acme/account/{name}',
      description: 'One ACME account: directory, location, terms and the account data (no key).',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) },
      returns: OBJ,
      permissions: {},
      protected: true,
      handler: (ctx) => {
        const a = x().acmeAccounts.find((i) => i.name === reqStr(ctx, 'name'));
        if (!a) throw fail(`ACME account config file '${reqStr(ctx, 'name')}' does not exist.`);
        const { name: _n, ...rest } = a;
        return rest;
      },
    },
    {
      method: 'GET',
      path: '/cluster/acme/plugins',
      description: 'ACME challenge plugins (their API credentials are not shown).',
      parameters: { type: opt(str('Only plugins of this type.')) },
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Modify']) },
      protected: true,
      handler: (ctx) =>
        x()
          .acmePlugins.filter((p) => !optStr(ctx, 'type') || p.type === optStr(ctx, 'type'))
          .map((p) => ({ ...p, digest: digestOf(p) })),
    },
    {
      method: 'GET',
      path: '/cluster/acme/plugins/{id}',
      description: 'One ACME plugin (its API credentials are not shown).',
      parameters: { id: str('Identifier of the object.', { format: 'pve-configid' }) },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Modify']) },
      protected: true,
      handler: (ctx) => named(x().acmePlugins, ctx, 'plugin', 'ACME plugin'),
    },
    {
      method: 'GET',
      path: '/cluster/acme/tos',
      description: 'The terms of service URL of an ACME directory.',
      parameters: {},
      returns: TEXT,
      permissions: { user: 'all' },
      handler: () => 'https://letsencrypt.org/documents/LE-SA-v1.5-February-24-2025.pdf',
    },
    {
      method: 'GET',
      path: '/cluster/acme/meta',
      description: 'Metadata an ACME directory announces.',
      parameters: {},
      returns: OBJ,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      handler: () => ({ termsOfService: 'https://letsencrypt.org/documents/LE-SA-v1.5-February-24-2025.pdf', website: 'https://letsencrypt.org', caaIdentities: ['letsencrypt.org'] }),
    },
    {
      method: 'GET',
      path: '/cluster/acme/directories',
      description: 'Well-known ACME directories.',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => [
        { name: "Let's Encrypt V2", url: 'https://acme-v02.api.letsencrypt.org/directory' },
        { name: "Let's Encrypt V2 Staging", url: 'https://acme-staging-v02.api.letsencrypt.org/directory' },
      ],
    },
    {
      method: 'GET',
      path: '/cluster/acme/challenge-schema',
      description: 'DNS challenge plugin types and the settings each needs.',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => [
        {
          id: 'cf',
          name: 'Cloudflare Managed DNS',
          type: 'dns',
          schema: { fields: { CF_Token: { type: 'string', description: 'API token' }, CF_Account_ID: { type: 'string', description: 'Account ID' } } },
        },
        { id: 'acmedns', name: 'acme-dns', type: 'dns', schema: { fields: { ACMEDNS_BASE_URL: { type: 'string', description: 'Server URL' } } } },
      ],
    },
  ];
}
