/**
 * The simulated cluster's own operation descriptions against Proxmox's official 9.1 schema (read
 * at test time from PVE_SCHEMA_DIR, never copied): same paths and methods, parameter names, types,
 * formats (inline property-string formats key by key), optional-ness and enums, every required
 * official parameter declared, the same permission checks, proxying and return types. A scripted
 * session of writes then runs over HTTPS against the simulator serving the official file with
 * response checking on, so every answer validates against the official return schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from '../../src/schema/loader.js';
import type { ApiModel, Operation, ParamSpec, SchemaNode } from '../../src/schema/model.js';
import { hasOfficialSchema, OFFICIAL_SCHEMA_SKIP_MESSAGE, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { createCluster } from '../../src/simulator/cluster/index.js';
import type { SimEndpoint } from '../../src/simulator/contract.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call, startTestSimulator } from './helpers.js';

const available = hasOfficialSchema('9.1');
const title = 'simulated cluster conformance with the official 9.1 schema';

const isOptional = (n: SchemaNode): boolean => n.optional === 1 || n.optional === true;

/** Inline property-string formats: every own key exists officially with the same type (aliases as aliases). */
function inlineFormatProblems(own: Record<string, SchemaNode>, official: Record<string, SchemaNode>): string[] {
  const out: string[] = [];
  for (const [key, node] of Object.entries(own)) {
    const off = official[key];
    if (!off) {
      out.push(`format key '${key}' not in the official format`);
      continue;
    }
    if (node.alias !== undefined || off.alias !== undefined) {
      if (node.alias !== off.alias) out.push(`format key '${key}': alias ${String(node.alias)} vs official ${String(off.alias)}`);
      continue;
    }
    if (node.type !== off.type) out.push(`format key '${key}': type ${String(node.type)} vs official ${String(off.type)}`);
    if (isOptional(node) !== isOptional(off)) out.push(`format key '${key}': optional ${isOptional(node)} vs official ${isOptional(off)}`);
    if (typeof off.format === 'string' && node.format !== off.format) out.push(`format key '${key}': format ${String(node.format)} vs official ${off.format}`);
    if (Boolean(node.default_key) !== Boolean(off.default_key)) out.push(`format key '${key}': default_key differs`);
  }
  return out;
}

function paramProblems(name: string, own: SchemaNode, off: ParamSpec | undefined): string[] {
  if (!off) return [`${name}: not in the official schema`];
  const out: string[] = [];
  if (own.type !== off.type) out.push(`${name}: type ${String(own.type)} vs official ${off.type}`);
  if (isOptional(own) !== off.optional) out.push(`${name}: optional ${isOptional(own)} vs official ${off.optional}`);
  if (typeof off.format === 'string' && own.format !== off.format) out.push(`${name}: format ${String(own.format)} vs official ${off.format}`);
  if (typeof off.format === 'object') {
    if (typeof own.format === 'object') out.push(...inlineFormatProblems(own.format, off.format).map((p) => `${name}: ${p}`));
    else if (own.format !== undefined) out.push(`${name}: named format ${String(own.format)} where the official one is inline`);
  }
  if (off.format === undefined && own.format !== undefined) out.push(`${name}: format ${JSON.stringify(own.format)} but none officially`);
  if (own.enum && off.enum) {
    const extra = own.enum.filter((v) => !off.enum?.includes(String(v)));
    if (extra.length > 0) out.push(`${name}: enum values ${extra.join('|')} not official`);
  }
  if (own.enum && !off.enum) out.push(`${name}: enum where the official parameter has none`);
  for (const bound of ['minimum', 'maximum', 'maxLength'] as const) {
    if (own[bound] !== undefined && own[bound] !== off[bound]) out.push(`${name}: ${bound} ${String(own[bound])} vs official ${String(off[bound])}`);
  }
  return out;
}

/** Declared return type and, for objects and list items, each declared property's type. */
function returnProblems(own: SchemaNode, off: SchemaNode): string[] {
  const out: string[] = [];
  if ((own.type ?? 'null') !== (off.type ?? 'null')) return [`returns ${String(own.type)} vs official ${String(off.type)}`];
  const ownProps = own.type === 'array' ? own.items?.properties : own.properties;
  const offProps = off.type === 'array' ? off.items?.properties : off.properties;
  if (!ownProps || !offProps || Object.keys(offProps).length === 0) return out;
  for (const [key, node] of Object.entries(ownProps)) {
    // Official return schemas write indexed options once, as `net[n]`.
    const o = offProps[key] ?? offProps[key.replace(/\d+$/, '[n]')];
    if (!o) {
      out.push(`returns property '${key}' is not declared officially`);
      continue;
    }
    if (o.type !== undefined && node.type !== o.type) out.push(`returns property '${key}': ${String(node.type)} vs official ${String(o.type)}`);
  }
  return out;
}

