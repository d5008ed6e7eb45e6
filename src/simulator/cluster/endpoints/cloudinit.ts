/**
 * Cloud-init of a VM: the generated files as the guest will see them (`cloudinit/dump`), the
 * options changed since the cloud-init drive was last generated (GET `cloudinit`), and
 * regenerating the drive (PUT `cloudinit`; a start regenerates it too).
 */
import type { SimEndpoint } from '../../contract.js';
import { cloudinitValues } from '../config-update.js';
import { CLOUDINIT_KEYS, cloudinitDump } from '../cloudinit.js';
import { fail, locked } from '../errors.js';
import type { ClusterState } from '../state.js';
import { reqStr } from './params.js';
import { pathGuest } from './path-targets.js';
import { arr, int, NULL, obj, opt, P, perm, str } from './schema.js';

const MASK = '**********';

export function cloudinitEndpoints(state: ClusterState): SimEndpoint[] {
  return [
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/cloudinit/dump',
      description: 'Show the cloud-init user-data, network config or meta-data generated from the VM config, as text. The password hash shows only to callers with VM.Config.Cloudinit.',
      parameters: { node: P.node, vmid: P.vmid, type: str('Which file.', { enum: ['user', 'network', 'meta'] }) },
      returns: str('The file content.'),
      permissions: { check: perm('/vms/{vmid}', ['VM.Audit']) },
      proxyto: 'node',
      handler: (ctx) => {
        const g = pathGuest(state, 'qemu', ctx);
        try {
          return cloudinitDump(state, g, reqStr(ctx, 'type'), !ctx.hasPriv(`/vms/${g.vmid}`, 'VM.Config.Cloudinit'));
        } catch (err) {
          throw fail(err instanceof Error ? err.message : String(err));
        }
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/cloudinit',
      description: 'Cloud-init options with the value the current cloud-init drive was generated from and, when changed since, the pending value (or delete=1 when removed).',
      parameters: { node: P.node, vmid: P.vmid },
      returns: arr(
        obj({
          key: str('Option name.'),
          value: opt(str('Value in the current cloud-init drive.')),
          pending: opt(str('Value the next regeneration will use.')),
          delete: opt(int('1 when the option was removed since.', { minimum: 0, maximum: 1 })),
        }),
      ),
      permissions: { check: perm('/vms/{vmid}', ['VM.Audit']) },
      proxyto: 'node',
      handler: (ctx) => {
        const g = pathGuest(state, 'qemu', ctx);
        const now = cloudinitValues(g.config);
        const generated = g.cloudinitGenerated ?? now;
        const show = (key: string, v: string | number | undefined): string | undefined => (v === undefined ? undefined : key === 'cipassword' ? MASK : String(v));
        const out: Array<Record<string, unknown>> = [];
        for (const key of Object.keys(now)
          .filter((k) => !(k in generated))
          .sort())
          out.push({ key, pending: show(key, now[key]) });
        for (const key of [...CLOUDINIT_KEYS, ...Object.keys(now).filter((k) => k.startsWith('ipconfig'))]) {
          if (!(key in now) || !(key in generated)) continue;
          if (out.some((e) => e.key === key)) continue;
          const item: Record<string, unknown> = { key, value: show(key, generated[key]) };
          if (generated[key] !== now[key]) item.pending = show(key, now[key]);
          out.push(item);
        }
        for (const key of Object.keys(generated)
          .filter((k) => !(k in now))
          .sort())
          out.push({ key, delete: 1 });
        return out;
      },
    },
    {
      method: 'PUT',
      path: '/nodes/{node}/qemu/{vmid}/cloudinit',
      description: 'Regenerate (rebuild) the cloud-init drive from the current config, so pending cloud-init changes take effect at the next boot of the guest OS.',
      parameters: { node: P.node, vmid: P.vmid },
      returns: NULL,
      permissions: { check: perm('/vms/{vmid}', ['VM.Config.Cloudinit']) },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const g = pathGuest(state, 'qemu', ctx);
        if (g.config.lock !== undefined) throw locked('qemu', String(g.config.lock));
        delete g.cloudinitGenerated;
        return null;
      },
    },
  ];
}
