/**
 * Corpus cases for deny path rules that pin a whole guest, node, pool or storage
 * (src/policy/path-rule-targets.ts): each reaches the pinned target through a path the rule's own
 * glob does not match — HA, bulk actions, startall/stopall/migrateall with `vms`, pool-wide calls,
 * backups, moves and restores on a storage — and must be refused as if a target rule named it.
 * Each policy has only its deny rule (admin preset, no approval), so the guard `{policy: 'deny'}`
 * shows the call would run without it. Same simulator layout as corpus.ts: pve3 runs 102 105 108
 * 111 114 117 120 123 126; pool infra holds 104-106, 114-116, 124-126.
 */
import type { HttpMethod } from '../../src/schema/model.js';
import type { CorpusCall, CorpusCase } from './corpus.js';

const open = { preset: 'admin', approval: { require: [] }, budget: { guests: 100 } };

export const PATH_RULE_POLICIES: Record<string, Record<string, unknown>> = {
  pinvm: { ...open, deny: ['* /nodes/*/qemu/100/**'] },
  pinnode: { ...open, deny: ['* /nodes/pve3/**'] },
  pinpool: { ...open, deny: ['POST,PUT,DELETE /pools/infra/**'] },
  pinstore: { ...open, deny: ['* /nodes/*/storage/nas/**'] },
  pinread: { preset: 'read-only', deny: ['GET /nodes/*/lxc/106/**'] },
};

const call = (method: HttpMethod, path: string, params?: Record<string, unknown>): CorpusCall => ({ method, path, ...(params ? { params } : {}) });
const bulk = (action: string, params?: Record<string, unknown>) => call('POST', `/cluster/bulk-action/guest/${action}`, params);
const vzdump = '/nodes/pve1/vzdump';

function pinned(id: string, cluster: keyof typeof PATH_RULE_POLICIES, c: CorpusCall, why: RegExp, twin: CorpusCall): CorpusCase {
  return { id: `path-rule-${id}`, class: 'path-rules', cluster, call: c, expect: 'denied', why, twin: { call: twin }, guard: { policy: 'deny' } };
}

