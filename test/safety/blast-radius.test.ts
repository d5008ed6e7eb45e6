/**
 * Blast radius per family, computed against the simulator's state over HTTPS (no mocked client):
 * the state is arranged with real writes, then the radius of a planned write is read and checked.
 * A failed read makes the radius incomplete and the decision its worst case.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { PveClient } from '../../src/client/client.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { useAdminSimulator } from '../support/admin-simulator.js';
import { computeBlastRadius, type BlastInput } from '../../src/safety/blast-radius-compute.js';
import { type BlastRadius, worstCaseDecision } from '../../src/safety/blast-radius.js';
import { decideCall } from '../../src/policy/decide.js';
import type { CallFacts } from '../../src/policy/facts.js';
import { Policy } from '../../src/policy/policy.js';

const fixture = useAdminSimulator();
let sim: RunningSimulator;
let admin: PveClient;
beforeAll(() => void ({ sim, admin } = fixture));

const read = (path: string): Promise<unknown> => admin.request('GET', path, {});
const get = async (path: string, params: Record<string, unknown> = {}): Promise<any> => admin.request('GET', path, params);
async function write(method: 'POST' | 'PUT' | 'DELETE', path: string, params: Record<string, unknown> = {}): Promise<unknown> {
  const out = await admin.request(method, path, params);
  if (typeof out === 'string' && out.startsWith('UPID:')) await admin.waitTask(out, { timeoutMs: 10_000 });
  return out;
}

async function radius(method: string, template: string, pathValues: Record<string, string>, params: Record<string, unknown> = {}, over: Partial<BlastInput> = {}): Promise<BlastRadius> {
  let config: Record<string, unknown> | undefined;
  if (pathValues.vmid) {
    const type = template.includes('/lxc/') ? 'lxc' : 'qemu';
    config = (await get(`/nodes/${pathValues.node}/${type}/${pathValues.vmid}/config`)) as Record<string, unknown>;
  }
  const r = await computeBlastRadius({ method, template, pathValues, params, ...(config ? { config } : {}), read, ...over });
  if (!r) throw new Error(`no blast radius for ${method} ${template}`);
  return r;
}

const severe = (r: BlastRadius) => r.items.filter((i) => i.severe).map((i) => `${i.what}: ${i.effect}`);

describe('blast radius per family, against the simulator', () => {
  it('storage remove and disable: the guests that lose a disk, and which will not boot', async () => {
    await write('POST', '/storage', { storage: 'scratch', type: 'dir', path: '/srv/scratch', content: 'images,rootdir,backup' });
    // VM 118 boots from scsi0: moved there, it will not boot without it.
    await write('POST', '/nodes/pve1/qemu/118/move_disk', { disk: 'scsi0', storage: 'scratch', delete: 1 });
    const removed = await radius('DELETE', '/storage/{storage}', { storage: 'scratch' });
    expect(removed).toMatchObject({ family: 'storage-remove', complete: true, failed: [] });
    expect(removed.summary).toBe('1 guest loses a disk; 1 of them will not boot');
    expect(severe(removed)).toEqual([expect.stringMatching(/^VM 118 'dev-02' on pve1: loses disk scsi0 \(.*\) — its boot disk: it will not boot/)]);
    expect(removed.reads).toEqual(expect.arrayContaining(['GET /storage/scratch', 'GET /cluster/resources', 'GET /nodes/pve1/qemu/118/config']));
    const disabled = await radius('PUT', '/storage/{storage}', { storage: 'scratch' }, { disable: 1 });
    expect(disabled.family).toBe('storage-disable');
    expect(disabled.items.map((i) => i.vmid)).toEqual([118]);
    // Taking `images` off the content list disables it for VMs: the same radius; taking `rootdir` off spares VMs.
    const noImages = await radius('PUT', '/storage/{storage}', { storage: 'scratch' }, { content: 'rootdir,backup' });
    expect(noImages).toMatchObject({ family: 'storage-disable', summary: "taking content images off 'scratch': 1 guest loses a disk; 1 of them will not boot" });
    expect(severe(noImages)).toEqual([expect.stringMatching(/^VM 118 'dev-02' on pve1: loses disk scsi0 .* it will not boot/)]);
    expect(await radius('PUT', '/storage/{storage}', { storage: 'scratch' }, { content: 'images,backup' })).toMatchObject({
      items: [],
      summary: "taking content rootdir off 'scratch' reaches no guest disk, backup or job",
    });
    // Narrowing the nodes takes the storage only from the nodes left out.
    expect((await radius('PUT', '/storage/{storage}', { storage: 'scratch' }, { nodes: 'pve1' })).items).toEqual([]);
    expect((await radius('PUT', '/storage/{storage}', { storage: 'scratch' }, { nodes: 'pve2,pve3' })).items.map((i) => i.vmid)).toEqual([118]);
    // Both at once: keeping pve1 does not spare a VM there when `images` goes.
    expect((await radius('PUT', '/storage/{storage}', { storage: 'scratch' }, { nodes: 'pve1', content: 'rootdir,backup' })).items.map((i) => i.vmid)).toEqual([118]);
    expect((await radius('PUT', '/storage/{storage}', { storage: 'scratch' }, { nodes: 'pve1', content: 'images,rootdir,backup' })).items).toEqual([]);
    // A storage nothing uses reaches nothing.
    await write('POST', '/storage', { storage: 'empty', type: 'dir', path: '/srv/empty', content: 'images' });
    expect((await radius('DELETE', '/storage/{storage}', { storage: 'empty' })).summary).toBe("removing 'empty' reaches no guest disk, backup or job");
  }, 30_000);

  it('disk move: a raw file on a directory storage ends snapshots; delete and replace of a disk in a config write', async () => {
    await write('POST', '/storage', { storage: 'files', type: 'dir', path: '/srv/files', content: 'images' });
    const move = await radius('POST', '/nodes/{node}/qemu/{vmid}/move_disk', { node: 'pve1', vmid: '100' }, { disk: 'scsi0', storage: 'files', format: 'raw' });
    expect(move.family).toBe('disk-move');
    expect(severe(move)).toEqual([expect.stringMatching(/cannot be snapshotted: snapshots of this guest are refused/)]);
    expect(move.items[0]?.effect).toMatch(/copied to 'files'; the source is kept as an unused disk/);
    const del = await radius('PUT', '/nodes/{node}/qemu/{vmid}/config', { node: 'pve1', vmid: '100' }, { delete: 'scsi0' });
    expect(del).toMatchObject({ family: 'disk-delete', summary: '1 disk of VM 100 on pve1 goes; it will not boot' });
    const forced = await radius('PUT', '/nodes/{node}/qemu/{vmid}/config', { node: 'pve1', vmid: '100' }, { delete: 'scsi0', force: 1 });
    expect(forced.items[0]?.effect).toMatch(/is destroyed — its boot disk/);
    // A config write that touches no disk has no blast radius.
    expect(
      await computeBlastRadius({
        method: 'PUT',
        template: '/nodes/{node}/qemu/{vmid}/config',
        pathValues: { node: 'pve1', vmid: '100' },
        params: { memory: 4096 },
        config: { scsi0: 'local-lvm:vm-100-disk-0,size=32G' },
        read,
      }),
    ).toBeUndefined();
  }, 30_000);

  it('volume delete: the guest that uses it, and the linked clones of a base volume', async () => {
    const config = await get('/nodes/pve1/qemu/112/config');
    const volid = String(config.scsi0).split(',')[0] as string;
    const storage = volid.split(':')[0] as string;
    const attached = await radius('DELETE', '/nodes/{node}/storage/{storage}/content/{volume}', { node: 'pve1', storage, volume: volid });
    expect(attached).toMatchObject({ family: 'disk-delete', complete: true });
    expect(severe(attached)).toEqual([`VM 112 'app-02' on pve1 scsi0: is this guest’s boot disk: PVE refuses while it is attached; once detached, the guest will not boot`]);
    const template = (await get('/cluster/resources')).find((g: any) => g.template === 1);
    await write('POST', `/nodes/${template.node}/qemu/${template.vmid}/clone`, { newid: 991, name: 'linked-2', full: 0 });
    const tconfig = await get(`/nodes/${template.node}/qemu/${template.vmid}/config`);
    const base = String(tconfig.scsi0).split(',')[0] as string;
    const baseRadius = await radius('DELETE', '/nodes/{node}/storage/{storage}/content/{volume}', { node: template.node, storage: base.split(':')[0] as string, volume: base });
    expect(severe(baseRadius)).toEqual(expect.arrayContaining([expect.stringMatching(/ of VMID 991: is a linked clone of it: PVE refuses the delete while it exists$/)]));
  }, 30_000);

  it('guest destroy: its HA resource, the backup jobs naming it, linked clones of a template', async () => {
    await write('POST', '/cluster/backup', { schedule: 'sun 04:00', storage: 'nas', vmid: '101,102' });
    const db = await radius('DELETE', '/nodes/{node}/qemu/{vmid}', { node: 'pve2', vmid: '101' });
    expect(db.family).toBe('guest-destroy');
    expect(severe(db)).toEqual(expect.arrayContaining([expect.stringMatching(/^HA resource vm:101 \(state started\): still names it: PVE refuses/)]));
    expect(db.items.filter((i) => i.kind === 'job').map((i) => i.effect)).toEqual(['still lists it: each run warns that the guest is missing']);
    // The demo cluster replicates its first database VM to a second node: the job goes with the guest.
    const jobs = (await get('/cluster/replication')) as Array<{ id: string; guest: number; target: string }>;
    expect(jobs).toEqual([expect.objectContaining({ id: '101-0', guest: 101, target: 'pve1' })]);
    expect(db.items.filter((i) => i.kind === 'replication').map((i) => `${i.what}: ${i.effect}`)).toEqual(["replication job '101-0' to pve1: names it: removed with it"]);
    expect(db.summary).toMatch(/3 HA resources or jobs name it/);
    const purged = await radius('DELETE', '/nodes/{node}/qemu/{vmid}', { node: 'pve2', vmid: '101' }, { purge: 1 });
    expect(purged.items.find((i) => i.kind === 'ha')?.effect).toBe('removed with the guest');

    const template = (await get('/cluster/resources')).find((g: any) => g.template === 1);
    expect(template).toBeDefined();
    await write('POST', `/nodes/${template.node}/qemu/${template.vmid}/clone`, { newid: 990, name: 'linked-1', full: 0 });
    const t = await radius('DELETE', '/nodes/{node}/qemu/{vmid}', { node: template.node, vmid: String(template.vmid) });
    expect(severe(t)).toEqual(expect.arrayContaining([expect.stringMatching(/^VM 990 'linked-1' on .*: is a linked clone of this template/)]));
    expect(t.summary).toMatch(/2 linked clones depend on it/);
  }, 30_000);

  it('firewall: switching the datacenter firewall on with policy DROP cuts the API node’s 8006 and 22 for outsiders', async () => {
    await write('PUT', '/cluster/firewall/options', { enable: 0 });
    const on = await radius('PUT', '/cluster/firewall/options', {}, { enable: 1 });
    expect(on.family).toBe('firewall-management');
    expect(on.summary).toMatch(/^cuts the management path: 2 ports of pve1 blocked/);
    expect(severe(on)).toEqual([
      'port 8006 (API and web UI) on pve1, the API node: open (firewall off) → blocked by input policy DROP: only the cluster network still reaches it',
      'port 22 (SSH) on pve1, the API node: open (firewall off) → blocked by input policy DROP: only the cluster network still reaches it',
    ]);
    await write('PUT', '/cluster/firewall/options', { enable: 1, policy_in: 'ACCEPT' });
    const drop = await radius('POST', '/nodes/{node}/firewall/rules', { node: 'pve1' }, { type: 'in', action: 'DROP', proto: 'tcp', dport: '8000:8010', enable: 1 });
    expect(severe(drop)).toEqual([expect.stringMatching(/^port 8006 .* open \(input policy ACCEPT\) → blocked by a DROP rule/)]);
    const harmless = await radius('POST', '/nodes/{node}/firewall/rules', { node: 'pve2' }, { type: 'in', action: 'DROP', proto: 'tcp', dport: '3306', enable: 1 });
    expect(harmless).toMatchObject({ items: [], summary: 'keeps ports 8006 and 22 of pve2 as reachable as they are' });
    await write('PUT', '/cluster/firewall/options', { policy_in: 'DROP' });
    // A security group the datacenter's rules use counts where it is used.
    await write('POST', '/cluster/firewall/groups', { group: 'webui' });
    await write('POST', '/cluster/firewall/groups/{group}'.replace('{group}', 'webui'), { type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '8006', enable: 1 });
    await write('POST', '/cluster/firewall/rules', { type: 'group', action: 'webui', enable: 1 });
    const group = await radius('DELETE', '/cluster/firewall/groups/{group}/{pos}', { group: 'webui', pos: '0' });
    expect(severe(group)).toEqual(['port 8006 (API and web UI) on pve1, the API node: open (a rule accepts it) → blocked by input policy DROP: only the cluster network still reaches it']);
    expect(group.reads).toContain('GET /cluster/firewall/groups/webui');
  }, 30_000);

  it('firewall: a DROP whose source includes or may include the management network cuts it; moving an ACCEPT below a DROP too', async () => {
    await write('PUT', '/cluster/firewall/options', { enable: 1, policy_in: 'ACCEPT' });
    await write('POST', '/cluster/firewall/aliases', { name: 'partner', cidr: '198.51.100.0/24' });
    const drop = (source: string) => radius('POST', '/nodes/{node}/firewall/rules', { node: 'pve1' }, { type: 'in', action: 'DROP', proto: 'tcp', dport: '8006', source, enable: 1 });
    // The management IP set itself, a network holding its jump host, an alias inside its office LAN.
    for (const source of ['+dc/management', '192.168.100.0/24', 'dc/gateway']) {
      expect(severe(await drop(source)), source).toEqual([
        expect.stringMatching(/^port 8006 \(API and web UI\) on pve1, the API node: open \(.*\) → blocked for the management network by a DROP rule from (.*): the operators lose it too$/),
      ]);
      expect(severe(await drop(source))[0]).toContain(`rule from ${source}:`);
    }
    // Sources outside the management network leave it reachable.
    for (const source of ['203.0.113.0/24', 'partner', '+blocklist', 'fd00::/64']) expect((await drop(source)).items, source).toEqual([]);
    // A source that cannot be resolved counts as the worst case.
    expect(severe(await drop('dc/nosuch'))).toEqual([
      expect.stringMatching(/blocked by a DROP rule from dc\/nosuch, which may include the management network \(counts as the worst case\): the operators lose it too$/),
    ]);
    await write('POST', '/cluster/firewall/ipset', { name: 'edge' });
    await write('POST', '/cluster/firewall/ipset/edge', { cidr: '198.51.100.0/24' });
    expect((await radius('POST', '/nodes/{node}/firewall/rules', { node: 'pve1' }, { type: 'in', action: 'DROP', proto: 'tcp', dport: '22', source: '+edge', enable: 1 })).items).toEqual([]);
    const unread = await radius(
      'POST',
      '/nodes/{node}/firewall/rules',
      { node: 'pve1' },
      { type: 'in', action: 'DROP', proto: 'tcp', dport: '22', source: '+edge', enable: 1 },
      { read: (path) => (path === '/cluster/firewall/ipset/edge' ? Promise.reject(new Error('permission check failed')) : read(path)) },
    );
    expect(unread.complete).toBe(false);
    expect(severe(unread)).toEqual([expect.stringMatching(/^port 22 .* which may include the management network/)]);

    // Deleting a rule's source widens its DROP to everyone; deleting policy_in makes it DROP.
    await write('POST', '/nodes/pve3/firewall/rules', { type: 'in', action: 'DROP', proto: 'tcp', dport: '22', source: '203.0.113.0/24', enable: 1 });
    const widened = await radius('PUT', '/nodes/{node}/firewall/rules/{pos}', { node: 'pve3', pos: '0' }, { delete: 'source' });
    expect(severe(widened)).toEqual([expect.stringMatching(/^port 22 \(SSH\) on pve3: open .* → blocked by a DROP rule: only the cluster network still reaches it$/)]);
    expect(severe(await radius('PUT', '/cluster/firewall/options', {}, { delete: 'policy_in' })).length).toBeGreaterThan(0);
    // pve2: an ACCEPT above a DROP on 8006; moving the ACCEPT below the DROP blocks it.
    await write('POST', '/nodes/pve2/firewall/rules', { type: 'in', action: 'DROP', proto: 'tcp', dport: '8006', enable: 1 });
    await write('POST', '/nodes/pve2/firewall/rules', { type: 'in', action: 'ACCEPT', proto: 'tcp', dport: '8006', enable: 1 });
    const moved = await radius('PUT', '/nodes/{node}/firewall/rules/{pos}', { node: 'pve2', pos: '0' }, { moveto: 2 });
    expect(severe(moved)).toEqual(['port 8006 (API and web UI) on pve2: open (a rule accepts it) → blocked by a DROP rule: only the cluster network still reaches it']);
    await write('PUT', '/nodes/pve2/firewall/rules/0', { moveto: 2 });
    expect((await get('/nodes/pve2/firewall/rules')).slice(0, 2).map((r: any) => r.action)).toEqual(['DROP', 'ACCEPT']);
  }, 30_000);

  it('network apply: the interface with the node’s address and the guest NICs on its bridges', async () => {
    const net = await radius('PUT', '/nodes/{node}/network', { node: 'pve1' });
    expect(net.family).toBe('network-apply');
    expect(severe(net)).toEqual([expect.stringMatching(/^vmbr0 \(10\.0\.0\.11\/16\): carries pve1's cluster and management address, the node this server talks to/)]);
    expect(net.items.find((i) => i.what === 'bridge vmbr0')?.effect).toMatch(/guest NICs on it lose traffic while it reloads: VM 100 'web-01' net0/);
    const other = await radius('PUT', '/nodes/{node}/network', { node: 'pve2' });
    expect(other.summary).toMatch(/^reloads \d+ interfaces of pve2;/);
  }, 30_000);

  it('network apply: what the staged configuration changes — the cluster address taken away, interfaces not up yet', async () => {
    expect((await radius('PUT', '/nodes/{node}/network', { node: 'pve1' })).items.filter((i) => /staged/.test(i.effect))).toEqual([]);
    await write('POST', '/nodes/pve1/network', { iface: 'vmbr9', type: 'bridge', cidr: '192.168.9.1/24', comments: 'lab' });
    await write('PUT', '/nodes/pve1/network/vmbr0', { type: 'bridge', cidr: '10.0.0.99/16' });
    const staged = await radius('PUT', '/nodes/{node}/network', { node: 'pve1' });
    expect(severe(staged)).toEqual([
      "pve1's cluster address 10.0.0.11: is on no interface of the staged configuration: applying it takes the address away, which cuts this server off the API and corosync on pve1",
    ]);
    expect(staged.items.find((i) => i.what === 'vmbr9 (192.168.9.1/24)')?.effect).toBe('is not up now: applying brings it up (new or changed in the staged configuration)');
    // Reverting throws the staged copy away: the running configuration is what the radius reads again.
    await write('DELETE', '/nodes/pve1/network');
    const reverted = await radius('PUT', '/nodes/{node}/network', { node: 'pve1' });
    expect(severe(reverted)).toEqual([expect.stringMatching(/^vmbr0 \(10\.0\.0\.11\/16\): carries pve1's cluster and management address/)]);
    expect(reverted.items.some((i) => i.what.startsWith('vmbr9'))).toBe(false);
  }, 30_000);

  it('pool, user and token deletes; ACL changes', async () => {
    const pool = await radius('DELETE', '/pools/{poolid}', { poolid: 'production' });
    expect(severe(pool)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/PVE refuses to delete a pool that is not empty/),
        "backup job 'backup-520840ae-979b': selects its guests by this pool: it backs up nothing afterwards",
      ]),
    );

    await write('POST', '/access/users', { userid: 'blast@pve' });
    await write('POST', '/access/users/{userid}/token/{tokenid}'.replace('{userid}', 'blast@pve').replace('{tokenid}', 'ci'), {});
    await write('PUT', '/access/acl', { path: '/vms/100', roles: 'PVEVMUser', users: 'blast@pve' });
    await write('PUT', '/access/acl', { path: '/pool/infra', roles: 'PVEVMAdmin', tokens: 'blast@pve!ci' });
    const user = await radius('DELETE', '/access/users/{userid}', { userid: 'blast@pve' });
    expect(user.summary).toBe('user blast@pve: 1 API token and 2 ACL entries go with it');
    const token = await radius('DELETE', '/access/users/{userid}/token/{tokenid}', { userid: 'blast@pve', tokenid: 'ci' });
    expect(token.items.map((i) => `${i.what}: ${i.effect}`)).toEqual([
      'API token blast@pve!ci: deleted: whatever authenticates with it stops working at once',
      'blast@pve!ci role PVEVMAdmin on /pool/infra: removed',
    ]);

    const grant = await radius('PUT', '/access/acl', {}, { path: '/', roles: 'Administrator', users: 'blast@pve' });
    expect(grant.family).toBe('acl-change');
    expect(severe(grant)).toEqual([expect.stringMatching(/^user blast@pve: gains role Administrator \(\d+ privileges, including Permissions\.Modify.*\) on \/ — the whole cluster$/)]);
    const revoke = await radius('PUT', '/access/acl', {}, { path: '/pool/infra', roles: 'PVEVMAdmin', tokens: 'blast@pve!ci', delete: 1 });
    expect(revoke.items[0]?.effect).toMatch(/^loses role PVEVMAdmin on \/pool\/infra \(\d+ members now, and every guest added later\)$/);
  }, 30_000);

  it('deleting the token or the user this server authenticates with says this server loses access', async () => {
    const own = sim.token.id;
    const [userid, tokenid] = own.split('!') as [string, string];
    const token = await radius('DELETE', '/access/users/{userid}/token/{tokenid}', { userid, tokenid }, {}, { ownAuthIds: [own] });
    expect(token.summary).toMatch(/^THIS SERVER LOSES ACCESS to the cluster; /);
    expect(severe(token)[0]).toBe(
      `${own} (this server's own credential): deleted: this server authenticates with this token, so this server loses access to the cluster — every later call fails and nothing here can undo it`,
    );
    const user = await radius('DELETE', '/access/users/{userid}', { userid }, {}, { ownAuthIds: [own] });
    expect(user.summary).toMatch(/^THIS SERVER LOSES ACCESS to the cluster; /);
    expect(severe(user)).toContain(
      `${own} (this server's own credential): deleted: this server authenticates with this token of the user, so this server loses access to the cluster — every later call fails and nothing here can undo it`,
    );
    // A password login is its user: deleting that user cuts the server off too, even when no read answers.
    const down = (): Promise<unknown> => Promise.reject(new Error('connection reset'));
    const login = await radius('DELETE', '/access/users/{userid}', { userid: 'ops@pve' }, {}, { ownAuthIds: ['ops@pve'], read: down });
    expect(login).toMatchObject({ complete: false, items: [expect.objectContaining({ kind: 'user', severe: true, what: "ops@pve (this server's own credential)" })] });
    // Revoking a role the server's own token holds takes that access from it.
    await write('PUT', '/access/acl', { path: '/vms/100', roles: 'PVEAuditor', tokens: own });
    const revoke = await radius('PUT', '/access/acl', {}, { path: '/vms/100', roles: 'PVEAuditor', tokens: own, delete: 1 }, { ownAuthIds: [own] });
    expect(severe(revoke)).toEqual([
      expect.stringMatching(
        new RegExp(`^token ${own.replace(/[.*+?^$!{}()|[\]\\]/g, '\\$&')} \\(this server's own credential\\): loses role PVEAuditor on /vms/100 .*: this server loses that access$`),
      ),
    ]);
    // Another user's token is not the server's own.
    expect((await radius('DELETE', '/access/users/{userid}/token/{tokenid}', { userid, tokenid: 'other' }, {}, { ownAuthIds: [own] })).summary).not.toMatch(/THIS SERVER/);
  }, 30_000);

  it('HA and migrations: what the HA manager will do, what moves where', async () => {
    const stop = await radius('PUT', '/cluster/ha/resources/{sid}', { sid: 'vm:101' }, { state: 'stopped' });
    expect(stop).toMatchObject({ family: 'ha-change' });
    expect(stop.summary).toMatch(/^VM 101 'db-01' on pve2: started → stopped: the HA manager stops it and keeps it stopped — it will be stopped/);
    const all = await radius('POST', '/nodes/{node}/migrateall', { node: 'pve3' }, { target: 'pve1' });
    expect(all.family).toBe('migration');
    const onPve3 = (await get('/cluster/resources')).filter((g: any) => (g.type === 'qemu' || g.type === 'lxc') && g.node === 'pve3' && g.template !== 1);
    expect(all.summary).toBe(`${onPve3.length} guests move to pve1 from pve3`);
    expect(all.items.filter((i) => i.kind === 'guest').length).toBe(onPve3.length);
    expect(all.items.some((i) => /local disks/.test(i.what) && /copied to pve1/.test(i.effect))).toBe(true);
    const one = await radius('POST', '/nodes/{node}/qemu/{vmid}/migrate', { node: 'pve2', vmid: '101' }, { target: 'pve1', online: 1 });
    expect(one.items[0]).toMatchObject({ what: "VM 101 'db-01' on pve2", effect: 'moves pve2 → pve1 (live); HA-managed: the HA manager carries out the move' });
    const rule = await radius('POST', '/cluster/ha/rules', {}, { rule: 'pin', type: 'node-affinity', resources: 'vm:101', nodes: 'pve3', strict: 1 });
    expect(rule.items.map((i) => i.effect)).toEqual(['runs on pve2, outside pve3: the HA manager moves it there (strict)']);
  }, 30_000);
});

describe('a blast radius whose reads failed', () => {
  it('says so, is incomplete, and the decision becomes the policy’s worst case', async () => {
    const failing = (path: string): Promise<unknown> => (path === '/cluster/ha/resources' ? Promise.reject(Object.assign(new Error('permission check failed'), { status: 403 })) : read(path));
    const r = await radius('DELETE', '/nodes/{node}/qemu/{vmid}', { node: 'pve2', vmid: '101' }, {}, { read: failing });
    expect(r.complete).toBe(false);
    expect(r.failed).toEqual(['GET /cluster/ha/resources: 403 permission check failed']);
    expect(r.summary).toMatch(/INCOMPLETE: 1 read failed, so it may reach more and counts as the worst case$/);
    expect(r.items.some((i) => i.kind === 'ha')).toBe(false);
  }, 30_000);

  it('a call the policy allows asks for approval, or is refused under guest scopes, when its radius is incomplete', async () => {
    const failing = (path: string): Promise<unknown> => (path === '/cluster/resources' ? Promise.reject(new Error('connection reset')) : read(path));
    const incomplete = await radius('PUT', '/cluster/ha/resources/{sid}', { sid: 'vm:101' }, { state: 'stopped' }, { read: failing });
    const complete = await radius('PUT', '/cluster/ha/resources/{sid}', { sid: 'vm:101' }, { state: 'stopped' });
    expect([incomplete.complete, complete.complete]).toEqual([false, true]);
    const facts: CallFacts = {
      cluster: 'pve',
      method: 'PUT',
      template: '/cluster/ha/resources/{sid}',
      concretePath: '/cluster/ha/resources/vm:101',
      baseRisk: 'write',
      risk: 'write',
      escalations: [],
      targets: { nodes: [], vmids: [101], dataOf: [], storages: [], pools: [], volumes: [], hostPaths: [], poolGuests: [], unresolved: [] },
      params: { state: 'stopped' },
      guests: [{ vmid: 101, via: 'acts-on' }],
      nodes: [],
      everyGuest: false,
      unresolved: [],
      lookedUp: false,
    };
    const operator = Policy.fromConfig({ preset: 'operator', allow: ['PUT /cluster/ha/resources/{sid}'] });
    const allowed = decideCall(facts, operator);
    expect(allowed.outcome).toBe('allow');
    expect(worstCaseDecision(facts, operator, complete, allowed)).toBe(allowed);
    const worst = worstCaseDecision(facts, operator, incomplete, allowed);
    expect(worst).toMatchObject({ outcome: 'approval', risk: 'destructive' });
    expect(worst.outcome === 'approval' && worst.reason).toMatch(/its blast radius could not be read \(GET \/cluster\/resources: connection reset\)/);
    const scoped = Policy.fromConfig({ preset: 'operator', allow: ['PUT /cluster/ha/resources/{sid}'], scopes: { vmids: ['100-199'] } });
    expect(decideCall(facts, scoped).outcome).toBe('allow');
    expect(worstCaseDecision(facts, scoped, incomplete, decideCall(facts, scoped))).toMatchObject({ outcome: 'deny', rule: 'scopes' });
  }, 30_000);
});