function endpointProblems(e: SimEndpoint, off: Operation): string[] {
  const out: string[] = [];
  const byName = new Map(off.params.map((p) => [p.name, p]));
  for (const [name, node] of Object.entries(e.parameters)) out.push(...paramProblems(name, node, byName.get(name)));
  for (const p of off.params) if (!p.optional && !(p.name in e.parameters)) out.push(`${p.name}: required officially but not declared`);
  if (JSON.stringify(e.permissions.check ?? null) !== JSON.stringify(off.permissions?.check ?? null)) {
    out.push(`permission check ${JSON.stringify(e.permissions.check)} vs official ${JSON.stringify(off.permissions?.check)}`);
  }
  if ((e.permissions.user ?? '') !== (off.permissions?.user ?? '')) out.push(`permission user ${String(e.permissions.user)} vs official ${String(off.permissions?.user)}`);
  if ((e.proxyto ?? '') !== (off.proxyto ?? '')) out.push(`proxyto ${String(e.proxyto)} vs official ${String(off.proxyto)}`);
  if (Boolean(e.protected) !== off.protected) out.push(`protected ${Boolean(e.protected)} vs official ${off.protected}`);
  if ((e.allowtoken ?? true) !== off.allowtoken) out.push(`allowtoken ${String(e.allowtoken ?? true)} vs official ${off.allowtoken}`);
  out.push(...returnProblems(e.returns, off.returns));
  return out.map((p) => `${e.method} ${e.path} ${p}`);
}

