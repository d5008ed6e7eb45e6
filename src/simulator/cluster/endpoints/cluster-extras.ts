/**
 * The cluster-wide configuration no endpoint changes (metric servers, notification endpoints and
 * matchers, resource mappings, ACME accounts and plugins), built once per cluster from its nodes,
 * and how one entry of it is read by name.
 */
import { createHash } from 'node:crypto';
import type { SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import { reqStr } from './params.js';

type Json = Record<string, unknown>;

export const digestOf = (v: unknown): string => createHash('sha1').update(JSON.stringify(v)).digest('hex');

export interface Extras {
  metrics: Json[];
  sendmail: Json[];
  gotify: Json[];
  smtp: Json[];
  webhook: Json[];
  matchers: Json[];
  pci: Json[];
  usb: Json[];
  dir: Json[];
  acmeAccounts: Json[];
  acmePlugins: Json[];
}

export function extrasOf(state: ClusterState): Extras {
  return state.area('cluster-extras', () => {
    const nodes = [...state.nodes.values()];
    const gpuNodes = nodes.filter((n) => n.nodeid % 3 === 1 || nodes.length === 1);
    return {
      metrics: [{ id: 'influx', type: 'influxdb', server: '10.0.0.60', port: 8086, influxdbproto: 'https', organization: 'ops', bucket: 'proxmox', disable: 0 }],
      sendmail: [{ name: 'mail-to-root', 'mailto-user': ['root@pam'], comment: "Send mails to root@pam's email address", origin: 'builtin' }],
      gotify: [{ name: 'gotify-ops', server: 'https://gotify.example.org', comment: 'Operations phone alerts', origin: 'user-created' }],
      smtp: [
        {
          name: 'smtp-relay',
          server: 'mail.example.org',
          port: 587,
          mode: 'starttls',
          'from-address': 'pve@example.org',
          mailto: ['ops@example.org'],
          username: 'pve',
          comment: 'Company relay',
          origin: 'user-created',
        },
      ],
      webhook: [
        {
          name: 'chat',
          method: 'post',
          url: 'https://chat.example.org/hooks/{{ secrets.channel }}',
          header: ['name=Content-Type,value=YXBwbGljYXRpb24vanNvbg=='],
          secret: ['name=channel'],
          body: 'eyJ0ZXh0IjogInt7IHRpdGxlIH19In0=',
          origin: 'user-created',
        },
      ],
      matchers: [
        { name: 'default-matcher', target: ['mail-to-root'], comment: 'Route all notifications to mail-to-root', origin: 'builtin', mode: 'all' },
        { name: 'backup-failures', 'match-field': ['exact:type=vzdump'], 'match-severity': ['error'], target: ['gotify-ops', 'chat'], mode: 'all', origin: 'user-created' },
      ],
      pci: [{ id: 'gpu', description: 'vGPU for the desktop guests', map: gpuNodes.map((n) => `node=${n.name},path=0000:ca:00.0,id=10de:25b6,iommugroup=42`), mdev: 1 }],
      usb: [{ id: 'license-dongle', description: 'Licence key for the build servers', map: nodes.slice(0, 1).map((n) => `node=${n.name},id=0781:5583`) }],
      dir: [{ id: 'shared-data', description: 'Shared data for virtiofs', map: nodes.map((n) => `node=${n.name},path=/mnt/pve/nas/shared`) }],
      acmeAccounts: [
        {
          name: 'default',
          directory: 'https://acme-v02.api.letsencrypt.org/directory',
          location: 'https://acme-v02.api.letsencrypt.org/acme/acct/123456789',
          tos: 'https://letsencrypt.org/documents/LE-SA-v1.5-February-24-2025.pdf',
          account: { status: 'valid', contact: ['mailto:ops@example.org'], createdAt: '2025-03-01T10:00:00Z' },
        },
      ],
      acmePlugins: [
        { plugin: 'standalone', type: 'standalone' },
        { plugin: 'cloudflare', type: 'dns', api: 'cf', 'validation-delay': 30 },
      ],
    };
  });
}

/** One entry by its ID parameter, without the `origin` field, with the digest to change it safely. */
export function named(items: Json[], ctx: SimRequestContext, key = 'name', what = 'object'): Json {
  const id = reqStr(ctx, key === 'plugin' ? 'id' : key === 'id' ? 'id' : 'name');
  const found = items.find((i) => i[key] === id);
  if (!found) throw fail(`${what} '${id}' does not exist`);
  const { origin: _o, ...rest } = found;
  return { ...rest, digest: digestOf(found) };
}
