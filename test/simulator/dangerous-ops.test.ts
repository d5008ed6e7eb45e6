/**
 * The operations where PVE is most dangerous, over real HTTPS: each test checks the effect on the
 * simulated state (guests started, stopped, moved, volumes destroyed…), the task that did it and
 * PVE's errors. Run against the simulator's own schema and, when present, the official 9.1 one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call, startTestSimulator, type CallOptions } from './helpers.js';

const variants = [{ name: 'own schema', schemaFile: undefined }, ...(hasOfficialSchema('9.1') ? [{ name: 'official 9.1 schema', schemaFile: officialSchemaFile('9.1') }] : [])];

describe.each(variants)('dangerous operations ($name)', ({ schemaFile }) => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startTestSimulator({ taskDurationMs: 20, checkResponses: true, ...(schemaFile ? { schemaFile } : {}) });
  });
  afterAll(async () => {
    expect(sim.responseProblems).toEqual([]);
    await sim.close();
  });

  const api = (path: string, opts: CallOptions = {}) => call(sim, `/api2/json${path}`, opts);
  const post = async (path: string, body: Record<string, string | number | string[]> = {}, method = 'POST') => {
    const r = await api(path, { method, body });
    expect(r.status, `${method} ${path}: ${r.statusText}`).toBe(200);
    return r.json.data as string;
  };
  const waitTask = async (upid: string) => {
    const node = upid.split(':')[1] as string;
    for (let i = 0; i < 500; i++) {
      const st = await api(`/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`);
      expect(st.status).toBe(200);
      if (st.json.data.status === 'stopped') {
        const log = await api(`/nodes/${node}/tasks/${encodeURIComponent(upid)}/log?limit=1000`);
        return { exitstatus: st.json.data.exitstatus as string, log: (log.json.data as Array<{ t: string }>).map((l) => l.t) };
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`task ${upid} did not finish`);
  };
  const guest = (vmid: number) => {
    const g = sim.cluster.guest(vmid);
    if (!g) throw new Error(`no guest ${vmid}`);
    return g;
  };
  /** Plain guests (no template, not HA-managed) of a node. */
  const plain = (node?: string) =>
    sim.cluster
      .guests()
      .filter((g) => !g.config.template && !sim.cluster.state.haResources.has(`${g.type === 'qemu' ? 'vm' : 'ct'}:${g.vmid}`))
      .filter((g) => node === undefined || g.node === node);

  describe('bulk actions', () => {
    it('start: starts the listed stopped guests with one sub-task each, skips running VMs with a warning', async () => {
      const stopped = plain()
        .filter((g) => g.status === 'stopped' && g.type === 'qemu')
        .slice(0, 2);
      const running = plain().find((g) => g.status === 'running' && g.type === 'qemu');
      expect(stopped.length).toBe(2);
      expect(running).toBeDefined();
      const vms = [...stopped.map((g) => String(g.vmid)), String(running?.vmid)];
      const upid = await post('/cluster/bulk-action/guest/start', { vms });
      expect(upid).toContain(':bulk-start::root@pam!mcp:');
      const task = await waitTask(upid);
      expect(task.exitstatus).toBe('WARNINGS: 1');
      expect(task.log[0]).toBe(`Starting guests: ${vms.join(', ')}`);
      expect(task.log).toContain(`WARN: Skipping VM ${running?.vmid}, already running.`);
      for (const g of stopped) {
        expect(task.log).toContain(`Starting VM ${g.vmid}`);
        expect(guest(g.vmid).status).toBe('running');
        const sub = sim.cluster.tasks().find((t) => t.type === 'qmstart' && t.id === String(g.vmid));
        expect(sub?.exitstatus).toBe('OK');
        expect(sub?.user).toBe('root@pam!mcp');
      }
    });

    it('start: a guest whose start fails makes the whole task fail with the list of failures', async () => {
      const g = plain().find((x) => x.status === 'stopped' && x.type === 'qemu');
      if (!g) throw new Error('no stopped VM');
      sim.cluster.taskFaults.push({ type: 'qmstart', vmid: g.vmid, fail: 'start failed: QEMU exited with code 1', times: 1 });
      const task = await waitTask(await post('/cluster/bulk-action/guest/start', { vms: [String(g.vmid)] }));
      expect(task.exitstatus).toBe(`Some guests failed to start: ${g.vmid}`);
      expect(task.log).toContain(`WARN: Starting VM ${g.vmid} failed: start failed: QEMU exited with code 1`);
      expect(guest(g.vmid).status).toBe('stopped');
    });

    it('shutdown without vms shuts down every running non-HA guest of the cluster', async () => {
      const before = plain().filter((g) => g.status === 'running');
      expect(before.length).toBeGreaterThan(2);
      const ha = sim.cluster.guests().filter((g) => sim.cluster.state.haResources.has(`${g.type === 'qemu' ? 'vm' : 'ct'}:${g.vmid}`) && g.status === 'running');
      const task = await waitTask(await post('/cluster/bulk-action/guest/shutdown', { 'max-workers': 3 }));
      expect(task.exitstatus).toMatch(/^(OK|WARNINGS: \d+)$/);
      expect(task.log[0]).toBe('Shutting down all guests');
      for (const g of before) expect(guest(g.vmid).status).toBe('stopped');
      // HA-managed guests are left to the HA manager when no list is given.
      for (const g of ha) expect(guest(g.vmid).status).toBe('running');
      expect(task.log.some((l) => /^Shutting down (VM|CT) \d+ \(Timeout = 180 seconds\)$/.test(l))).toBe(true);
    });

    it('needs VM.PowerMgmt on / without a list, on each guest with one', async () => {
      sim.access.addUser('op@pve', { password: 'x' });
      const tok = sim.access.addToken('op@pve', 'tok', { privsep: false });
      sim.access.grant({ path: '/vms/100', roles: ['PVEVMUser'], users: ['op@pve'] });
      const auth = { tokenHeader: tok.header };
      const all = await api('/cluster/bulk-action/guest/start', { method: 'POST', auth, body: {} });
      expect(all.status, all.statusText).toBe(403);
      expect(all.json.message).toBe('Permission check failed (/, VM.PowerMgmt)\n');
      const other = await api('/cluster/bulk-action/guest/start', { method: 'POST', auth, body: { vms: ['100', '101'] } });
      expect(other.status).toBe(403);
      expect(other.json.message).toBe('Permission check failed (/vms/101, VM.PowerMgmt)\n');
    });

    it('suspend: pauses running VMs (or suspends them to disk), skips containers', async () => {
      const picked = plain()
        .filter((g) => g.type === 'qemu' && g.config.lock === undefined && !g.config.template)
        .slice(0, 2);
      await waitTask(await post('/cluster/bulk-action/guest/start', { vms: picked.map((g) => String(g.vmid)) }));
      const vms = picked.filter((g) => guest(g.vmid).status === 'running');
      const ct = plain().find((g) => g.type === 'lxc');
      expect(vms.length).toBe(2);
      const list = [...vms.map((g) => String(g.vmid)), String(ct?.vmid)];
      const task = await waitTask(await post('/cluster/bulk-action/guest/suspend', { vms: list, 'to-disk': 1 }));
      expect(task.log[0]).toBe(`Suspending guests: ${list.join(', ')}`);
      expect(task.log).toContain(`WARN: skipping ${ct?.vmid}, only VMs can be suspended`);
      for (const g of vms) {
        expect(guest(g.vmid).status).toBe('stopped');
        expect(guest(g.vmid).config.lock).toBe('suspended');
      }
      // A start resumes them from disk.
      const start = await waitTask(await post('/cluster/bulk-action/guest/start', { vms: vms.map((g) => String(g.vmid)) }));
      expect(start.exitstatus).toBe('OK');
      for (const g of vms) {
        expect(guest(g.vmid).status).toBe('running');
        expect(guest(g.vmid).config.lock).toBeUndefined();
      }
      const node = vms[0]?.node as string;
      const onNode = plain(node).filter((g) => g.type === 'qemu' && g.status === 'running');
      const all = await waitTask(await post(`/nodes/${node}/suspendall`));
      expect(all.exitstatus).toMatch(/^(OK|WARNINGS: \d+)$/);
      for (const g of onNode) expect(guest(g.vmid).config.lock).toBe('suspended');
      await waitTask(await post(`/nodes/${node}/startall`, { force: 1, vms: onNode.map((g) => g.vmid).join(',') }));
      for (const g of onNode) expect(guest(g.vmid).status).toBe('running');
    });

    it('migrate: moves the listed guests to the target, skips those already there', async () => {
      const onPve1 = plain('pve1').filter((g) => g.status === 'stopped' && g.type === 'qemu');
      const onPve2 = plain('pve2').find((g) => g.status === 'stopped');
      // Stopped guests on shared or local storage: local disks are recreated on the target.
      const moving = onPve1.slice(0, 2);
      const vms = [...moving.map((g) => String(g.vmid)), String(onPve2?.vmid)];
      const task = await waitTask(await post('/cluster/bulk-action/guest/migrate', { vms, target: 'pve2' }));
      expect(task.log[0]).toBe(`Migrating guests to pve2: ${vms.join(', ')}`);
      expect(task.log).toContain(`WARN: ${onPve2?.type === 'qemu' ? 'VM' : 'CT'} ${onPve2?.vmid} already on pve2, skipping.`);
      for (const g of moving) expect(guest(g.vmid).node).toBe('pve2');
    });
  });

  describe('config delete with force', () => {
    const volumesOf = async (node: string, storage: string, vmid: number) =>
      ((await api(`/nodes/${node}/storage/${storage}/content?vmid=${vmid}`)).json.data as Array<{ volid: string }>).map((v) => v.volid);

    it('without force a removed disk stays as unusedN; deleting unusedN destroys the volume', async () => {
      const g = plain().find((x) => x.type === 'qemu' && x.status === 'stopped' && x.snapshots.length === 0);
      if (!g) throw new Error('no VM');
      const base = `/nodes/${g.node}/qemu/${g.vmid}/config`;
      await post(base, { scsi5: 'local-lvm:1' }, 'PUT');
      const volid = String(guest(g.vmid).config.scsi5).split(',')[0] as string;
      expect(await volumesOf(g.node, 'local-lvm', g.vmid)).toContain(volid);
      await post(base, { delete: 'scsi5' }, 'PUT');
      const unused = Object.entries(guest(g.vmid).config).find(([k, v]) => k.startsWith('unused') && v === volid)?.[0];
      expect(unused).toBeDefined();
      expect(await volumesOf(g.node, 'local-lvm', g.vmid)).toContain(volid);
      await post(base, { delete: unused as string }, 'PUT');
      expect(guest(g.vmid).config[unused as string]).toBeUndefined();
      expect(await volumesOf(g.node, 'local-lvm', g.vmid)).not.toContain(volid);
    });

    it('with force the disk volume is destroyed at once (stopped VM) or, for a disk a running VM cannot unplug, at the next start with delete=2 pending', async () => {
      const g = plain().find((x) => x.type === 'qemu' && x.status === 'stopped' && x.snapshots.length === 0 && x.node === 'pve1');
      if (!g) throw new Error('no VM');
      const base = `/nodes/${g.node}/qemu/${g.vmid}/config`;
      await post(base, { scsi6: 'local-lvm:1' }, 'PUT');
      const volid = String(guest(g.vmid).config.scsi6).split(',')[0] as string;
      await post(base, { delete: 'scsi6', force: 1 }, 'PUT');
      expect(Object.values(guest(g.vmid).config)).not.toContain(volid);
      expect(await volumesOf(g.node, 'local-lvm', g.vmid)).not.toContain(volid);

      await post(base, { ide3: 'local-lvm:1' }, 'PUT');
      const second = String(guest(g.vmid).config.ide3).split(',')[0] as string;
      await waitTask(await post(`/nodes/${g.node}/qemu/${g.vmid}/status/start`));
      const upid = await post(base, { delete: 'ide3', force: 1 });
      expect((await waitTask(upid)).exitstatus).toBe('OK');
      const pending = (await api(`/nodes/${g.node}/qemu/${g.vmid}/pending`)).json.data as Array<{ key: string; delete?: number }>;
      expect(pending.find((p) => p.key === 'ide3')?.delete).toBe(2);
      await waitTask(await post(`/nodes/${g.node}/qemu/${g.vmid}/status/reboot`));
      expect(guest(g.vmid).config.ide3).toBeUndefined();
      expect(await volumesOf(g.node, 'local-lvm', g.vmid)).not.toContain(second);
    });

    it('refuses to destroy a volume a snapshot still uses', async () => {
      const g = plain().find((x) => x.type === 'qemu' && x.status === 'stopped' && x.snapshots.length > 0);
      if (!g) throw new Error('no VM with snapshots');
      const key = Object.keys(g.snapshots[0]?.config ?? {}).find((k) => /^scsi\d+$/.test(k) && k in g.config) as string;
      const volid = String(g.config[key]).split(',')[0];
      const r = await api(`/nodes/${g.node}/qemu/${g.vmid}/config`, { method: 'PUT', body: { delete: key, force: 1 } });
      expect(r.status).toBe(500);
      expect(r.json.message).toBe(`unable to delete '${volid}' - volume is still in use (snapshot?)\n`);
    });

    it('a container mount point becomes unusedN; deleting that destroys it', async () => {
      const ct = plain().find((x) => x.type === 'lxc' && x.status === 'stopped' && x.snapshots.length === 0);
      if (!ct) throw new Error('no CT');
      const base = `/nodes/${ct.node}/lxc/${ct.vmid}/config`;
      await post(base, { mp7: 'local-lvm:1,mp=/data' }, 'PUT');
      const volid = String(guest(ct.vmid).config.mp7).split(',')[0] as string;
      await post(base, { delete: 'mp7' }, 'PUT');
      const unused = Object.entries(guest(ct.vmid).config).find(([k, v]) => k.startsWith('unused') && v === volid)?.[0] as string;
      expect(unused).toBeDefined();
      await post(base, { delete: unused }, 'PUT');
      expect(await volumesOf(ct.node, 'local-lvm', ct.vmid)).not.toContain(volid);
    });
  });

  describe('HA resources and rules', () => {
    const haGuests = () => sim.cluster.guests().filter((g) => sim.cluster.state.haResources.has(`${g.type === 'qemu' ? 'vm' : 'ct'}:${g.vmid}`));
    const until = async (pred: () => boolean) => {
      for (let i = 0; i < 300 && !pred(); i++) {
        await api('/version');
        await new Promise((r) => setTimeout(r, 5));
      }
      return pred();
    };

    it('state stopped makes the HA manager shut the guest down shortly after (its own task, as root@pam)', async () => {
      let g = haGuests().find((x) => x.status === 'running');
      if (!g) {
        g = haGuests()[0];
        if (!g) throw new Error('no HA guest');
        await post(`/cluster/ha/resources/vm:${g.vmid}`, { state: 'started' }, 'PUT');
        expect(await until(() => guest(g?.vmid as number).status === 'running')).toBe(true);
      }
      const sid = `vm:${g.vmid}`;
      await post(`/cluster/ha/resources/${sid}`, { state: 'stopped' }, 'PUT');
      expect((await api(`/cluster/ha/resources/${sid}`)).json.data.state).toBe('stopped');
      expect(await until(() => guest(g?.vmid as number).status === 'stopped')).toBe(true);
      const task = sim.cluster.tasks().find((t) => t.type === 'qmshutdown' && t.id === String(g?.vmid));
      expect(task?.user).toBe('root@pam');
      expect(task?.exitstatus).toBe('OK');
    });

    it('adding a stopped guest with state started makes HA start it; errors and digests as PVE', async () => {
      const g = plain().find((x) => x.type === 'qemu' && x.status === 'stopped' && x.config.lock === undefined);
      if (!g) throw new Error('no VM');
      const sid = `vm:${g.vmid}`;
      await post('/cluster/ha/resources', { sid, state: 'started' });
      expect(await until(() => guest(g.vmid).status === 'running')).toBe(true);
      const again = await api('/cluster/ha/resources', { method: 'POST', body: { sid } });
      expect(again.json.message).toBe(`resource ID '${sid}' already defined\n`);
      const ct = sim.cluster.guests().find((x) => x.type === 'lxc') as { vmid: number };
      expect((await api('/cluster/ha/resources', { method: 'POST', body: { sid: `vm:${ct.vmid}` } })).json.message).toBe(`resource 'vm:${ct.vmid}' - guest with ID ${ct.vmid} is not a VM\n`);
      expect((await api('/cluster/ha/resources', { method: 'POST', body: { sid: 'vm:999999' } })).json.message).toBe("resource 'vm:999999' does not exist in cluster\n");
      const list = (await api('/cluster/ha/resources')).json.data as Array<{ digest: string }>;
      expect(new Set(list.map((r) => r.digest)).size).toBe(1);
      const stale = list[0]?.digest as string;
      await post(`/cluster/ha/resources/${sid}`, { comment: 'web' }, 'PUT');
      const refused = await api(`/cluster/ha/resources/${sid}`, { method: 'PUT', body: { comment: 'db', digest: stale } });
      expect(refused.status).toBe(500);
      expect(refused.json.message).toBe('detected modified configuration - file changed by other user? Try again.\n');
      const gone = await api('/cluster/ha/resources/vm:999998', { method: 'DELETE' });
      expect(gone.json.message).toBe("cannot delete service 'vm:999998', not HA managed!\n");
    });

    it("rules: node and resource affinity with PVE's checks, digest, conflicts and purge", async () => {
      const managed = [...sim.cluster.state.haResources.keys()];
      expect(managed.length).toBeGreaterThanOrEqual(2);
      // From a cluster without rules (the demo seeds one over every managed database).
      sim.cluster.state.haRules.clear();
      const [a, b] = managed as [string, string];
      await post('/cluster/ha/rules', { rule: 'db-on-pve1', type: 'node-affinity', resources: a, nodes: 'pve1:2,pve2', strict: 1 });
      const read = (await api('/cluster/ha/rules/db-on-pve1')).json.data;
      expect(read).toMatchObject({ rule: 'db-on-pve1', type: 'node-affinity', resources: a, nodes: 'pve1:2,pve2', strict: 1, order: 1 });
      expect(read.digest).toMatch(/^[0-9a-f]{40}$/);

      const unmanaged = plain().find((g) => g.type === 'qemu') as { vmid: number };
      const um = await api('/cluster/ha/rules', { method: 'POST', body: { rule: 'xx', type: 'node-affinity', resources: `vm:${unmanaged.vmid}`, nodes: 'pve1' } });
      expect(um.json.message, JSON.stringify(um.json.errors)).toBe(`cannot use unmanaged resource(s) vm:${unmanaged.vmid}.\n`);
      expect((await api('/cluster/ha/rules', { method: 'POST', body: { rule: 'xx', type: 'node-affinity', resources: a, nodes: 'pve9' } })).json.message).toBe(
        'cannot use non-existent node(s) pve9.\n',
      );
      const twice = await api('/cluster/ha/rules', { method: 'POST', body: { rule: 'dup', type: 'node-affinity', resources: a, nodes: 'pve2' } });
      expect(twice.status).toBe(400);
      expect(twice.json.message).toBe("Rule 'dup' is invalid.\n");
      expect(twice.json.errors).toEqual({ resources: `resource '${a}' is already used in another node affinity rule` });
      const lonely = await api('/cluster/ha/rules', { method: 'POST', body: { rule: 'lonely', type: 'resource-affinity', resources: a, affinity: 'negative' } });
      expect(lonely.json.errors).toEqual({ resources: 'rule is ineffective as there are less than two resources' });
      await post('/cluster/ha/rules', { rule: 'apart', type: 'resource-affinity', resources: `${a},${b}`, affinity: 'negative' });
      expect(((await api('/cluster/ha/rules?type=resource-affinity')).json.data as Array<{ rule: string }>).map((r) => r.rule)).toEqual(['apart']);

      const stale = read.digest as string;
      const refused = await api('/cluster/ha/rules/db-on-pve1', { method: 'PUT', body: { type: 'node-affinity', comment: 'x', digest: stale } });
      expect(refused.json.message).toBe('detected modified configuration - file changed by other user? Try again.\n');

      // Taking the resource out of HA (purge is the default) takes it out of the rules; emptied rules go.
      await post(`/cluster/ha/resources/${a}`, {}, 'DELETE');
      expect((await api('/cluster/ha/rules/db-on-pve1')).json.message).toBe("no such ha rule 'db-on-pve1'\n");
      expect((await api('/cluster/ha/rules/apart')).json.data.resources).toBe(b);
    });
  });

  describe('cloud-init', () => {
    it('the user dump carries the stored password hash and the SSH keys; network and meta as qemu-server writes them', async () => {
      const g = plain().find((x) => x.type === 'qemu' && x.status === 'stopped' && x.config.lock === undefined && !/^w/.test(String(x.config.ostype ?? '')));
      if (!g) throw new Error('no VM');
      const base = `/nodes/${g.node}/qemu/${g.vmid}`;
      const keys = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq0 ops@bastion\nssh-rsa AAAAB3NzaC1yc2E backup@host\n';
      await post(`${base}/config`, { ciuser: 'ops', cipassword: 'S3cret!', sshkeys: encodeURIComponent(keys), ipconfig0: 'ip=10.0.5.20/24,gw=10.0.5.1', searchdomain: 'corp.example' }, 'PUT');
      const stored = String(guest(g.vmid).config.cipassword);
      expect(stored).toMatch(/^\$5\$[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{43}$/);
      const cfg = (await api(`${base}/config`)).json.data;
      expect(cfg.cipassword).toBe('**********');

      const user = (await api(`${base}/cloudinit/dump?type=user`)).json.data as string;
      const name = String(guest(g.vmid).config.name ?? `VM${g.vmid}`);
      expect(user).toBe(
        `#cloud-config\nhostname: ${name}\nmanage_etc_hosts: true\nfqdn: ${name}.corp.example\nuser: ops\npassword: ${stored}\n` +
          'ssh_authorized_keys:\n  - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq0 ops@bastion\n  - ssh-rsa AAAAB3NzaC1yc2E backup@host\n' +
          'chpasswd:\n  expire: False\nusers:\n  - default\npackage_upgrade: true\n',
      );
      const network = (await api(`${base}/cloudinit/dump?type=network`)).json.data as string;
      const mac = /((?:[0-9A-F]{2}:){5}[0-9A-F]{2})/i.exec(String(guest(g.vmid).config.net0))?.[1]?.toLowerCase();
      expect(network).toContain(
        `    - type: physical\n      name: eth0\n      mac_address: '${mac}'\n      subnets:\n      - type: static\n        address: '10.0.5.20'\n        netmask: '255.255.255.0'\n        gateway: '10.0.5.1'\n`,
      );
      expect(network).toContain("      search:\n      - 'corp.example'\n");
      const meta = (await api(`${base}/cloudinit/dump?type=meta`)).json.data as string;
      expect(meta).toMatch(/^instance-id: [0-9a-f]{40}\n$/);

      // Without VM.Config.Cloudinit the hash is masked.
      sim.access.addUser('ci-audit@pve', { password: 'x' });
      const tok = sim.access.addToken('ci-audit@pve', 'tok', { privsep: false });
      sim.access.grant({ path: `/vms/${g.vmid}`, roles: ['PVEAuditor'], users: ['ci-audit@pve'] });
      const masked = (await api(`${base}/cloudinit/dump?type=user`, { auth: { tokenHeader: tok.header } })).json.data as string;
      expect(masked).toContain('password: **********\n');

      // The drive was generated before the change: the options are pending until PUT cloudinit (or a start).
      const pending = (await api(`${base}/cloudinit`)).json.data as Array<{ key: string; value?: string; pending?: string }>;
      expect(pending.find((p) => p.key === 'ciuser')).toEqual({ key: 'ciuser', pending: 'ops' });
      expect(pending.find((p) => p.key === 'cipassword')).toEqual({ key: 'cipassword', pending: '**********' });
      await post(`${base}/cloudinit`, {}, 'PUT');
      const regenerated = (await api(`${base}/cloudinit`)).json.data as Array<{ key: string; value?: string; pending?: string }>;
      expect(regenerated.find((p) => p.key === 'ciuser')).toEqual({ key: 'ciuser', value: 'ops' });
    });
  });

  describe('restore over an existing guest', () => {
    it('without force PVE refuses; with force the old disks go, the archived config comes back, extra disks stay unused', async () => {
      const g = plain().find((x) => x.type === 'qemu' && x.status === 'stopped' && x.config.lock === undefined && !x.config.protection && x.node === 'pve1');
      if (!g) throw new Error('no VM');
      const base = `/nodes/pve1/qemu/${g.vmid}`;
      const dump = await waitTask(await post('/nodes/pve1/vzdump', { vmid: g.vmid, storage: 'nas' }));
      expect(dump.exitstatus).toBe('OK');
      const archive = ((await api(`/nodes/pve1/storage/nas/content?content=backup&vmid=${g.vmid}`)).json.data as Array<{ volid: string; ctime: number }>).sort((a, b) => b.ctime - a.ctime)[0]
        ?.volid as string;
      const before = { ...guest(g.vmid).config };
      await post(`${base}/config`, { scsi9: 'local-lvm:1', cores: 7 }, 'PUT');
      const extra = String(guest(g.vmid).config.scsi9).split(',')[0] as string;
      await waitTask(await post(`${base}/snapshot`, { snapname: 'pre' }));

      const refused = await api('/nodes/pve1/qemu', { method: 'POST', body: { vmid: g.vmid, archive } });
      expect(refused.status).toBe(500);
      expect(refused.json.message).toBe(`unable to restore VM ${g.vmid} - VM ${g.vmid} already exists on node 'pve1'\n`);

      const upid = await post('/nodes/pve1/qemu', { vmid: g.vmid, archive, force: 1 });
      expect(upid).toContain(`:qmrestore:${g.vmid}:`);
      const task = await waitTask(upid);
      expect(task.exitstatus).toBe('OK');
      const after = guest(g.vmid).config;
      expect(after.cores).toBe(before.cores);
      expect(after.scsi9).toBeUndefined();
      expect(Object.entries(after).find(([k]) => k.startsWith('unused'))?.[1]).toBe(extra);
      expect(guest(g.vmid).snapshots).toEqual([]);
      expect(after.lock).toBeUndefined();
    });

    it('a running VM is not overwritten; a container needs force and must be stopped', async () => {
      const vm = plain().find((x) => x.type === 'qemu' && x.status === 'running' && x.node === 'pve1' && x.config.lock === undefined);
      if (!vm) throw new Error('no running VM');
      const archive = (sim.cluster.state.volumes.find((v) => v.content === 'backup' && v.volid.includes('vzdump-qemu-') && (v.node === undefined || v.node === 'pve1')) as { volid: string }).volid;
      const task = await waitTask(await post('/nodes/pve1/qemu', { vmid: vm.vmid, archive, force: 1 }));
      expect(task.exitstatus).toBe(`unable to restore VM ${vm.vmid} - vm is running`);
      expect(guest(vm.vmid).status).toBe('running');
      expect(guest(vm.vmid).config.lock).toBeUndefined();

      const ct = plain().find((x) => x.type === 'lxc' && x.node === 'pve1');
      if (!ct) throw new Error('no CT');
      const ctArchive = sim.cluster.state.volumes.find((v) => v.content === 'backup' && v.volid.includes('vzdump-lxc-') && (v.node === undefined || v.node === 'pve1'));
      if (!ctArchive) throw new Error('no CT backup');
      const plainCreate = await api('/nodes/pve1/lxc', { method: 'POST', body: { vmid: ct.vmid, ostemplate: ctArchive.volid, restore: 1 } });
      expect(plainCreate.json.message).toBe(`CT ${ct.vmid} already exists on node 'pve1'\n`);
      if (ct.status !== 'running') await waitTask(await post(`/nodes/pve1/lxc/${ct.vmid}/status/start`));
      const running = await api('/nodes/pve1/lxc', { method: 'POST', body: { vmid: ct.vmid, ostemplate: ctArchive.volid, restore: 1, force: 1 } });
      expect(running.json.message).toBe("can't overwrite running container\n");
      await waitTask(await post(`/nodes/pve1/lxc/${ct.vmid}/status/stop`));
      const restored = await waitTask(await post('/nodes/pve1/lxc', { vmid: ct.vmid, ostemplate: ctArchive.volid, restore: 1, force: 1 }));
      expect(restored.exitstatus).toBe('OK');
      expect(sim.cluster.tasks().find((t) => t.type === 'vzrestore' && t.id === String(ct.vmid))?.exitstatus).toBe('OK');
    });
  });

  describe('contacting other hosts (nothing is fetched; every attempt is recorded)', () => {
    const outbound = () => sim.cluster.state.outbound;

    it('query-url-metadata answers from the URL, fails for an unresolvable host, and is recorded', async () => {
      const url = 'https://cdimage.debian.org/debian-cd/current/amd64/iso-cd/debian-13.1.0-amd64-netinst.iso';
      const r = await api(`/nodes/pve1/query-url-metadata?url=${encodeURIComponent(url)}`);
      expect(r.status).toBe(200);
      expect(r.json.data).toMatchObject({ filename: 'debian-13.1.0-amd64-netinst.iso', mimetype: 'application/x-iso9660-image' });
      expect(r.json.data.size).toBeGreaterThan(0);
      expect((await api(`/nodes/pve1/query-url-metadata?url=${encodeURIComponent(url)}`)).json.data).toEqual(r.json.data);
      const bad = await api(`/nodes/pve1/query-url-metadata?url=${encodeURIComponent('http://mirror.invalid/x.iso')}`);
      expect(bad.status).toBe(500);
      expect(bad.json.message).toBe("invalid server response: '500 Can't connect to mirror.invalid:80 (Name or service not known)'\n");
      expect(
        outbound()
          .filter((o) => o.kind === 'query-url-metadata')
          .map((o) => o.url),
      ).toEqual([url, url, 'http://mirror.invalid/x.iso']);
    });

    it('download-url adds the file to the storage content (task download); an unresolvable host fails the task', async () => {
      const url = 'https://releases.example.org/images/tools-1.2.iso';
      const upid = await post('/nodes/pve1/storage/local/download-url', { url, content: 'iso', filename: 'tools-1.2.iso' });
      expect(upid).toContain(':download:tools-1.2.iso:');
      const task = await waitTask(upid);
      expect(task.exitstatus).toBe('OK');
      expect(task.log[0]).toBe(`downloading ${url} to /var/lib/vz/template/iso/tools-1.2.iso`);
      const content = (await api('/nodes/pve1/storage/local/content?content=iso')).json.data as Array<{ volid: string }>;
      expect(content.map((c) => c.volid)).toContain('local:iso/tools-1.2.iso');
      const again = await waitTask(await post('/nodes/pve1/storage/local/download-url', { url, content: 'iso', filename: 'tools-1.2.iso' }));
      expect(again.exitstatus).toBe("refusing to override existing file '/var/lib/vz/template/iso/tools-1.2.iso'");
      const failed = await waitTask(await post('/nodes/pve1/storage/local/download-url', { url: 'https://files.corp/x.iso', content: 'iso', filename: 'x.iso' }));
      expect(failed.exitstatus).toMatch(/^command 'wget --progress=dot:giga -O \/var\/lib\/vz\/template\/iso\/x\.iso\.tmp\.\d+ https:\/\/files\.corp\/x\.iso' failed: exit code 4$/);
      const wrong = await api('/nodes/pve1/storage/local/download-url', { method: 'POST', body: { url, content: 'iso', filename: 'tools.txt' } });
      expect(wrong.json.errors).toEqual({ filename: 'wrong file extension' });
      const block = await api('/nodes/pve1/storage/local-lvm/download-url', { method: 'POST', body: { url, content: 'iso', filename: 'a.iso' } });
      expect(block.json.message).toBe("can't upload to storage type 'lvmthin', not a file based storage!\n");
      expect(outbound().filter((o) => o.kind === 'download-url').length).toBe(3);
    });

    it('remote migration validates locally, then fails as PVE does when the endpoint cannot be reached', async () => {
      const g = plain().find((x) => x.type === 'qemu' && x.status === 'stopped' && x.config.lock === undefined);
      if (!g) throw new Error('no VM');
      const base = `/nodes/${g.node}/qemu/${g.vmid}/remote_migrate`;
      const fp = Array.from({ length: 32 }, () => 'AB').join(':');
      const token = 'apitoken=PVEAPIToken=root@pam!mig=0f0e0d0c-0000-4000-8000-000000000000';
      const missingHost = await api(base, { method: 'POST', body: { 'target-endpoint': token, 'target-storage': 'local-lvm', 'target-bridge': 'vmbr0' } });
      expect(missingHost.status).toBe(400);
      expect(Object.keys(missingHost.json.errors)).toEqual(['target-endpoint']);
      const identity = await api(base, { method: 'POST', body: { 'target-endpoint': `${token},host=10.20.0.5,fingerprint=${fp}`, 'target-storage': '1', 'target-bridge': 'vmbr0' } });
      expect(identity.json.message).toBe('remote migration requires explicit storage mapping!\n');
      const before = outbound().length;
      const refused = await api(base, { method: 'POST', body: { 'target-endpoint': `${token},host=10.20.0.5,fingerprint=${fp}`, 'target-storage': 'local-lvm:ceph', 'target-bridge': 'vmbr0' } });
      expect(refused.status).toBe(500);
      expect(refused.json.message).toBe("Can't connect to 10.20.0.5:8006 (Connection refused)\n");
      const unknown = await api(base, { method: 'POST', body: { 'target-endpoint': `${token},host=pve.remote.invalid,port=8443`, 'target-storage': 'ceph', 'target-bridge': 'vmbr0' } });
      expect(unknown.json.message).toBe("Can't connect to pve.remote.invalid:8443 (Name or service not known)\n");
      expect(
        outbound()
          .slice(before)
          .map((o) => [o.kind, o.url]),
      ).toEqual([
        ['remote-migrate', 'https://10.20.0.5:8006/api2/json'],
        ['remote-migrate', 'https://pve.remote.invalid:8443/api2/json'],
      ]);
      expect(guest(g.vmid).node).toBe(g.node);
      const ha = sim.cluster.guests().find((x) => x.type === 'qemu' && sim.cluster.state.haResources.has(`vm:${x.vmid}`) && x.config.lock === undefined);
      if (ha) {
        const r = await api(`/nodes/${ha.node}/qemu/${ha.vmid}/remote_migrate`, {
          method: 'POST',
          body: { 'target-endpoint': `${token},host=10.20.0.5`, 'target-storage': 'ceph', 'target-bridge': 'vmbr0' },
        });
        expect(r.json.errors).toEqual({ vmid: 'cannot remote-migrate VM that is configured for HA' });
      }
    });
  });

  describe('node startall / stopall / migrateall', () => {
    it('stopall shuts down every running guest of the node (HA-managed ones only when listed)', async () => {
      const node = 'pve3';
      for (const g of plain(node)
        .filter((x) => x.status === 'stopped')
        .slice(0, 2)) {
        await waitTask(await post(`/nodes/${node}/${g.type}/${g.vmid}/status/start`));
      }
      const running = plain(node).filter((g) => g.status === 'running');
      expect(running.length).toBeGreaterThan(0);
      const upid = await post(`/nodes/${node}/stopall`, { timeout: 30 });
      expect(upid).toMatch(new RegExp(`^UPID:${node}:.*:stopall::root@pam!mcp:$`));
      const task = await waitTask(upid);
      expect(task.exitstatus).toBe('OK');
      for (const g of running) {
        expect(guest(g.vmid).status).toBe('stopped');
        expect(task.log).toContain(`Stopping ${g.type === 'qemu' ? 'VM' : 'CT'} ${g.vmid} (timeout = 30 seconds)`);
      }
      // Reverse order: the highest VMID of the last startup group goes first.
      const stops = task.log.filter((l) => l.startsWith('Stopping ')).map((l) => Number(/(\d+) \(/.exec(l)?.[1]));
      expect(stops).toEqual([...stops].sort((a, b) => b - a));
    });

    it('startall starts the onboot guests of the node; with force all of them', async () => {
      const node = 'pve3';
      const onboot = plain(node).filter((g) => g.status === 'stopped' && Number(g.config.onboot ?? 0) === 1);
      const other = plain(node).filter((g) => g.status === 'stopped' && Number(g.config.onboot ?? 0) !== 1);
      const task = await waitTask(await post(`/nodes/${node}/startall`));
      expect(task.exitstatus).toBe('OK');
      for (const g of onboot) expect(guest(g.vmid).status).toBe('running');
      for (const g of other) expect(guest(g.vmid).status).toBe('stopped');
      if (other.length > 0) {
        const forced = await waitTask(await post(`/nodes/${node}/startall`, { force: 1 }));
        expect(forced.exitstatus).toBe('OK');
        for (const g of other) expect(guest(g.vmid).status).toBe('running');
      }
    });

    it('migrateall refuses the local node and a missing worker count; otherwise empties the node', async () => {
      const bad = await api('/nodes/pve3/migrateall', { method: 'POST', body: { target: 'pve3' } });
      expect(bad.status).toBe(400);
      expect(bad.json.errors).toEqual({ target: 'target is local node.' });
      const noWorkers = await api('/nodes/pve3/migrateall', { method: 'POST', body: { target: 'pve2' } });
      expect(noWorkers.status).toBe(500);
      expect(noWorkers.json.message).toBe("either 'max-workers' parameter or max_workers in datacenter.cfg must be set!\n");

      // Stop everything first so no live migration with local disks is needed.
      await waitTask(
        await post('/nodes/pve3/stopall', {
          vms: sim.cluster
            .guests()
            .filter((g) => g.node === 'pve3')
            .map((g) => g.vmid)
            .join(','),
        }),
      );
      const before = sim.cluster.guests().filter((g) => g.node === 'pve3');
      expect(before.length).toBeGreaterThan(0);
      const task = await waitTask(await post('/nodes/pve3/migrateall', { target: 'pve1', 'max-workers': 2 }));
      expect(task.exitstatus).toBe('OK');
      expect(task.log.at(-2)).toMatch(/^All jobs finished, used \d+ workers in total\.$/);
      for (const g of before) expect(guest(g.vmid).node).toBe('pve1');
    });
  });
});

