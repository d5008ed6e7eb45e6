/**
 * Plans for every write family the simulator serves show their change: each write operation of
 * each registered family, previewed with reads against the simulator's state, yields a change
 * with a summary. A family none of whose writes says anything fails here — a new family needs
 * its preview (change-preview.ts) or a deliberate sentence (OPERATION_SENTENCES).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { PveClient } from '../../src/client/client.js';
import { previewChange } from '../../src/safety/change-preview.js';
import { computeBlastRadius } from '../../src/safety/blast-radius-compute.js';
import { generateSigningKeys, TicketAuthority } from '../../src/simulator/access/tickets.js';
import { AccessStore } from '../../src/simulator/access/store.js';
import { createCluster } from '../../src/simulator/cluster/index.js';
import { FAMILIES } from '../../src/simulator/families.js';
import { useAdminSimulator } from '../support/admin-simulator.js';

const fixture = useAdminSimulator();
let admin: PveClient;
beforeAll(() => void ({ admin } = fixture));

/** Values for path parameters that exist in the demo cluster where it matters. */
const VALUES: Record<string, string> = {
  node: 'pve1',
  vmid: '100',
  storage: 'local-lvm',
  poolid: 'production',
  sid: 'vm:101',
  id: 'backup-520840ae-979b',
  pos: '0',
  userid: 'root@pam',
  tokenid: 'mcp',
  snapname: 'pre',
  name: 'management',
  volume: 'local-lvm:vm-100-disk-0',
};

describe('every write family shows its change', () => {
  it('walks each family’s writes and fails on a family whose plan shows nothing', async () => {
    const state = createCluster({ preset: 'demo' }).state;
    const env = { store: new AccessStore(() => 0), tickets: new TicketAuthority(await generateSigningKeys(), 7200, () => 0), clusterName: () => 'demo' };
    const silent: string[] = [];
    let walked = 0;
    const radii: string[] = [];
    for (const f of FAMILIES) {
      const built = f.kind === 'cluster' ? f.build(state) : f.kind === 'guest' ? [...f.build(state, 'qemu'), ...f.build(state, 'lxc')] : f.build(env);
      for (const e of built.filter((x) => x.method !== 'GET')) {
        walked++;
        const pathValues = Object.fromEntries([...e.path.matchAll(/\{([^}]+)\}/g)].map((m) => [m[1] as string, VALUES[m[1] as string] ?? 'x']));
        const change = await previewChange({ method: e.method, template: e.path, pathValues, params: {}, read: (path) => admin.request('GET', path, {}) });
        if (!change || change.summary.trim() === '') silent.push(`${f.build.name}: ${e.method} ${e.path}`);
        // A blast radius never fails the plan: whatever it cannot read, it says so.
        const radius = await computeBlastRadius({ method: e.method, template: e.path, pathValues, params: {}, read: (path) => admin.request('GET', path, {}) });
        if (radius) radii.push(radius.family);
      }
    }
    expect(walked).toBeGreaterThan(100);
    expect(silent).toEqual([]);
    expect(new Set(radii)).toEqual(
      new Set([
        'storage-remove',
        'disk-delete',
        'disk-move',
        'guest-destroy',
        'firewall-management',
        'network-apply',
        'pool-delete',
        'user-delete',
        'token-delete',
        'acl-change',
        'ha-change',
        'migration',
      ]),
    );
  }, 120_000);

  it('bulk, HA and pool-wide calls list the guests they reach, read now', async () => {
    const read = (path: string) => admin.request('GET', path, {});
    const stopall = await previewChange({ method: 'POST', template: '/nodes/{node}/stopall', pathValues: { node: 'pve1' }, params: {}, read });
    const running = ((await read('/cluster/resources')) as any[]).filter((g) => (g.type === 'qemu' || g.type === 'lxc') && g.node === 'pve1' && g.status === 'running' && g.template !== 1);
    expect(stopall?.summary).toMatch(new RegExp(`^shut down .* on pve1: ${running.length} guests reached \\(web-01, `));
    expect(stopall?.lines).toContain('web-01 (VM 100 on pve1): running → stopped');
    const bulk = await previewChange({ method: 'POST', template: '/cluster/bulk-action/guest/start', pathValues: {}, params: { vms: '100,102,99999' }, read });
    expect(bulk?.lines).toEqual(['web-01 (VM 100 on pve1): running → running', 'app-01 (VM 102 on pve3): stopped → running', 'VMID 99999: no such guest now']);
    const ha = await previewChange({ method: 'PUT', template: '/cluster/ha/resources/{sid}', pathValues: { sid: 'vm:101' }, params: { state: 'stopped' }, read });
    expect(ha?.summary).toBe('db-01 (VM 101 on pve2): HA started → stopped (the guest is running now)');
    const pool = await previewChange({ method: 'PUT', template: '/pools/{poolid}', pathValues: { poolid: 'infra' }, params: { vms: '100', delete: 1 }, read });
    expect(pool?.lines).toEqual(["web-01 (VM 100 on pve1): pool 'infra' → (none)"]);
    const backup = await previewChange({ method: 'POST', template: '/nodes/{node}/vzdump', pathValues: { node: 'pve1' }, params: { pool: 'infra', storage: 'nas' }, read });
    expect(backup?.summary).toMatch(/^back up pool 'infra' to storage 'nas': \d+ guests$/);
  }, 60_000);
});
