/**
 * Guest lists and status: `/nodes/{node}/qemu`, `/nodes/{node}/lxc`, the per-guest index and
 * `status/current`.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint } from '../../contract.js';
import type { ClusterState } from '../state.js';
import type { GuestType } from '../types.js';
import { guestListItem, guestStatusCurrent } from '../views.js';
import { flag } from './params.js';
import { pathGuest, pathNode } from './path-targets.js';
import { arr, bool, int, num, obj, opt, P, perm, str, SUBDIRS, VMID_RANGE } from './schema.js';

function guestItemProps(type: GuestType): Record<string, SchemaNode> {
  const props: Record<string, SchemaNode> = {
    vmid: int('Guest ID.', { ...VMID_RANGE }),
    status: str('Power state.', { enum: ['stopped', 'running'] }),
    name: opt(str('Guest name (VM name or container hostname).')),
    cpus: opt(num('Number of virtual CPUs.')),
    cpu: opt(num('Current CPU load as a fraction of the guest CPUs.')),
    maxmem: opt(int('Configured memory in bytes.')),
    mem: opt(int('Memory in use, bytes.')),
    maxdisk: opt(int('Size of the root/boot disk in bytes.')),
    uptime: opt(int('Seconds since start.')),
    netin: opt(int('Bytes received since start.')),
    netout: opt(int('Bytes sent since start.')),
    diskread: opt(int('Bytes read from disks since start.')),
    diskwrite: opt(int('Bytes written to disks since start.')),
    lock: opt(str('Config lock held by an operation in progress (backup, snapshot, migrate…).')),
    tags: opt(str('Semicolon-separated tags.')),
    template: opt(bool('Set when the guest is a template.', { default: 0 })),
  };
  if (type === 'qemu') {
    props.memhost = opt(int('Host memory used by the VM process, bytes.'));
    props.pid = opt(int('PID of the QEMU process while running.'));
    props.qmpstatus = opt(str('Run state as QEMU reports it (running, paused…).'));
    props['running-machine'] = opt(str('Machine type the running VM was started with.'));
    props['running-qemu'] = opt(str('QEMU version the running VM was started with.'));
  } else {
    props.disk = opt(int('Root filesystem usage in bytes.', { minimum: 0 }));
    props.maxswap = opt(int('Configured swap in bytes.'));
  }
  return props;
}

export function guestEndpoints(state: ClusterState, type: GuestType): SimEndpoint[] {
  const noun = type === 'qemu' ? 'virtual machine' : 'container';
  const base = `/nodes/{node}/${type}`;
  const statusProps: Record<string, SchemaNode> = {
    ...guestItemProps(type),
    ha: obj({}, { description: 'HA state: `managed` 0/1 and, when managed, the requested `state`.' }),
  };
  if (type === 'qemu') statusProps.agent = opt(bool('Set when the QEMU guest agent is enabled in the config.'));

  return [
    {
      method: 'GET',
      path: base,
      description: `List the ${noun}s on one node with their current state and resource usage. GET /cluster/resources lists the guests of every node at once.`,
      parameters: {
        node: P.node,
        ...(type === 'qemu' ? { full: opt(bool('Include details that need a QMP query (qmpstatus, running machine).')) } : {}),
      },
      returns: arr(obj(guestItemProps(type)), { links: [{ rel: 'child', href: '{vmid}' }] }),
      permissions: { user: 'all', description: `Only ${noun}s the caller may audit (VM.Audit) are listed.` },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const node = pathNode(state, ctx);
        const full = flag(ctx, 'full') ?? false;
        return state
          .guestsOn(node)
          .filter((g) => g.type === type && ctx.hasPriv(`/vms/${g.vmid}`, 'VM.Audit'))
          .map((g) => guestListItem(state, g, full));
      },
    },
    {
      method: 'GET',
      path: `${base}/{vmid}`,
      description: `Sub-paths of one ${noun} (directory index).`,
      parameters: { node: P.node, vmid: P.vmid },
      returns: SUBDIRS,
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => {
        pathGuest(state, type, ctx);
        const dirs =
          type === 'qemu'
            ? ['config', 'pending', 'status', 'snapshot', 'clone', 'migrate', 'resize', 'template', 'agent']
            : ['config', 'pending', 'status', 'snapshot', 'clone', 'migrate', 'resize', 'template', 'interfaces'];
        return dirs.map((subdir) => ({ subdir }));
      },
    },
    {
      method: 'GET',
      path: `${base}/{vmid}/status/current`,
      description: `Current state of one ${noun}: running or stopped, uptime, lock, CPU, memory, disk and network use.`,
      parameters: { node: P.node, vmid: P.vmid },
      returns: obj(statusProps),
      permissions: { check: perm('/vms/{vmid}', ['VM.Audit']) },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => guestStatusCurrent(state, pathGuest(state, type, ctx)),
    },
  ];
}
