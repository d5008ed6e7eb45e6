/**
 * Cluster-wide resource mappings: PCI and USB devices and directories, each mapped per node.
 */
import type { SimEndpoint } from '../../contract.js';
import type { ClusterState } from '../state.js';
import { extrasOf, named } from './cluster-extras.js';
import { LIST, OBJ, perm, str } from './schema.js';

export function mappingEndpoints(state: ClusterState): SimEndpoint[] {
  const x = () => extrasOf(state);
  return [
    {
      method: 'GET',
      path: '/cluster/mapping',
      description: 'Resource mapping kinds (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => ['dir', 'pci', 'usb'].map((name) => ({ name })),
    },
    {
      method: 'GET',
      path: '/cluster/mapping/pci',
      description: 'PCI mappings: one name for the same device on several nodes.',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => x().pci.map((m) => ({ id: m.id, description: m.description, map: m.map })),
    },
    {
      method: 'GET',
      path: '/cluster/mapping/pci/{id}',
      description: 'One PCI mapping.',
      parameters: { id: str('Identifier of the object.', { format: 'pve-configid' }) },
      returns: OBJ,
      permissions: { check: ['or', perm('/mapping/pci/{id}', ['Mapping.Use']), perm('/mapping/pci/{id}', ['Mapping.Modify']), perm('/mapping/pci/{id}', ['Mapping.Audit'])] },
      protected: true,
      handler: (ctx) => named(x().pci, ctx, 'id', 'mapping'),
    },
    {
      method: 'GET',
      path: '/cluster/mapping/usb',
      description: 'USB mappings: one name for the same device on several nodes.',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => x().usb.map((m) => ({ id: m.id, description: m.description, map: m.map, error: '' })),
    },
    {
      method: 'GET',
      path: '/cluster/mapping/usb/{id}',
      description: 'One USB mapping.',
      parameters: { id: str('Identifier of the object.', { format: 'pve-configid' }) },
      returns: OBJ,
      permissions: { check: ['or', perm('/mapping/usb/{id}', ['Mapping.Audit']), perm('/mapping/usb/{id}', ['Mapping.Use']), perm('/mapping/usb/{id}', ['Mapping.Modify'])] },
      protected: true,
      handler: (ctx) => named(x().usb, ctx, 'id', 'mapping'),
    },
    {
      method: 'GET',
      path: '/cluster/mapping/dir',
      description: 'Directory mappings for virtiofs shares.',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => x().dir.map((m) => ({ id: m.id, description: m.description, map: m.map })),
    },
    {
      method: 'GET',
      path: '/cluster/mapping/dir/{id}',
      description: 'One directory mapping.',
      parameters: { id: str('Identifier of the object.', { format: 'pve-configid' }) },
      returns: OBJ,
      permissions: { check: ['or', perm('/mapping/dir/{id}', ['Mapping.Use']), perm('/mapping/dir/{id}', ['Mapping.Modify']), perm('/mapping/dir/{id}', ['Mapping.Audit'])] },
      protected: true,
      handler: (ctx) => named(x().dir, ctx, 'id', 'mapping'),
    },
  ];
}
