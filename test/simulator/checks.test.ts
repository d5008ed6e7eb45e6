/**
 * The checks a node makes before a handler runs: permissions (point 16), parameter validation
 * (point 17) and node reachability for proxied calls (point 24), over real HTTPS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call, findGuest, startTestSimulator } from './helpers.js';

let sim: RunningSimulator;
let inProduction: { vmid: number; node: string };
let inDevelopment: { vmid: number; node: string };

beforeAll(async () => {
  sim = await startTestSimulator();
  inProduction = findGuest(sim, (g) => g.type === 'qemu' && g.pool === 'production' && g.node === 'pve1');
  inDevelopment = findGuest(sim, (g) => g.type === 'qemu' && g.pool === 'development' && g.node === 'pve1');
});
afterAll(async () => {
  await sim.close();
});

const statusPath = (g: { vmid: number; node: string }) => `/api2/json/nodes/${g.node}/qemu/${g.vmid}/status/current`;
const startPath = (g: { vmid: number; node: string }) => `/api2/json/nodes/${g.node}/qemu/${g.vmid}/status/start`;

function asUser(userid: string, token = 'probe', privsep = false) {
  if (!sim.access.store.user(userid)) sim.access.addUser(userid);
  return { tokenHeader: sim.access.addToken(userid, token, { privsep }).header };
}

describe('permission checks (point 16)', () => {
  it("denies without ACL with PVE's message, and 403 comes before parameter validation", async () => {
    const alice = asUser('alice@pve');
    const r = await call(sim, statusPath(inProduction), { auth: alice });
    expect(r.status).toBe(403);
    expect(r.statusText).toBe(`Permission check failed (/vms/${inProduction.vmid}, VM.Audit)`);
    expect(r.json).toEqual({ data: null, message: `Permission check failed (/vms/${inProduction.vmid}, VM.Audit)\n` });
    const bad = await call(sim, `${startPath(inProduction)}?timeout=abc`, { method: 'POST', auth: alice });
    expect(bad.status).toBe(403);
    sim.access.grant({ path: `/vms/${inProduction.vmid}`, roles: ['PVEVMUser'], users: ['alice@pve'] });
    expect((await call(sim, statusPath(inProduction), { auth: alice })).status).toBe(200);
    expect((await call(sim, `${startPath(inProduction)}?timeout=abc`, { method: 'POST', auth: alice })).status).toBe(400);
  });

  it('propagates ACLs down the path only when propagate is set; deeper entries replace inherited ones', async () => {
    const bob = asUser('bob@pve');
    sim.access.grant({ path: '/vms', roles: ['PVEAuditor'], users: ['bob@pve'], propagate: false });
    expect((await call(sim, statusPath(inProduction), { auth: bob })).status).toBe(403);
    sim.access.grant({ path: '/vms', roles: ['PVEAuditor'], users: ['bob@pve'], propagate: true });
    expect((await call(sim, statusPath(inProduction), { auth: bob })).status).toBe(200);
    sim.access.grant({ path: `/vms/${inProduction.vmid}`, roles: ['NoAccess'], users: ['bob@pve'] });
    expect((await call(sim, statusPath(inProduction), { auth: bob })).status).toBe(403);
    expect((await call(sim, statusPath(inDevelopment), { auth: bob })).status).toBe(200);
  });

  it('applies group ACLs and pool ACLs to pool members', async () => {
    const dave = asUser('dave@pve');
    sim.access.addGroup('ops', ['dave@pve']);
    sim.access.grant({ path: '/nodes', roles: ['PVEAuditor'], groups: ['ops'] });
    expect((await call(sim, '/api2/json/nodes/pve1/status', { auth: dave })).status).toBe(200);
    const erin = asUser('erin@pve');
    sim.access.grant({ path: '/pool/production', roles: ['PVEVMUser'], users: ['erin@pve'] });
    expect((await call(sim, statusPath(inProduction), { auth: erin })).status).toBe(200);
    expect((await call(sim, statusPath(inDevelopment), { auth: erin })).status).toBe(403);
  });

  it("privilege-separated tokens get the intersection of their own and their owner's privileges", async () => {
    sim.access.addUser('frank@pve');
    sim.access.grant({ path: '/vms', roles: ['PVEVMAdmin'], users: ['frank@pve'] });
    const separated = { tokenHeader: sim.access.addToken('frank@pve', 'sep', { privsep: true }).header };
    expect((await call(sim, statusPath(inProduction), { auth: separated })).status).toBe(403);
    sim.access.grant({ path: '/', roles: ['PVEAuditor'], tokens: ['frank@pve!sep'] });
    expect((await call(sim, statusPath(inProduction), { auth: separated })).status).toBe(200);
    const start = await call(sim, startPath(inProduction), { method: 'POST', auth: separated });
    expect(start.status).toBe(403);
    expect(start.statusText).toBe(`Permission check failed (/vms/${inProduction.vmid}, VM.PowerMgmt)`);
    // The token's own grant on /nodes is useless: frank himself has nothing there.
    expect((await call(sim, '/api2/json/nodes/pve1/status', { auth: separated })).status).toBe(403);
    const full = { tokenHeader: sim.access.addToken('frank@pve', 'full', { privsep: false }).header };
    expect((await call(sim, startPath(inProduction), { method: 'POST', auth: full })).status).toBe(200);
    const rootSeparated = { tokenHeader: sim.access.addToken('root@pam', 'sep', { privsep: true }).header };
    expect((await call(sim, statusPath(inProduction), { auth: rootSeparated })).status).toBe(403);
    expect((await call(sim, statusPath(inProduction))).status).toBe(200);
  });

  it('reports effective permissions per path', async () => {
    const alice = asUser('alice@pve', 'perms');
    const r = await call(sim, '/api2/json/access/permissions', { auth: alice });
    expect(r.json.data[`/vms/${inProduction.vmid}`]).toMatchObject({ 'VM.Audit': 1, 'VM.PowerMgmt': 1 });
    expect(r.json.data['/']).toBeUndefined();
    const other = await call(sim, '/api2/json/access/permissions?userid=bob@pve', { auth: alice });
    expect(other.status).toBe(403);
  });
});

describe('parameter validation (point 17)', () => {
  const errorsOf = async (path: string, init: Parameters<typeof call>[2] = {}) => {
    const r = await call(sim, path, init);
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('Parameter verification failed.\n');
    return r.json.errors as Record<string, string>;
  };

  it('checks types with PVE texts ("1"/"0" booleans, integer and number regexes)', async () => {
    expect(await errorsOf('/api2/json/nodes/pve1/qemu?full=true')).toEqual({ full: "type check ('boolean') failed - got 'true'" });
    expect((await call(sim, '/api2/json/nodes/pve1/qemu?full=1')).status).toBe(200);
    expect(await errorsOf('/api2/json/nodes/pve1/tasks?limit=1.5')).toEqual({ limit: "type check ('integer') failed - got '1.5'" });
  });

  it('checks enums, bounds, lengths, patterns and formats', async () => {
    const typeEnum = sim.model.get('GET', '/cluster/resources')?.params.find((p) => p.name === 'type')?.enum ?? [];
    expect(await errorsOf('/api2/json/cluster/resources?type=bogus')).toEqual({
      type: `value 'bogus' does not have a value in the enumeration '${typeEnum.join(', ')}'`,
    });
    expect(await errorsOf('/api2/json/access/users/root@pam/token/mcp', { method: 'PUT', body: { expire: -5 } })).toEqual({
      expire: 'value must have a minimum value of 0',
    });
    expect(await errorsOf('/api2/json/access/users', { method: 'POST', body: { userid: 'long@pve', comment: 'x'.repeat(2049) } })).toEqual({
      comment: 'value may only be 2048 characters long',
    });
    expect(await errorsOf('/api2/json/access/users/root@pam/token/1bad', { method: 'POST' })).toEqual({
      tokenid: 'value does not match the regex pattern',
    });
    expect(await errorsOf('/api2/json/nodes/pve1/qemu/99/status/current')).toEqual({
      vmid: 'invalid format - value does not look like a valid VM ID\n',
    });
    expect(await errorsOf('/api2/json/nodes/bad_node/tasks/x')).toEqual({ node: 'invalid format - value does not look like a valid node name\n' });
  });

  it('requires mandatory parameters and refuses undeclared ones', async () => {
    expect(await errorsOf('/api2/json/access/acl', { method: 'PUT', body: { path: '/vms', users: 'root@pam' } })).toEqual({
      roles: 'property is missing and it is not optional',
    });
    expect(await errorsOf('/api2/json/version?foo=1')).toEqual({
      foo: 'property is not defined in schema and the schema does not allow additional properties',
    });
  });

  it('refuses a body parameter that contradicts the path', async () => {
    expect(await errorsOf('/api2/json/access/users/root@pam', { method: 'PUT', body: { userid: 'other@pve' } })).toEqual({
      userid: 'duplicate parameter (already defined in URI) with conflicting values!',
    });
  });
});

describe('node reachability for proxied calls (point 24)', () => {
  it('unknown nodes fail the hostname lookup with 500', async () => {
    const r = await call(sim, '/api2/json/nodes/nonode/qemu');
    expect(r.status).toBe(500);
    expect(r.statusText).toBe("hostname lookup 'nonode' failed - failed to get address info for: nonode: Name or service not known");
  });

  it('offline nodes answer 595 (refused at once or after a timeout); cluster-wide calls keep working', async () => {
    sim.faults.setNodeOffline('pve2');
    try {
      const r = await call(sim, '/api2/json/nodes/pve2/qemu');
      expect(r.status).toBe(595);
      expect(r.statusText).toBe('Connection refused');
      expect(r.text).toBe('');
      expect((await call(sim, '/api2/json/nodes/pve1/qemu')).status).toBe(200);
      const resources = await call(sim, '/api2/json/cluster/resources?type=node');
      expect(resources.json.data.find((n: { node: string }) => n.node === 'pve2').status).toBe('offline');
      sim.faults.offlineTimeoutMs = 50;
      sim.faults.setNodeOffline('pve2', 'timeout');
      const slow = await call(sim, '/api2/json/nodes/pve2/qemu');
      expect(slow.status).toBe(595);
      expect(slow.statusText).toBe('Connection timed out');
    } finally {
      sim.faults.setNodeOnline('pve2');
    }
    expect((await call(sim, '/api2/json/nodes/pve2/qemu')).status).toBe(200);
  });
});
