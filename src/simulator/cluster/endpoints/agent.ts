/**
 * Guest-side views: the QEMU guest agent commands tools use most (ping, network interfaces,
 * OS info, host name) and the container interface list.
 */
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import { guestName } from '../guest-config.js';
import { guestIpv4, guestNics, linkLocal } from '../guest-net.js';
import type { ClusterState } from '../state.js';
import type { Guest } from '../types.js';
import { pathGuest } from './path-targets.js';
import { arr, int, obj, opt, P, perm, str } from './schema.js';

const AGENT_READ = { check: perm('/vms/{vmid}', ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], 'any', 1) };

function agentEnabled(g: Guest): boolean {
  return /^(?:1|enabled=1)(?:,|$)/.test(String(g.config.agent ?? ''));
}

function isWindows(g: Guest): boolean {
  return /^w/.test(String(g.config.ostype ?? ''));
}

function nicName(g: Guest, i: number): string {
  if (g.type === 'lxc') return `eth${i}`;
  return isWindows(g) ? (i === 0 ? 'Ethernet' : `Ethernet ${i + 1}`) : `ens${18 + i}`;
}

interface AgentCommand {
  method: 'GET' | 'POST';
  /** The agent command, also the last path segment. */
  name: string;
  description: string;
  reply(g: Guest): unknown;
}

