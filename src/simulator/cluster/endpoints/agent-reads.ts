/**
 * Guest-agent views of a running VM (OS, users, file systems, time, vCPUs, memory blocks), read
 * from its config and runtime, and `agent/exec` with its `exec-status`. A VM without an agent or
 * not running answers as PVE does.
 */
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import { guestRuntime } from '../metrics.js';
import type { ClusterState } from '../state.js';
import type { Guest } from '../types.js';
import { reqInt, reqStr } from './params.js';
import { arr, int, obj, OBJ, opt, P, perm, str } from './schema.js';

/** Guest-agent views of a running VM, from its config and runtime. */
export function agentReadEndpoints(state: ClusterState): SimEndpoint[] {
  const vm = (ctx: SimRequestContext): Guest => {
    const g = state.guestAt('qemu', reqStr(ctx, 'node'), reqInt(ctx, 'vmid'));
    if (!/^(?:1|enabled=1)(?:,|$)/.test(String(g.config.agent ?? ''))) throw fail('No QEMU guest agent configured');
    if (g.status !== 'running') throw fail(`VM ${g.vmid} is not running`);
    return g;
  };
  const windows = (g: Guest) => String(g.config.ostype ?? '').startsWith('win');
  const result = (v: unknown) => ({ result: v });
  const runs = () => state.area('agent-exec', () => new Map<number, { vmid: number; command: string[]; at: number }>());
  return [
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/agent/exec-status',
      description: 'Whether a command started with agent/exec has finished and, once it has, its exit code and what it printed.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }), pid: int('Process ID that agent/exec answered.') },
      returns: OBJ,
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Unrestricted']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        const run = runs().get(reqInt(ctx, 'pid'));
        if (!run || run.vmid !== g.vmid) throw fail(`Agent error: Invalid parameter 'pid'`);
        const [cmd, ...args] = run.command;
        const rt = guestRuntime(g, state.node(g.node), state.now());
        const outputs: Record<string, string> = {
          uptime: ` ${new Date(state.now()).toISOString().slice(11, 19)} up ${Math.floor(rt.uptime / 60)} min,  1 user,  load average: ${(rt.cpu * rt.cpus).toFixed(2)}, 0.30, 0.25\n`,
          hostname: `${String(g.config.name ?? `vm${g.vmid}`)}\n`,
          echo: `${args.join(' ')}\n`,
          true: '',
        };
        const out = outputs[cmd ?? ''];
        return out === undefined ? { exited: 1, exitcode: 127, 'err-data': `${cmd}: command not found\n` } : { exited: 1, exitcode: 0, 'out-data': out };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/agent/info',
      description: 'Commands the guest agent supports.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) },
      returns: OBJ,
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (
        vm(ctx),
        result({
          version: '9.2.0',
          supported_commands: [
            'guest-exec',
            'guest-exec-status',
            'guest-file-read',
            'guest-get-fsinfo',
            'guest-get-host-name',
            'guest-get-osinfo',
            'guest-get-time',
            'guest-get-timezone',
            'guest-get-users',
            'guest-get-vcpus',
            'guest-network-get-interfaces',
            'guest-ping',
          ].map((name) => ({ name, enabled: true, 'success-response': true })),
        })
      ),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/agent/get-fsinfo',
      description: 'File systems the guest has mounted, with their size and use.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) },
      returns: OBJ,
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        const rt = guestRuntime(g, state.node(g.node), state.now());
        const total = rt.maxdisk;
        return result([
          {
            name: windows(g) ? 'C:\\' : 'sda1',
            mountpoint: windows(g) ? 'C:\\' : '/',
            type: windows(g) ? 'NTFS' : 'ext4',
            'total-bytes': total,
            'used-bytes': Math.floor(total * 0.42),
            disk: [{ 'bus-type': 'scsi', bus: 0, target: 0, unit: 0, serial: `drive-scsi0`, dev: '/dev/sda1' }],
          },
        ]);
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/agent/get-memory-block-info',
      description: "Size of the guest's memory blocks.",
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) },
      returns: OBJ,
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (vm(ctx), result({ size: 134217728 })),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/agent/get-memory-blocks',
      description: "The guest's memory blocks and whether each is online.",
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) },
      returns: OBJ,
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        const blocks = Math.max(1, Math.floor(guestRuntime(g, state.node(g.node), state.now()).maxmem / 134217728));
        return result(Array.from({ length: Math.min(blocks, 256) }, (_, phys) => ({ 'phys-index': phys, online: true, 'can-offline': phys > 0 })));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/agent/get-time',
      description: "The guest's clock in nanoseconds since the epoch.",
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) },
      returns: OBJ,
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (vm(ctx), result(state.now() * 1_000_000)),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/agent/get-timezone',
      description: "The guest's time zone.",
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) },
      returns: OBJ,
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (vm(ctx), result({ zone: 'UTC', offset: 0 })),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/agent/get-users',
      description: 'Users logged in to the guest.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) },
      returns: OBJ,
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        return result([{ user: windows(g) ? 'Administrator' : 'admin', 'login-time': Math.floor(g.startedAt / 1000) + 600 }]);
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/agent/get-vcpus',
      description: "The guest's virtual CPUs and whether each is online.",
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }) },
      returns: OBJ,
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        return result(Array.from({ length: guestRuntime(g, state.node(g.node), state.now()).cpus }, (_, id) => ({ 'logical-id': id, online: true, 'can-offline': id > 0 })));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/qemu/{vmid}/agent/file-read',
      description: 'Read the contents of a file inside the VM through the guest agent.',
      parameters: { node: P.node, vmid: int('Guest ID (VMID).', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }), file: str('Path of the file inside the guest.') },
      returns: OBJ,
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.FileRead', 'VM.GuestAgent.Unrestricted'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        const file = reqStr(ctx, 'file');
        const files: Record<string, string> = {
          '/etc/hostname': `${String(g.config.name ?? `vm${g.vmid}`)}\n`,
          '/etc/os-release': 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nID=debian\nVERSION_ID="13"\n',
        };
        const content = files[file];
        if (content === undefined) throw fail(`Agent error: Failed to open file '${file}': No such file or directory`);
        return { content };
      },
    },
    {
      method: 'POST',
      path: '/nodes/{node}/qemu/{vmid}/agent/exec',
      description: 'Run a command inside the VM through the guest agent; answers the process ID to pass to exec-status.',
      parameters: { node: P.node, vmid: P.vmid, command: arr(str('Program and arguments.')), 'input-data': opt(str('Data passed to the command on standard input.', { maxLength: 65536 })) },
      returns: obj({ pid: int('Process ID in the guest.') }),
      permissions: { check: perm('/vms/{vmid}', ['VM.GuestAgent.Unrestricted']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const g = vm(ctx);
        const raw = ctx.params.command;
        const command = (Array.isArray(raw) ? raw.map(String) : [String(raw)]).flatMap((c) => c.split(/\s+/)).filter(Boolean);
        const pid = 1000 + runs().size * 7 + (g.vmid % 7);
        runs().set(pid, { vmid: g.vmid, command, at: state.now() });
        return { pid };
      },
    },
  ];
}
