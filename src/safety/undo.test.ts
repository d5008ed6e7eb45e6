import { describe, expect, it } from 'vitest';
import { PlanRecorder, summarizePlan } from './plan.js';
import { redactData } from './redact.js';
import { planUndo, safetySnapshotName, undoRecordOf, type RecordedChange, type UndoGuest, type UndoReads } from './undo.js';

const guest: UndoGuest = { node: 'pve1', type: 'qemu', vmid: 112 };
const CONFIG = '/nodes/{node}/qemu/{vmid}/config';
const pathValues = { node: 'pve1', vmid: '112' };
const redact = (v: Record<string, unknown>) => redactData(v, '/nodes/pve1/qemu/112/config') as Record<string, unknown>;

function reads(config: Record<string, unknown> | undefined, snaps: string[] = [], object?: Record<string, unknown>): UndoReads & { configReads: number } {
  const r = {
    configReads: 0,
    object: async () => object,
    config: async () => {
      r.configReads++;
      return config ? { ...config } : undefined;
    },
    snapshots: async () => snaps,
  };
  return r;
}

const change = (seq: number, undo: RecordedChange['undo'], outcome: RecordedChange['outcome'] = 'done', method = 'PUT', path = '/nodes/pve1/qemu/112/config'): RecordedChange => ({
  seq,
  cluster: 'c',
  method,
  path,
  outcome,
  ...(undo ? { undo } : {}),
});

describe('undoRecordOf', () => {
  it('records the previous value of each key set or deleted, and what was set', () => {
    const undo = undoRecordOf({
      method: 'PUT',
      template: CONFIG,
      pathValues,
      params: { memory: 8192, description: 'x', delete: 'onboot,tags', digest: 'd' },
      config: { memory: 4096, onboot: 1, digest: 'd' },
      redact,
    });
    expect(undo).toEqual({ kind: 'config', guest, before: { description: null, memory: '4096', onboot: '1', tags: null }, after: { description: 'x', memory: '8192', onboot: null, tags: null } });
  });

  it('never stores a secret: a secret key is listed instead of recorded', () => {
    const undo = undoRecordOf({ method: 'PUT', template: CONFIG, pathValues, params: { cipassword: 'new-secret', memory: 1 }, config: { cipassword: 'old-secret', memory: 2 }, redact });
    expect(JSON.stringify(undo)).not.toMatch(/old-secret|new-secret/);
    expect(undo).toMatchObject({ kind: 'config', secret: ['cipassword'], before: { memory: '2' } });
  });

  it('knows what a created snapshot is undone by, and says why a volume delete cannot be', () => {
    expect(undoRecordOf({ method: 'POST', template: '/nodes/{node}/qemu/{vmid}/snapshot', pathValues, params: { snapname: 's1' }, redact })).toMatchObject({
      kind: 'created',
      path: '/nodes/pve1/qemu/112/snapshot/s1',
    });
    expect(undoRecordOf({ method: 'DELETE', template: '/nodes/{node}/storage/{storage}/content/{volume}', pathValues: { node: 'pve1', storage: 'local', volume: 'x' }, params: {}, redact })).toEqual({
      kind: 'none',
      why: 'a deleted volume cannot be restored',
    });
    expect(undoRecordOf({ method: 'PUT', template: CONFIG, pathValues, params: { memory: 1 }, redact })).toMatchObject({
      kind: 'none',
      why: expect.stringMatching(/could not be read before the write/),
    });
  });

  it('names a safety snapshot as PVE accepts it', () => {
    expect(safetySnapshotName('0f8e6a2c-1234-4abc-8def-0123456789ab')).toBe('undo-0f8e6a2c1234');
  });
});

