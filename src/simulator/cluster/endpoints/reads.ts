/**
 * The read-only operations that complete the 9.1 API: each area module gives a description in
 * the project's words and a handler over the cluster state; read-specs.ts declares their
 * parameters, return types and permission checks.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint } from '../../contract.js';
import type { ClusterState } from '../state.js';
import { cephReads } from './ceph-reads.js';
import { agentExecEndpoint, agentReads, clusterReads } from './cluster-reads.js';
import { nodeReads, type ReadHandlers } from './node-reads.js';
import { READ_SPECS } from './read-specs.js';
import { int, opt, str } from './schema.js';

/** Optional parameters the handlers read, per operation. */
const OPTIONAL: Record<string, Record<string, SchemaNode>> = {
  '/nodes/{node}/syslog': {
    start: opt(int('First line to return.')),
    limit: opt(int('Lines to return at most.')),
    since: opt(str('Only lines since this time (YYYY-MM-DD HH:MM:SS).')),
    until: opt(str('Only lines until this time (YYYY-MM-DD HH:MM:SS).')),
    service: opt(str('Only lines of this service.')),
  },
  '/cluster/log': { max: opt(int('Entries to return at most.')) },
  '/cluster/jobs/schedule-analyze': { iterations: opt(int('How many times to list.')), starttime: opt(int('Start from this epoch second.')) },
  '/cluster/acme/plugins': { type: opt(str('Only plugins of this type.')) },
  '/nodes/{node}/ceph/log': { start: opt(int('First line to return.')), limit: opt(int('Lines to return at most.')) },
  '/nodes/{node}/journal': { lastentries: opt(int('Only the last this many entries.')) },
  '/nodes/{node}/disks/list': { type: opt(str('Only disks of this kind, or unused ones.')) },
  '/nodes/{node}/vzdump/defaults': { storage: opt(str('Storage whose retention to include.', { format: 'pve-storage-id' })) },
};

export function readEndpoints(state: ClusterState): SimEndpoint[] {
  const handlers: ReadHandlers = { ...nodeReads(state), ...clusterReads(state), ...agentReads(state), ...cephReads(state) };
  const reads = Object.entries(handlers).map(([path, [description, handler]]): SimEndpoint => {
    const spec = READ_SPECS[path];
    if (!spec) throw new Error(`no read spec for ${path}`);
    return { method: 'GET', path, description, ...spec, parameters: { ...spec.params, ...(OPTIONAL[path] ?? {}) }, handler };
  });
  return [...reads, agentExecEndpoint(state)];
}