describe.skipIf(!available)(available ? title : `${title} (${OFFICIAL_SCHEMA_SKIP_MESSAGE} to run)`, () => {
  let official: ApiModel;
  const endpoints = createCluster({ preset: 'demo' }).endpoints();

  beforeAll(async () => {
    official = await loadSchemaFromFile(officialSchemaFile('9.1'));
  });

  it('implements at least the daily operations, each present in the official schema', () => {
    const missing = endpoints.filter((e) => !official.get(e.method, e.path)).map((e) => `${e.method} ${e.path}`);
    expect(missing).toEqual([]);
    expect(endpoints.length).toBeGreaterThanOrEqual(80);
  });

  it('declares parameters, permissions, proxying and return types as the official schema does', () => {
    const problems = endpoints.flatMap((e) => {
      const off = official.get(e.method, e.path);
      return off ? endpointProblems(e, off) : [];
    });
    expect(problems).toEqual([]);
  });

  describe('a session of writes over HTTPS against the official schema, with response checking', () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startTestSimulator({ schemaFile: officialSchemaFile('9.1'), checkResponses: true, taskDurationMs: 0 });
    });
    afterAll(async () => {
      await sim?.close();
    });

    type Body = Record<string, string | number>;
    const api = async (method: string, path: string, body?: Body): Promise<any> => {
      const query = method === 'GET' || method === 'DELETE' ? `?${new URLSearchParams(Object.entries(body ?? {}).map(([k, v]) => [k, String(v)]))}` : '';
      const r = await call(sim, `/api2/json${path}${query === '?' ? '' : query}`, { method, ...(method === 'POST' || method === 'PUT' ? { body: body ?? {} } : {}) });
      expect(r.status, `${method} ${path}: ${r.statusText}`).toBe(200);
      return r.json.data;
    };
    /** Runs a task-starting call and returns the task's exit status (tasks take 0 ms here). */
    const task = async (method: string, path: string, body?: Body): Promise<string> => {
      const upid = (await api(method, path, body)) as string;
      const node = upid.split(':')[1];
      const st = await api('GET', `/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`);
      await api('GET', `/nodes/${node}/tasks/${encodeURIComponent(upid)}/log`, { start: 0, limit: 0 });
      return st.exitstatus as string;
    };

    it('guest lifecycle, config, power, snapshots, clone, migrate, template', async () => {
      const vm = '/nodes/pve1/qemu/500';
      expect(await task('POST', '/nodes/pve1/qemu', { vmid: 500, name: 'conf-vm', memory: '2048', cores: 2, scsi0: 'local-lvm:8', net0: 'virtio,bridge=vmbr0', pool: 'development', agent: '1' })).toBe(
        'OK',
      );
      const cfg = await api('GET', `${vm}/config`);
      await api('PUT', `${vm}/config`, { description: 'conformance', digest: cfg.digest });
      expect(await task('POST', `${vm}/config`, { cores: 4, delete: 'description' })).toBe('OK');
      await api('GET', `${vm}/pending`);
      await api('GET', vm);
      await api('GET', `${vm}/status`);
      expect(await task('POST', `${vm}/status/start`)).toBe('OK');
      await api('PUT', `${vm}/config`, { sockets: 2 });
      await api('GET', `${vm}/pending`);
      await api('GET', `${vm}/status/current`);
      await api('GET', `${vm}/agent`);
      await api('POST', `${vm}/agent/ping`);
      await api('GET', `${vm}/agent/network-get-interfaces`);
      await api('GET', `${vm}/agent/get-osinfo`);
      await api('GET', `${vm}/agent/get-host-name`);
      for (const action of ['suspend', 'resume', 'reset', 'reboot', 'shutdown']) expect(await task('POST', `${vm}/status/${action}`), action).toBe('OK');
      expect(await task('POST', `${vm}/snapshot`, { snapname: 'first', description: 'before changes' })).toBe('OK');
      await api('GET', `${vm}/snapshot`);
      await api('GET', `${vm}/snapshot/first`);
      await api('GET', `${vm}/snapshot/first/config`);
      await api('PUT', `${vm}/snapshot/first/config`, { description: 'renamed' });
      expect(await task('POST', `${vm}/snapshot/first/rollback`)).toBe('OK');
      expect(await task('PUT', `${vm}/resize`, { disk: 'scsi0', size: '+1G' })).toBe('OK');
      expect(await task('DELETE', `${vm}/snapshot/first`)).toBe('OK');
      expect(await task('POST', `${vm}/clone`, { newid: 501, name: 'conf-clone', full: 1 })).toBe('OK');
      await api('GET', `${vm}/migrate`, { target: 'pve2' });
      expect(await task('POST', `${vm}/migrate`, { target: 'pve2', 'with-local-disks': 1 })).toBe('OK');
      expect(await task('POST', '/nodes/pve1/qemu/501/template')).toBe('OK');
      expect(await task('DELETE', '/nodes/pve2/qemu/500', { purge: 1 })).toBe('OK');
      expect(await task('DELETE', '/nodes/pve1/qemu/501')).toBe('OK');
    });

    it('containers', async () => {
      const ct = '/nodes/pve2/lxc/600';
      const template = sim.cluster.state.volumes.find((v) => v.content === 'vztmpl')?.volid ?? '';
      expect(await task('POST', '/nodes/pve2/lxc', { vmid: 600, ostemplate: template, hostname: 'conf-ct', rootfs: 'local-lvm:4', memory: 512, net0: 'name=eth0,bridge=vmbr0,ip=dhcp' })).toBe('OK');
      await api('PUT', `${ct}/config`, { memory: 1024, description: 'conformance' });
      await api('GET', `${ct}/config`);
      expect(await task('POST', `${ct}/status/start`)).toBe('OK');
      await api('GET', `${ct}/interfaces`);
      await api('GET', `${ct}/status/current`);
      expect(await task('POST', `${ct}/status/reboot`)).toBe('OK');
      expect(await task('POST', `${ct}/snapshot`, { snapname: 'clean' })).toBe('OK');
      expect(await task('POST', `${ct}/snapshot/clean/rollback`, { start: 1 })).toBe('OK');
      expect(await task('POST', `${ct}/status/shutdown`)).toBe('OK');
      expect(await task('PUT', `${ct}/resize`, { disk: 'rootfs', size: '6G' })).toBe('OK');
      expect(await task('POST', `${ct}/clone`, { newid: 601, hostname: 'conf-ct-copy' })).toBe('OK');
      await api('GET', `${ct}/migrate`);
      expect(await task('POST', `${ct}/migrate`, { target: 'pve3' })).toBe('OK');
      expect(await api('POST', '/nodes/pve2/lxc/601/template')).toBeNull();
      expect(await task('DELETE', '/nodes/pve3/lxc/600')).toBe('OK');
    });

    it('pools, backups, HA, storage and cluster views', async () => {
      await api('POST', '/pools', { poolid: 'conformance', comment: 'test pool' });
      const victim = sim.cluster.guests().find((g) => !g.pool && !g.config.template) ?? sim.cluster.guests()[0];
      await api('PUT', '/pools/conformance', { vms: String(victim?.vmid), 'allow-move': 1 });
      await api('GET', '/pools/conformance');
      await api('GET', '/pools', { poolid: 'conformance' });
      await api('PUT', '/pools', { poolid: 'conformance', vms: String(victim?.vmid), delete: 1 });
      await api('DELETE', '/pools/conformance');

      await api('POST', '/cluster/backup', { id: 'conformance-job', schedule: 'sun 01:30', storage: 'nas', vmid: '100,101', mode: 'snapshot', 'prune-backups': 'keep-last=3' });
      await api('GET', '/cluster/backup');
      await api('GET', '/cluster/backup/conformance-job');
      await api('PUT', '/cluster/backup/conformance-job', { enabled: 0, comment: 'paused' });
      await api('DELETE', '/cluster/backup/conformance-job');
      await api('GET', '/cluster/backup-info/not-backed-up');
      const onPve1 = sim.cluster.guests().filter((g) => g.node === 'pve1' && !g.config.template && !g.config.lock);
      expect(
        await task('POST', '/nodes/pve1/vzdump', {
          vmid: onPve1
            .slice(0, 2)
            .map((g) => g.vmid)
            .join(','),
          storage: 'nas',
          compress: 'zstd',
          'notes-template': '{{guestname}}',
        }),
      ).toBe('OK');

      const haGuest = sim.cluster.guests().find((g) => g.type === 'qemu' && !g.config.template && !sim.cluster.state.haResources.has(`vm:${g.vmid}`));
      await api('POST', '/cluster/ha/resources', { sid: `vm:${haGuest?.vmid}`, state: 'started', max_restart: 2 });
      await api('GET', '/cluster/ha/resources');
      await api('GET', `/cluster/ha/resources/vm:${haGuest?.vmid}`);
      await api('PUT', `/cluster/ha/resources/vm:${haGuest?.vmid}`, { state: 'stopped' });
      await api('GET', '/cluster/ha/status/current');
      await api('DELETE', `/cluster/ha/resources/vm:${haGuest?.vmid}`);

      const backup = sim.cluster.state.volumes.find((v) => v.content === 'backup' && !v.protected);
      await api('GET', `/nodes/pve1/storage/nas/content/${encodeURIComponent(backup?.volid ?? '')}`);
      await api('PUT', `/nodes/pve1/storage/nas/content/${encodeURIComponent(backup?.volid ?? '')}`, { notes: 'checked', protected: 0 });
      const volid = (await api('POST', '/nodes/pve1/storage/local-lvm/content', { vmid: 100, filename: 'vm-100-disk-9', size: '1G' })) as string;
      expect(await task('DELETE', `/nodes/pve1/storage/local-lvm/content/${encodeURIComponent(volid)}`)).toBe('OK');
      await api('GET', '/nodes/pve1/storage', { content: 'images', format: 1 });
      await api('GET', '/nodes/pve1/storage/nas/status');
      await api('GET', '/nodes/pve1/storage/nas/content', { content: 'backup' });
      await api('GET', '/storage');

      for (const type of ['vm', 'storage', 'node', 'sdn']) await api('GET', '/cluster/resources', { type });
      await api('GET', '/cluster/resources');
      await api('GET', '/cluster/status');
      await api('GET', '/cluster/nextid');
      await api('GET', '/cluster/tasks');
      await api('GET', '/cluster/options');
      await api('GET', '/nodes/pve1/tasks', { source: 'all', limit: 10, errors: 1 });
      await api('GET', '/nodes/pve1/network', { type: 'any_bridge' });
      await api('GET', '/nodes/pve1/status');
      await api('GET', '/nodes/pve1/version');
      await api('GET', '/nodes');
      await api('GET', '/version');
      expect(sim.responseProblems).toEqual([]);
    });

    afterAll(() => {
      expect(sim.responseProblems).toEqual([]);
    });
  });
});