describe('planUndo', () => {
  const record = { kind: 'config' as const, guest, before: { memory: '4096', onboot: '1', description: null }, after: { memory: '8192', onboot: null, description: 'x' } };

  it('puts back the previous values held to the digest read now', async () => {
    const plan = await planUndo('r', [change(5, record)], reads({ memory: '8192', description: 'x', digest: 'D1' }));
    expect(plan.cannot).toEqual([]);
    expect(plan.steps).toEqual([
      { cluster: 'c', method: 'PUT', path: '/nodes/pve1/qemu/112/config', params: { memory: '4096', onboot: '1', delete: 'description', digest: 'D1' }, about: expect.stringContaining('restore') },
    ]);
  });

  it('never overwrites a config that moved since: the change is listed as not undone', async () => {
    const plan = await planUndo('r', [change(5, record)], reads({ memory: '2048', description: 'x', digest: 'D1' }));
    expect(plan.steps).toEqual([]);
    expect(plan.cannot[0]).toMatch(/moved since \(memory is '2048', the run left '8192'\)/);
  });

  it('reverses a run that changed one guest twice, newest first, against what the later reversal leaves', async () => {
    const first = { kind: 'config' as const, guest, before: { memory: '2048' }, after: { memory: '4096' } };
    const second = { kind: 'config' as const, guest, before: { memory: '4096' }, after: { memory: '8192' } };
    const r = reads({ memory: '8192', digest: 'D' });
    const plan = await planUndo('r', [change(1, first), change(2, second)], r);
    expect(plan.steps.map((s) => s.params)).toEqual([{ memory: '4096', digest: 'D' }, { memory: '2048' }]);
    expect(r.configReads).toBe(1);
  });

  it('says what it cannot undo: changes of unknown outcome, irreversible ones, secrets', async () => {
    const plan = await planUndo(
      'r',
      [
        change(1, { kind: 'none', why: 'a deleted volume cannot be restored' }, 'done', 'DELETE', '/nodes/pve1/storage/local/content/x'),
        change(2, record, 'unknown'),
        change(3, { ...record, before: { memory: '4096' }, after: { memory: '8192' }, secret: ['cipassword'] }),
        change(4, record, 'failed'),
      ],
      reads({ memory: '8192', description: 'x' }),
    );
    expect(plan.cannot).toEqual([
      'PUT /nodes/pve1/qemu/112/config: whether it was made is not known, so it is not undone (look at it on the cluster)',
      "PUT /nodes/pve1/qemu/112/config: 'cipassword' holds a secret, whose previous value is never recorded; set it again yourself",
      'DELETE /nodes/pve1/storage/local/content/x: a deleted volume cannot be restored',
    ]);
    expect(plan.steps.map((s) => s.params)).toEqual([{ memory: '4096' }]);
  });

  it('rolls back to the safety snapshot instead of reversing the changes after it, if it still exists', async () => {
    const rollback = { kind: 'rollback' as const, guest, snapname: 'undo-abc' };
    const changes = [change(1, rollback, 'done', 'POST', '/nodes/pve1/qemu/112/snapshot'), change(2, record)];
    const plan = await planUndo('r', changes, reads({ memory: '8192', description: 'x' }, ['undo-abc']));
    expect(plan.steps.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /nodes/pve1/qemu/112/snapshot/undo-abc/rollback']);
    const gone = await planUndo('r', changes, reads({ memory: '8192', description: 'x' }, []));
    expect(gone.steps).toEqual([]);
    expect(gone.cannot[0]).toMatch(/safety snapshot 'undo-abc' .* is gone/);
  });

  it('deletes a snapshot the run created, unless it is already gone', async () => {
    const created = { kind: 'created' as const, path: '/nodes/pve1/qemu/112/snapshot/s1', what: "snapshot 's1' of VM 112 on pve1", guest, snapname: 's1' };
    expect((await planUndo('r', [change(1, created, 'done', 'POST')], reads({}, ['s1']))).steps.map((s) => `${s.method} ${s.path}`)).toEqual(['DELETE /nodes/pve1/qemu/112/snapshot/s1']);
    expect((await planUndo('r', [change(1, created, 'done', 'POST')], reads({}, []))).cannot[0]).toMatch(/already gone/);
  });

  it('puts back another update if the object still holds what the run left, and says what it cannot delete', async () => {
    const update = { kind: 'update' as const, path: '/pools/p1', before: { comment: 'old', extra: null }, after: { comment: 'new', extra: 'x' }, canDelete: false };
    const c = change(1, update, 'done', 'PUT', '/pools/p1');
    const plan = await planUndo('r', [c], reads(undefined, [], { comment: 'new', extra: 'x' }));
    expect(plan.steps.map((s) => s.params)).toEqual([{ comment: 'old' }]);
    expect(plan.cannot).toEqual(["PUT /pools/p1: 'extra' was not set before, and this operation cannot delete it"]);
    const moved = await planUndo('r', [c], reads(undefined, [], { comment: 'someone else', extra: 'x' }));
    expect(moved.steps).toEqual([]);
    expect(moved.cannot[0]).toMatch(/\/pools\/p1 moved since \(comment no longer as the run left it\)/);
  });
});

describe('plan notes', () => {
  it('are shown (and counted up front) and part of the plan id, so the human approves what they read', () => {
    const record = (rec: PlanRecorder) =>
      rec.record({
        cluster: 'c',
        method: 'PUT',
        path: '/nodes/pve1/qemu/112/config',
        template: CONFIG,
        params: { memory: '4096' },
        fullParams: { memory: '4096' },
        risk: 'write',
        needsApproval: true,
        targets: [],
        returnsTask: false,
      });
    const plain = new PlanRecorder();
    record(plain);
    const noted = new PlanRecorder();
    record(noted);
    noted.note('not undone: DELETE /nodes/pve1/storage/local/content/x: a deleted volume cannot be restored');
    const a = plain.finish('code', 'ops');
    const b = noted.finish('code', 'ops');
    expect(b.planId).not.toBe(a.planId);
    const text = summarizePlan(b);
    expect(text).toMatch(/^!! 1 note after the steps/m);
    expect(text).toMatch(/^note: not undone: DELETE .*a deleted volume cannot be restored$/m);
  });
});