describe.each(variants)('vzdump options and pruning, stepped clock ($name)', ({ schemaFile }) => {
  let sim: RunningSimulator;
  let now = Date.UTC(2026, 5, 1, 10, 0, 0);
  beforeAll(async () => {
    sim = await startTestSimulator({ taskDurationMs: 1000, checkResponses: true, clock: () => now, ...(schemaFile ? { schemaFile } : {}) });
  });
  afterAll(async () => {
    expect(sim.responseProblems).toEqual([]);
    await sim.close();
  });
  const api = (path: string, opts: CallOptions = {}) => call(sim, `/api2/json${path}`, opts);
  const waitTask = async (upid: string) => {
    const node = upid.split(':')[1] as string;
    for (let i = 0; i < 100; i++) {
      now += 1000;
      const st = await api(`/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`);
      if (st.json.data.status === 'stopped') {
        const log = await api(`/nodes/${node}/tasks/${encodeURIComponent(upid)}/log?limit=1000`);
        return { exitstatus: st.json.data.exitstatus as string, log: (log.json.data as Array<{ t: string }>).map((l) => l.t) };
      }
    }
    throw new Error(`task ${upid} did not finish`);
  };
  /** Backups of a guest that pruning may touch (protected ones are never removed). */
  const backupsOf = async (node: string, storage: string, vmid: number) =>
    ((await api(`/nodes/${node}/storage/${storage}/content?content=backup&vmid=${vmid}`)).json.data as Array<{ volid: string; protected?: number }>).filter((v) => !v.protected).map((v) => v.volid);
  const vm = () => {
    const g = sim.cluster.guests().find((x) => x.type === 'qemu' && !x.config.template && x.node === 'pve1' && x.config.lock === undefined);
    if (!g) throw new Error('no VM');
    return g;
  };

  it('remove + prune-backups deletes the backups the retention does not keep, protected ones stay', async () => {
    const g = vm();
    const before = await backupsOf('pve1', 'nas', g.vmid);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      now += 3600_000;
      const r = await api('/nodes/pve1/vzdump', { method: 'POST', body: { vmid: g.vmid, storage: 'nas', 'prune-backups': 'keep-last=2' } });
      expect(r.status, r.statusText).toBe(200);
      const task = await waitTask(r.json.data);
      expect(task.exitstatus).toBe('OK');
      expect(task.log).toContain('INFO: prune older backups with retention: keep-last=2');
      made.push(...(await backupsOf('pve1', 'nas', g.vmid)).filter((v) => !made.includes(v) && !before.includes(v)));
    }
    const after = await backupsOf('pve1', 'nas', g.vmid);
    expect(after.length).toBe(2);
    expect(after).toEqual(expect.arrayContaining(made.slice(-2)));
    expect(after).not.toContain(made[0]);
  });

  it('without remove the retention becomes a limit; the storage prune removes what it does not keep', async () => {
    const g = vm();
    now += 3600_000;
    const r = await api('/nodes/pve1/vzdump', { method: 'POST', body: { vmid: g.vmid, storage: 'nas', 'prune-backups': 'keep-last=2', remove: 0 } });
    const task = await waitTask(r.json.data);
    expect(task.exitstatus).toBe('job errors');
    expect(task.log).toContain(
      `ERROR: Backup of VM ${g.vmid} failed - There is a max backup limit of 2 enforced by the target storage or the vzdump parameters. Either increase the limit or delete old backups.`,
    );
    const dry = await api(`/nodes/pve1/storage/nas/prunebackups?vmid=${g.vmid}&prune-backups=keep-last=1`);
    expect(dry.status).toBe(200);
    const marks = (dry.json.data as Array<{ volid: string; mark: string }>)
      .map((e) => e.mark)
      .filter((m) => m !== 'protected')
      .sort();
    expect(marks).toEqual(['keep', 'remove']);
    const upid = (await api(`/nodes/pve1/storage/nas/prunebackups?vmid=${g.vmid}&prune-backups=keep-last%3D1`, { method: 'DELETE' })).json.data as string;
    expect(upid).toContain(`:prunebackups:${g.vmid}@nas:`);
    const pruned = await waitTask(upid);
    expect(pruned.exitstatus).toBe('OK');
    expect(pruned.log[0]).toMatch(/^removing backup 'nas:backup\/vzdump-qemu-/);
    expect((await backupsOf('pve1', 'nas', g.vmid)).length).toBe(1);
    const none = await api('/nodes/pve1/storage/nas/prunebackups');
    expect(none.json.message).toBe("no prune-backups options configured for storage 'nas'\n");
  });

  it('script, dumpdir, tmpdir and job-id are for root@pam only; a missing hook script fails the job', async () => {
    const g = vm();
    sim.access.addUser('backup@pve', { password: 'x' });
    const tok = sim.access.addToken('backup@pve', 'tok', { privsep: false });
    sim.access.grant({ path: '/', roles: ['PVEAdmin'], users: ['backup@pve'] });
    for (const key of ['script', 'dumpdir', 'tmpdir', 'job-id']) {
      const r = await api('/nodes/pve1/vzdump', { method: 'POST', auth: { tokenHeader: tok.header }, body: { vmid: g.vmid, [key]: '/tmp/x' } });
      expect(r.status).toBe(400);
      expect(r.json.errors).toEqual({ [key]: 'Only root may set this option.' });
    }
    // root@pam itself (a token of root is not root@pam).
    const session = sim.access.ticketFor('root@pam');
    const root = { ticket: session.ticket, csrf: session.CSRFPreventionToken };
    const missing = await api('/nodes/pve1/vzdump', { method: 'POST', auth: root, body: { vmid: g.vmid, storage: 'nas', script: '/var/lib/vz/snippets/hook.pl' } });
    expect(missing.status).toBe(200);
    const failed = await waitTask(missing.json.data);
    expect(failed.exitstatus).toBe("Error: The hook script '/var/lib/vz/snippets/hook.pl' does not exist.");
    sim.cluster.state.volumes.push({ storage: 'local', node: 'pve1', volid: 'local:snippets/hook.pl', content: 'snippets', format: 'snippet', size: 120, ctime: Math.floor(now / 1000) });
    const ok = await waitTask((await api('/nodes/pve1/vzdump', { method: 'POST', auth: root, body: { vmid: g.vmid, storage: 'nas', script: '/var/lib/vz/snippets/hook.pl' } })).json.data);
    expect(ok.exitstatus).toBe('OK');
    const dumpdir = await waitTask((await api('/nodes/pve1/vzdump', { method: 'POST', auth: root, body: { vmid: g.vmid, dumpdir: '/srv/nowhere' } })).json.data);
    expect(dumpdir.exitstatus).toBe("dumpdir '/srv/nowhere' does not exist");
    const tmp = await waitTask((await api('/nodes/pve1/vzdump', { method: 'POST', auth: root, body: { vmid: g.vmid, dumpdir: '/var/lib/vz/dump' } })).json.data);
    expect(tmp.exitstatus).toBe('OK');
    expect((await backupsOf('pve1', 'local', g.vmid)).length).toBeGreaterThan(0);
  });

  it('selection: all/exclude/pool conflict with vmid; guests elsewhere answer OK without a task', async () => {
    const g = vm();
    const conflict = await api('/nodes/pve1/vzdump', { method: 'POST', body: { vmid: g.vmid, all: 1 } });
    expect(conflict.status).toBe(400);
    expect(conflict.json.errors).toEqual({ all: "option conflicts with option 'vmid'" });
    const none = await api('/nodes/pve1/vzdump', { method: 'POST', body: { storage: 'nas' } });
    expect(none.json.errors).toEqual({ vmid: 'property is missing' });
    const elsewhere = sim.cluster.guests().find((x) => x.node === 'pve2') as { vmid: number };
    const ok = await api('/nodes/pve1/vzdump', { method: 'POST', body: { vmid: elsewhere.vmid, storage: 'nas' } });
    expect(ok.json.data).toBe('OK');
    const excluded = await waitTask((await api('/nodes/pve1/vzdump', { method: 'POST', body: { exclude: String(g.vmid), storage: 'nas', mode: 'snapshot' } })).json.data);
    expect(excluded.log[0]).toContain(`--exclude ${g.vmid}`);
    expect(excluded.log.some((l) => l === `INFO: Starting Backup of VM ${g.vmid} (qemu)`)).toBe(false);
  });
});