export function agentEndpoints(state: ClusterState): SimEndpoint[] {
  /** A running VM with the agent enabled, or PVE's error for why the agent cannot answer. */
  const agentGuest = (ctx: SimRequestContext): Guest => {
    const g = pathGuest(state, 'qemu', ctx);
    if (!agentEnabled(g)) throw fail('No QEMU guest agent configured');
    if (g.status !== 'running') throw fail(`VM ${g.vmid} is not running`);
    if (g.paused) throw fail(`VM ${g.vmid} qmp command 'guest-ping' failed - got timeout`);
    return g;
  };
  const base = '/nodes/{node}/qemu/{vmid}/agent';
  const params = { node: P.node, vmid: P.vmid };
  const result = obj({}, { description: 'The agent reply under `result`.' });
  const commands: AgentCommand[] = [
    { method: 'POST', name: 'ping', description: 'Check that the guest agent answers.', reply: () => ({}) },
    {
      method: 'GET',
      name: 'network-get-interfaces',
      description: 'Network interfaces and addresses as the guest OS reports them through the agent.',
      reply: (g) => {
        const rt = state.guestRuntime(g);
        const lo = {
          name: isWindows(g) ? 'Loopback Pseudo-Interface 1' : 'lo',
          'hardware-address': '00:00:00:00:00:00',
          'ip-addresses': [
            { 'ip-address-type': 'ipv4', 'ip-address': '127.0.0.1', prefix: 8 },
            { 'ip-address-type': 'ipv6', 'ip-address': '::1', prefix: 128 },
          ],
          statistics: { 'rx-bytes': 0, 'rx-dropped': 0, 'rx-errs': 0, 'rx-packets': 0, 'tx-bytes': 0, 'tx-dropped': 0, 'tx-errs': 0, 'tx-packets': 0 },
        };
        const nics = guestNics(g).map((nic, i) => ({
          name: nicName(g, i),
          'hardware-address': nic.mac,
          'ip-addresses': [
            ...(i === 0 ? [{ 'ip-address-type': 'ipv4', 'ip-address': guestIpv4(g.vmid), prefix: 16 }] : []),
            { 'ip-address-type': 'ipv6', 'ip-address': linkLocal(nic.mac), prefix: 64 },
          ],
          statistics: {
            'rx-bytes': i === 0 ? rt.netin : 0,
            'rx-dropped': 0,
            'rx-errs': 0,
            'rx-packets': i === 0 ? Math.floor(rt.netin / 900) : 0,
            'tx-bytes': i === 0 ? rt.netout : 0,
            'tx-dropped': 0,
            'tx-errs': 0,
            'tx-packets': i === 0 ? Math.floor(rt.netout / 900) : 0,
          },
        }));
        return [lo, ...nics];
      },
    },
    {
      method: 'GET',
      name: 'get-osinfo',
      description: 'Operating system name and version reported by the guest agent.',
      reply: (g) => {
        if (isWindows(g)) {
          return {
            id: 'mswindows',
            name: 'Microsoft Windows',
            'pretty-name': 'Windows 11 Pro',
            version: 'Microsoft Windows 11',
            'version-id': '11',
            'kernel-release': '26100',
            'kernel-version': '10.0',
            machine: 'x86_64',
            variant: 'client',
            'variant-id': 'client',
          };
        }
        return {
          id: 'debian',
          name: 'Debian GNU/Linux',
          'pretty-name': 'Debian GNU/Linux 12 (bookworm)',
          version: '12 (bookworm)',
          'version-id': '12',
          'kernel-release': '6.1.0-31-amd64',
          'kernel-version': '#1 SMP PREEMPT_DYNAMIC Debian 6.1.128-1',
          machine: 'x86_64',
        };
      },
    },
    { method: 'GET', name: 'get-host-name', description: "The guest's hostname, as the guest agent reports it.", reply: (g) => ({ 'host-name': guestName(g) }) },
  ];

  return [
    {
      method: 'GET',
      path: base,
      description: 'Guest agent commands available through the API (directory index).',
      parameters: params,
      returns: arr(obj({}), { links: [{ rel: 'child', href: '{name}' }] }),
      permissions: { user: 'all' },
      proxyto: 'node',
      handler: (ctx) => {
        pathGuest(state, 'qemu', ctx);
        return commands
          .map((c) => c.name)
          .sort()
          .map((name) => ({ name }));
      },
    },
    // Each command answers with the agent's reply wrapped in `result`, as PVE does.
    ...commands.map(
      (c): SimEndpoint => ({
        method: c.method,
        path: `${base}/${c.name}`,
        description: c.description,
        parameters: params,
        returns: result,
        permissions: AGENT_READ,
        protected: true,
        proxyto: 'node',
        handler: (ctx) => ({ result: c.reply(agentGuest(ctx)) }),
      }),
    ),
    {
      method: 'GET',
      path: '/nodes/{node}/lxc/{vmid}/interfaces',
      description: 'Network interfaces and addresses inside a running container.',
      parameters: params,
      returns: arr(
        obj({
          name: str('Interface name.'),
          hwaddr: str('MAC address.'),
          'hardware-address': str('MAC address (agent-style key).'),
          inet: opt(str('IPv4 address with prefix length.')),
          inet6: opt(str('IPv6 address with prefix length.')),
          'ip-addresses': arr(obj({ 'ip-address': opt(str('Address.')), 'ip-address-type': opt(str('ipv4 or ipv6.')), prefix: opt(int('Prefix length.')) })),
        }),
      ),
      permissions: { check: perm('/vms/{vmid}', ['VM.Audit']) },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const g = pathGuest(state, 'lxc', ctx);
        if (g.status !== 'running') throw fail(`CT ${g.vmid} not running`);
        const entry = (name: string, mac: string, v4: string | undefined, v6: string): Record<string, unknown> => {
          const addrs = [
            ...(v4 ? [{ 'ip-address-type': 'inet', 'ip-address': v4.split('/')[0], prefix: Number(v4.split('/')[1]) }] : []),
            { 'ip-address-type': 'inet6', 'ip-address': v6.split('/')[0], prefix: Number(v6.split('/')[1]) },
          ];
          return { name, hwaddr: mac, 'hardware-address': mac, ...(v4 ? { inet: v4 } : {}), inet6: v6, 'ip-addresses': addrs };
        };
        return [
          entry('lo', '00:00:00:00:00:00', '127.0.0.1/8', '::1/128'),
          ...guestNics(g).map((nic, i) => entry(nicName(g, i), nic.mac, i === 0 ? `${guestIpv4(g.vmid)}/16` : undefined, `${linkLocal(nic.mac)}/64`)),
        ];
      },
    },
  ];
}