const vm100 = /VMID 100 .*'web-01'.*deny\[0\] '\* \/nodes\/\*\/qemu\/100\/\*\*' \(as target rule/;
const pve3 = /(node pve3|VMID 1\d\d\b).*deny\[0\] '\* \/nodes\/pve3\/\*\*' \(as target rule/;
const infra = /(pool infra|VMID 1\d\d\b).*deny\[0\] 'POST,PUT,DELETE \/pools\/infra\/\*\*' \(as target rule/;
const nas = /storage nas.*deny\[0\] '\* \/nodes\/\*\/storage\/nas\/\*\*' \(as target rule/;

export const PATH_RULE_CORPUS: CorpusCase[] = [
  // --- `* /nodes/*/qemu/100/**`: VM 100 from every path ---
  pinned('ha-stop', 'pinvm', call('POST', '/cluster/ha/resources', { sid: 'vm:100', state: 'stopped' }), vm100, call('PUT', '/cluster/ha/resources/vm:101', { state: 'started' })),
  pinned('ha-bare-vmid', 'pinvm', call('PUT', '/cluster/ha/resources/100', { state: 'disabled' }), vm100, call('PUT', '/cluster/ha/resources/111', { state: 'started' })),
  pinned('ha-migrate', 'pinvm', call('POST', '/cluster/ha/resources/vm:100/migrate', { node: 'pve2' }), vm100, call('POST', '/cluster/ha/resources/vm:121/migrate', { node: 'pve2' })),
  pinned('migrateall-vms', 'pinvm', call('POST', '/nodes/pve1/migrateall', { target: 'pve2', vms: '100' }), vm100, call('POST', '/nodes/pve1/migrateall', { target: 'pve2', vms: '112' })),
  pinned('migrateall-every', 'pinvm', call('POST', '/nodes/pve1/migrateall', { target: 'pve2' }), vm100, call('POST', '/nodes/pve1/migrateall', { target: 'pve2', vms: '124' })),
  pinned('bulk-migrate', 'pinvm', bulk('migrate', { target: 'pve3', vms: [112, 100] }), vm100, bulk('migrate', { target: 'pve3', vms: [127] })),
  pinned('bulk-shutdown', 'pinvm', bulk('shutdown', { vms: [100] }), vm100, bulk('shutdown', { vms: [103] })),
  pinned('bulk-start-every', 'pinvm', bulk('start'), vm100, bulk('start', { vms: [118] })),
  pinned('stopall-vms', 'pinvm', call('POST', '/nodes/pve1/stopall', { vms: '100' }), vm100, call('POST', '/nodes/pve1/stopall', { vms: '115' })),
  pinned('startall-vms', 'pinvm', call('POST', '/nodes/pve1/startall', { vms: '118,100' }), vm100, call('POST', '/nodes/pve1/startall', { vms: '118' })),
  pinned(
    'foreign-volume',
    'pinvm',
    call('PUT', '/nodes/pve1/qemu/118/config', { scsi6: 'ceph:vm-100-disk-0' }),
    /VMID 100 \(its volume\).*as target rule/,
    call('PUT', '/nodes/pve1/qemu/118/config', { scsi6: 'local-lvm:1' }),
  ),
  pinned('backup-pool', 'pinvm', call('POST', vzdump, { pool: 'production', storage: 'nas' }), vm100, call('POST', vzdump, { vmid: '118', storage: 'nas' })),
  pinned('pool-move', 'pinvm', call('PUT', '/pools', { poolid: 'development', vms: '100', 'allow-move': 1 }), vm100, call('PUT', '/pools', { poolid: 'development', comment: 'corpus twin' })),
  // --- `* /nodes/pve3/**`: node pve3 and its guests, from cluster paths ---
  pinned('node-bulk-migrate', 'pinnode', bulk('migrate', { target: 'pve1', vms: [102] }), pve3, bulk('migrate', { target: 'pve1', vms: [128] })),
  pinned('node-migrate-to', 'pinnode', call('POST', '/nodes/pve1/qemu/118/migrate', { target: 'pve3' }), pve3, call('POST', '/nodes/pve1/qemu/118/migrate', { target: 'pve2' })),
  pinned('node-ha-guest', 'pinnode', call('POST', '/cluster/ha/resources', { sid: 'vm:108', state: 'stopped' }), pve3, call('POST', '/cluster/ha/resources', { sid: 'vm:128', state: 'stopped' })),
  pinned(
    'node-ha-rule',
    'pinnode',
    call('POST', '/cluster/ha/rules', { rule: 'corpus-pin3', type: 'node-affinity', resources: 'vm:101', nodes: 'pve3' }),
    pve3,
    call('POST', '/cluster/ha/rules', { rule: 'corpus-pin2', type: 'node-affinity', resources: 'vm:101', nodes: 'pve2' }),
  ),
  pinned('node-bulk-every', 'pinnode', bulk('suspend'), pve3, bulk('suspend', { vms: [128] })),
  pinned(
    'node-backup-job-all',
    'pinnode',
    call('POST', '/cluster/backup', { schedule: 'sun 02:00', all: 1, storage: 'nas' }),
    pve3,
    call('POST', '/cluster/backup', { schedule: 'sun 02:00', vmid: '128', storage: 'nas' }),
  ),
  // --- `POST,PUT,DELETE /pools/infra/**`: the pool and its guests ---
  pinned('pool-put-by-param', 'pinpool', call('PUT', '/pools', { poolid: 'infra', vms: '118', 'allow-move': 1 }), infra, call('PUT', '/pools', { poolid: 'development', comment: 'corpus twin 2' })),
  pinned('pool-delete-by-param', 'pinpool', call('DELETE', '/pools', { poolid: 'infra' }), infra, call('PUT', '/pools', { poolid: 'production', comment: 'corpus twin' })),
  pinned('pool-guest-bulk', 'pinpool', bulk('shutdown', { vms: [106] }), infra, bulk('shutdown', { vms: [118] })),
  pinned('pool-backup', 'pinpool', call('POST', vzdump, { pool: 'infra', storage: 'nas' }), infra, call('POST', vzdump, { pool: 'development', storage: 'nas' })),
  pinned('pool-ha-guest', 'pinpool', call('POST', '/cluster/ha/resources', { sid: 'ct:115', state: 'stopped' }), infra, call('POST', '/cluster/ha/resources', { sid: 'vm:122', state: 'stopped' })),
  // --- `* /nodes/*/storage/nas/**`: what deletes or writes on nas through other paths ---
  pinned('store-backup-prune', 'pinstore', call('POST', vzdump, { vmid: '118', storage: 'nas', remove: 1 }), nas, call('POST', vzdump, { vmid: '118', storage: 'local', remove: 1 })),
  pinned(
    'store-move-delete',
    'pinstore',
    call('POST', '/nodes/pve1/qemu/118/move_disk', { disk: 'scsi0', storage: 'nas', delete: 1 }),
    nas,
    call('POST', '/nodes/pve1/qemu/118/move_disk', { disk: 'scsi0', storage: 'ceph', delete: 1 }),
  ),
  pinned(
    'store-restore',
    'pinstore',
    call('POST', '/nodes/pve1/qemu', { vmid: 997, archive: 'nas:backup/vzdump-qemu-118-2026_01_01-00_00_00.vma.zst' }),
    nas,
    call('POST', '/nodes/pve1/qemu', { vmid: 997, name: 'corpus-twin', memory: 512 }),
  ),
  pinned('store-definition', 'pinstore', call('GET', '/storage/nas'), nas, call('GET', '/storage/ceph')),
  // --- `GET /nodes/*/lxc/106/**`: reads of CT 106 through other paths ---
  pinned(
    'read-ha-resource',
    'pinread',
    call('GET', '/cluster/ha/resources/ct:106'),
    /VMID 106 'mon-01'.*deny\[0\] 'GET \/nodes\/\*\/lxc\/106\/\*\*' \(as target rule: deny vmids 106 for read\)/,
    call('GET', '/cluster/ha/resources/vm:101'),
  ),
];
