import { beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from '../schema/loader.js';
import type { ApiModel, Operation } from '../schema/model.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../schema/official-schemas.js';
import { showsEvidence } from '../schema/evidence.js';
import { callRisk, ESCALATION_RULES, escalatingParams, guestEscalations, needsContainerPrivilege, paramMatches, rulesFor } from './escalations.js';
import { GuestDirectory } from './guests.js';
import type { PveClientLike } from '../client/client-like.js';

const op = (method: Operation['method'], path: string, risk: Operation['risk']) => ({ method, path, risk });
const shutdown = op('POST', '/nodes/{node}/qemu/{vmid}/status/shutdown', 'write');
const qemuConfig = op('PUT', '/nodes/{node}/qemu/{vmid}/config', 'write');
const lxcConfig = op('PUT', '/nodes/{node}/lxc/{vmid}/config', 'write');
const vzdump = op('POST', '/nodes/{node}/vzdump', 'write');

describe('call risk from concrete parameters', () => {
  it('raises only on escalating values and keeps the harmless twin', () => {
    expect(callRisk(shutdown, { forceStop: 1, timeout: 0 }).risk).toBe('destructive');
    expect(callRisk(shutdown, { forceStop: 0 }).risk).toBe('write');
    expect(callRisk(shutdown, { timeout: 30 }).risk).toBe('write');
    expect(callRisk(qemuConfig, { delete: 'scsi1', force: 1 }).risk).toBe('destructive');
    expect(callRisk(qemuConfig, { delete: 'scsi1' }).risk).toBe('write');
    expect(callRisk(qemuConfig, { delete: 'description', force: 1 }).risk).toBe('write');
    expect(callRisk(qemuConfig, { delete: 'unused0' }).risk).toBe('destructive');
    // remove: 1 is PVE's default: the backup prunes by the storage's own retention either way.
    expect(callRisk(vzdump, { vmid: '100', remove: 1 }).risk).toBe(callRisk(vzdump, { vmid: '100' }).risk);
    expect(callRisk(vzdump, { vmid: '100', 'prune-backups': 'keep-last=1' }).risk).toBe('destructive');
    expect(callRisk(vzdump, { vmid: '100', 'prune-backups': 'keep-last=1', remove: 0 }).risk).toBe('write');
    expect(callRisk(vzdump, { vmid: '100', 'prune-backups': 'keep-all=1' }).risk).toBe('write');
    expect(callRisk(vzdump, { vmid: '100', script: '/root/hook.pl' }).risk).toBe('privileged');
    expect(callRisk(vzdump, { vmid: '100', mode: 'snapshot' }).risk).toBe('write');
  });

  it('reads property strings: host paths, host devices, mappings', () => {
    expect(callRisk(lxcConfig, { mp0: '/,mp=/host' }).risk).toBe('privileged');
    expect(callRisk(lxcConfig, { mp0: 'volume=/dev/sda,mp=/mnt' }).risk).toBe('privileged');
    expect(callRisk(lxcConfig, { mp0: 'local-lvm:8,mp=/data' }).risk).toBe('write');
    expect(callRisk(lxcConfig, { dev0: '/dev/sda' }).risk).toBe('privileged');
    expect(callRisk(lxcConfig, { features: 'nesting=1' }).risk).toBe('write');
    expect(callRisk(lxcConfig, { features: 'nesting=1,mknod=1' }).risk).toBe('privileged');
    expect(callRisk(qemuConfig, { hostpci0: '0000:01:00.0' }).risk).toBe('privileged');
    expect(callRisk(qemuConfig, { hostpci0: 'mapping=gpu' }).risk).toBe('write');
    expect(callRisk(qemuConfig, { usb1: 'host=1234:5678' }).risk).toBe('privileged');
    expect(callRisk(qemuConfig, { usb1: 'spice' }).risk).toBe('write');
    expect(callRisk(qemuConfig, { scsi1: '/dev/sdb' }).risk).toBe('privileged');
    expect(callRisk(qemuConfig, { scsi1: 'local-lvm:32,import-from=/var/lib/vz/x.qcow2' }).risk).toBe('privileged');
    expect(callRisk(qemuConfig, { scsi1: 'local-lvm:32' }).risk).toBe('write');
    expect(callRisk(qemuConfig, { serial0: 'socket' }).risk).toBe('write');
    expect(callRisk(qemuConfig, { serial0: '/dev/ttyS0' }).risk).toBe('privileged');
    expect(callRisk(qemuConfig, { sshkeys: 'ssh-ed25519 AAAA' }).risk).toBe('privileged');
    expect(callRisk(qemuConfig, { ciuser: 'admin' }).risk).toBe('privileged');
  });

  it('raises what PVE leaves to root@pam: internal migration parameters, root-only VM options, the host CD drive', () => {
    const start = op('POST', '/nodes/{node}/qemu/{vmid}/status/start', 'write');
    const stop = op('POST', '/nodes/{node}/qemu/{vmid}/status/stop', 'destructive');
    const migrate = op('POST', '/nodes/{node}/qemu/{vmid}/migrate', 'write');
    expect(callRisk(start, { migration_type: 'insecure' }).risk).toBe('privileged');
    expect(callRisk(start, { 'nets-host-mtu': 'net0=1500' }).risk).toBe('privileged');
    expect(callRisk(start, { 'with-conntrack-state': 0, timeout: 30 }).risk).toBe('write');
    expect(callRisk(stop, { migratedfrom: 'pve2' }).risk).toBe('privileged');
    expect(callRisk(stop, { keepActive: 0 }).risk).toBe('destructive');
    expect(callRisk(shutdown, { keepActive: 1 }).escalations).toEqual([expect.objectContaining({ rule: 'keep-active', class: 'root-only' })]);
    expect(callRisk(migrate, { target: 'pve2', migration_network: '10.0.0.0/24' }).risk).toBe('privileged');
    expect(callRisk(migrate, { target: 'pve2', online: 1 }).risk).toBe('write');
    expect(callRisk(qemuConfig, { ivshmem: 'size=64' }).risk).toBe('privileged');
    expect(callRisk(qemuConfig, { vmgenid: '1' }).risk).toBe('privileged');
    expect(callRisk(qemuConfig, { keephugepages: 0 }).risk).toBe('write');
    expect(callRisk(qemuConfig, { ide2: 'cdrom,media=cdrom' }).escalations).toEqual([expect.objectContaining({ rule: 'qemu-host-cdrom' })]);
    expect(callRisk(qemuConfig, { ide2: 'local:iso/debian.iso,media=cdrom' }).risk).toBe('write');
    expect(callRisk(qemuConfig, { hostpci0: 'mapping=gpu,romfile=../../../etc/shadow' }).risk).toBe('privileged');
  });

  it('asks whether a configured container is privileged only for a feature flag no rule raised, and raises it then', async () => {
    const path = '/nodes/{node}/lxc/{vmid}/config';
    const nesting = { features: 'nesting=1' };
    const raisedAlready = callRisk(lxcConfig, { features: 'nesting=1,mknod=1' }).escalations;
    expect(needsContainerPrivilege('PUT', path, nesting, [])).toBe(true);
    expect(needsContainerPrivilege('PUT', path, { features: 'nesting=1,mknod=1' }, raisedAlready)).toBe(false);
    expect(needsContainerPrivilege('PUT', path, { description: 'x' }, [])).toBe(false);
    expect(needsContainerPrivilege('PUT', '/nodes/{node}/qemu/{vmid}/config', nesting, [])).toBe(false);
    expect(needsContainerPrivilege('POST', '/nodes/{node}/lxc', nesting, [])).toBe(false);
    expect(guestEscalations('PUT', path, nesting, { guests: [{}], privilegedContainer: true })).toEqual([expect.objectContaining({ rule: 'ct-features', risk: 'privileged', param: 'features' })]);
    expect(guestEscalations('PUT', path, nesting, { guests: [{}], privilegedContainer: false })).toEqual([]);
    expect(guestEscalations('PUT', path, nesting, { guests: [{}] })).toEqual([]);

    const asked: string[] = [];
    const configs: Record<string, unknown> = { '/nodes/pve1/lxc/200/config': { hostname: 'a' }, '/nodes/pve1/lxc/201/config': { unprivileged: 1 } };
    const client = {
      request: async (_m: string, p: string) => {
        asked.push(p);
        if (!(p in configs)) throw new Error('no such container');
        return configs[p];
      },
    } as unknown as PveClientLike;
    const directory = new GuestDirectory(() => client);
    expect(await directory.containerPrivileged('c', 'pve1', 200)).toBe(true);
    expect(await directory.containerPrivileged('c', 'pve1', 201)).toBe(false);
    // Asked each time: a VMID restored privileged later in the run is judged by its new config.
    configs['/nodes/pve1/lxc/201/config'] = {};
    expect(await directory.containerPrivileged('c', 'pve1', 201)).toBe(true);
    expect(asked).toEqual(['/nodes/pve1/lxc/200/config', '/nodes/pve1/lxc/201/config', '/nodes/pve1/lxc/201/config']);
    await expect(directory.containerPrivileged('c', 'pve1', 202)).rejects.toThrow(/no such container/);
  });

  it('raises the storage definitions the Ceph and disk handlers write as a side effect', () => {
    const pool = op('POST', '/nodes/{node}/ceph/pool', 'write');
    const pools73 = op('POST', '/nodes/{node}/ceph/pools', 'write');
    const poolDelete = op('DELETE', '/nodes/{node}/ceph/pool/{name}', 'destructive');
    const fs = op('POST', '/nodes/{node}/ceph/fs/{name}', 'write');
    const vgDelete = op('DELETE', '/nodes/{node}/disks/lvm/{name}', 'destructive');
    expect(callRisk(pool, { name: 'p', add_storages: 1 }).risk).toBe('privileged');
    expect(callRisk(pools73, { name: 'p', add_storages: 'true' }).risk).toBe('privileged');
    expect(callRisk(pool, { name: 'p' }).risk).toBe('write');
    expect(callRisk(pool, { name: 'p', add_storages: 0 }).risk).toBe('write');
    // pveceph adds an erasure-coded pool's storages unless told not to.
    expect(callRisk(pool, { name: 'p', 'erasure-coding': 'k=2,m=1' }).escalations).toEqual([expect.objectContaining({ rule: 'ceph-pool-add-storages', class: 'storage-definition' })]);
    expect(callRisk(pool, { name: 'p', 'erasure-coding': 'k=2,m=1', add_storages: 0 }).risk).toBe('write');
    expect(callRisk(poolDelete, { remove_storages: 1 }).risk).toBe('privileged');
    expect(callRisk(poolDelete, { force: 1 }).risk).toBe('destructive');
    expect(callRisk(fs, { 'add-storage': 1 }).risk).toBe('privileged');
    expect(callRisk(fs, { pg_num: 64 }).risk).toBe('write');
    expect(callRisk(vgDelete, { 'cleanup-config': 1 }).risk).toBe('privileged');
    expect(callRisk(vgDelete, { 'cleanup-disks': 1 }).risk).toBe('destructive');
  });

  it('counts any feature flag of a container created privileged, nesting included', () => {
    const create = op('POST', '/nodes/{node}/lxc', 'write');
    const features = (params: Record<string, unknown>) => callRisk(create, params).escalations.filter((e) => e.rule === 'ct-features');
    expect(features({ features: 'nesting=1' })).toEqual([]);
    expect(features({ features: 'nesting=1', unprivileged: 1 })).toEqual([]);
    expect(features({ features: 'nesting=1', unprivileged: 0 })).toHaveLength(1);
    // A restore checks before it reads the backup: without unprivileged 1 the container counts as privileged.
    expect(features({ features: 'nesting=1', restore: 1 })).toHaveLength(1);
    expect(features({ features: 'nesting=1', restore: 1, unprivileged: 1 })).toEqual([]);
  });

  it('an action on every guest is destructive; the same action on a list is not', () => {
    const bulk = op('POST', '/cluster/bulk-action/guest/shutdown', 'write');
    expect(callRisk(bulk, {}).risk).toBe('destructive');
    expect(callRisk(bulk, { vms: [] }).risk).toBe('destructive');
    expect(callRisk(bulk, { vms: [100, 101], 'force-stop': 0 }).risk).toBe('write');
    // force-stop defaults to 1 in PVE: without it the shutdown is a forced one.
    expect(callRisk(bulk, { vms: [100, 101] }).risk).toBe('destructive');
    expect(callRisk(bulk, { vms: [100], 'force-stop': 1 }).risk).toBe('destructive');
    const startall = op('POST', '/nodes/{node}/startall', 'write');
    expect(callRisk(startall, {}).risk).toBe('destructive');
    expect(callRisk(startall, { vms: '100,101' }).risk).toBe('write');
  });

  it('names the parameter and the rule of each escalation', () => {
    expect(callRisk(vzdump, { vmid: '100', script: '/x', 'prune-backups': 'keep-last=1' }).escalations).toEqual([
      expect.objectContaining({ rule: 'backup-prune-backups', param: 'prune-backups', risk: 'destructive' }),
      expect.objectContaining({ rule: 'backup-script', param: 'script', risk: 'privileged', class: 'host-exec' }),
    ]);
  });

  it('matches indexed families by their base only', () => {
    expect(paramMatches('hostpci[n]', 'hostpci3')).toBe(true);
    expect(paramMatches('hostpci[n]', 'hostpci')).toBe(false);
    expect(paramMatches('mp[n]', 'mpx1')).toBe(false);
  });
});

describe.skipIf(!hasOfficialSchema('9.1'))(`escalation rules against the PVE 9.1 schema (skipped when absent: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`, () => {
  let model: ApiModel;
  beforeAll(async () => {
    model = await loadSchemaFromFile(officialSchemaFile('9.1'));
  });

  // A rule that names a parameter the schema no longer has, whose parameter no longer shows the
  // evidence, or that raises no operation above its own class has rotted: this fails.
  for (const rule of ESCALATION_RULES) {
    it(`${rule.id}: its parameters exist with their evidence and raise the class`, () => {
      const ops = model.operations.filter((o) => rulesFor(o).includes(rule));
      expect(ops.length, `${rule.id} applies to no operation`).toBeGreaterThan(0);
      for (const param of rule.params) {
        const carriers = ops.filter((o) => o.params.some((p) => paramMatches(param, p.name) || p.name === param));
        expect(carriers.length, `${rule.id}: no operation it applies to has '${param}'`).toBeGreaterThan(0);
        const withEvidence = carriers.filter((o) => o.params.some((p) => (paramMatches(param, p.name) || p.name === param) && showsEvidence(p, rule.evidence)));
        expect(withEvidence.length, `${rule.id}: '${param}' does not show its evidence ${String(Object.values(rule.evidence)[0])}`).toBeGreaterThan(0);
        expect(
          withEvidence.some((o) => escalatingParams(o).some((e) => e.rule === rule)),
          `${rule.id}: '${param}' raises no operation above its own class`,
        ).toBe(true);
      }
    });
  }

  it('every parameter PVE documents as root-only is covered by an escalation or a privileged operation', () => {
    const uncovered: string[] = [];
    for (const o of model.operations) {
      if (o.risk === 'privileged') continue;
      for (const p of o.params) {
        if (!/only root|root@pam|requires 'root/i.test(p.description ?? '')) continue;
        if (!escalatingParams(o).some((e) => paramMatches(e.param, p.name) || e.param === p.name)) uncovered.push(`${o.key} ${p.name}`);
      }
    }
    expect(uncovered).toEqual([]);
  });
});

describe('docs/risk-classes.md', () => {
  it('lists every escalation rule', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(new URL('../../docs/risk-classes.md', import.meta.url), 'utf8');
    for (const rule of ESCALATION_RULES) expect(doc, rule.id).toContain(`| \`${rule.id}\` | ${rule.class} | ${rule.risk} |`);
  });
});
