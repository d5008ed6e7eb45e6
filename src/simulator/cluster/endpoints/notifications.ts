/**
 * Where the cluster reports to: metric servers and the metrics export, notification endpoints
 * (sendmail, Gotify, SMTP, webhooks), targets and matchers. Secrets are never part of an answer.
 */
import type { SimEndpoint } from '../../contract.js';
import type { ClusterState } from '../state.js';
import type { Guest } from '../types.js';
import { extrasOf, named } from './cluster-extras.js';
import { LIST, OBJ, perm, str } from './schema.js';

type Json = Record<string, unknown>;

export function notificationEndpoints(state: ClusterState): SimEndpoint[] {
  const x = () => extrasOf(state);
  const nodes = () => [...state.nodes.values()];
  return [
    {
      method: 'GET',
      path: '/cluster/metrics',
      description: 'Metric export sections (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => [{ name: 'export' }, { name: 'server' }],
    },
    {
      method: 'GET',
      path: '/cluster/metrics/server',
      description: 'External metric servers the nodes send their figures to.',
      parameters: {},
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => x().metrics.map((m) => ({ id: m.id, type: m.type, server: m.server, port: m.port, disable: m.disable })),
    },
    {
      method: 'GET',
      path: '/cluster/metrics/server/{id}',
      description: 'One metric server (its token is not shown).',
      parameters: { id: str('Identifier of the object.', { format: 'pve-configid' }) },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: (ctx) => named(x().metrics, ctx, 'id', 'metric server'),
    },
    {
      method: 'GET',
      path: '/cluster/metrics/export',
      description: 'Current figures of every node, guest and storage in one list, as a metric server would receive them.',
      parameters: {},
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => {
        const snap = state.runtimeSnapshot();
        const ts = state.nowSec();
        const data: Json[] = [];
        for (const [name, rt] of snap.nodes) {
          data.push(
            { id: `node/${name}`, metric: 'cpu_current', timestamp: ts, type: 'gauge', value: rt.cpu },
            { id: `node/${name}`, metric: 'mem_used', timestamp: ts, type: 'gauge', value: rt.mem },
          );
        }
        for (const [vmid, rt] of snap.guests) {
          const g = state.guests.get(vmid) as Guest;
          const id = `${g.type}/${vmid}`;
          data.push(
            { id, metric: 'cpu_current', timestamp: ts, type: 'gauge', value: rt.cpu },
            { id, metric: 'mem', timestamp: ts, type: 'gauge', value: rt.mem },
            { id, metric: 'netin', timestamp: ts, type: 'derive', value: rt.netin },
          );
        }
        return { data };
      },
    },
    {
      method: 'GET',
      path: '/cluster/notifications',
      description: 'Notification sections (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => ['endpoints', 'matcher-field-values', 'matcher-fields', 'matchers', 'targets'].map((name) => ({ name })),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/endpoints',
      description: 'Notification endpoint types (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => ['gotify', 'sendmail', 'smtp', 'webhook'].map((name) => ({ name })),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/endpoints/sendmail',
      description: 'Sendmail endpoints: mail through the local mail system.',
      parameters: {},
      returns: LIST,
      permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] },
      protected: true,
      handler: () => x().sendmail.map((e) => ({ ...e })),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/endpoints/sendmail/{name}',
      description: 'One sendmail endpoint.',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) },
      returns: OBJ,
      permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] },
      protected: true,
      handler: (ctx) => named(x().sendmail, ctx, 'name', 'endpoint'),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/endpoints/gotify',
      description: 'Gotify endpoints (their tokens are not shown).',
      parameters: {},
      returns: LIST,
      permissions: { check: perm('/mapping/notifications', ['Mapping.Audit']) },
      protected: true,
      handler: () => x().gotify.map((e) => ({ ...e })),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/endpoints/gotify/{name}',
      description: 'One Gotify endpoint (its token is not shown).',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) },
      returns: OBJ,
      permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] },
      protected: true,
      handler: (ctx) => named(x().gotify, ctx, 'name', 'endpoint'),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/endpoints/smtp',
      description: 'SMTP endpoints (their passwords are not shown).',
      parameters: {},
      returns: LIST,
      permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] },
      protected: true,
      handler: () => x().smtp.map((e) => ({ ...e })),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/endpoints/smtp/{name}',
      description: 'One SMTP endpoint (its password is not shown).',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) },
      returns: OBJ,
      permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] },
      protected: true,
      handler: (ctx) => named(x().smtp, ctx, 'name', 'endpoint'),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/endpoints/webhook',
      description: 'Webhook endpoints (secret values are not shown, only their names).',
      parameters: {},
      returns: LIST,
      permissions: { check: perm('/mapping/notifications', ['Mapping.Audit']) },
      protected: true,
      handler: () => x().webhook.map((e) => ({ ...e })),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/endpoints/webhook/{name}',
      description: 'One webhook endpoint (secret values are not shown).',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) },
      returns: OBJ,
      permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] },
      protected: true,
      handler: (ctx) => named(x().webhook, ctx, 'name', 'endpoint'),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/targets',
      description: 'Every notification target of any type.',
      parameters: {},
      returns: LIST,
      permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit']), perm('/mapping/notifications', ['Mapping.Use'])] },
      protected: true,
      handler: () => [
        ...x().sendmail.map((e) => ({ name: e.name, type: 'sendmail', origin: e.origin, ...(e.comment ? { comment: e.comment } : {}) })),
        ...x().gotify.map((e) => ({ name: e.name, type: 'gotify', origin: e.origin, ...(e.comment ? { comment: e.comment } : {}) })),
        ...x().smtp.map((e) => ({ name: e.name, type: 'smtp', origin: e.origin, ...(e.comment ? { comment: e.comment } : {}) })),
        ...x().webhook.map((e) => ({ name: e.name, type: 'webhook', origin: e.origin })),
      ],
    },
    {
      method: 'GET',
      path: '/cluster/notifications/matchers',
      description: 'Matchers: which notifications go to which targets.',
      parameters: {},
      returns: LIST,
      permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit']), perm('/mapping/notifications', ['Mapping.Use'])] },
      protected: true,
      handler: () => x().matchers.map((m) => ({ ...m })),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/matchers/{name}',
      description: 'One notification matcher.',
      parameters: { name: str('Name of the object.', { format: 'pve-configid' }) },
      returns: OBJ,
      permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] },
      protected: true,
      handler: (ctx) => named(x().matchers, ctx, 'name', 'matcher'),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/matcher-fields',
      description: 'Metadata fields notifications carry that matchers can test.',
      parameters: {},
      returns: LIST,
      permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] },
      handler: () => ['hostname', 'job-id', 'type'].map((name) => ({ name })),
    },
    {
      method: 'GET',
      path: '/cluster/notifications/matcher-field-values',
      description: 'Known values of the matcher fields (nodes, backup jobs, notification types).',
      parameters: {},
      returns: LIST,
      permissions: { check: ['or', perm('/mapping/notifications', ['Mapping.Modify']), perm('/mapping/notifications', ['Mapping.Audit'])] },
      protected: true,
      handler: () => [
        ...nodes().map((n) => ({ field: 'hostname', value: n.name })),
        ...[...state.backupJobs.values()].map((j) => ({ field: 'job-id', value: j.id, ...(j.comment ? { comment: String(j.comment) } : {}) })),
        ...['package-updates', 'fencing', 'replication', 'vzdump', 'system-mail'].map((value) => ({ field: 'type', value })),
      ],
    },
  ];
}
