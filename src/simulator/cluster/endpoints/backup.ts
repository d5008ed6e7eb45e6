/**
 * Backup endpoints: scheduled jobs (`/cluster/backup`), the not-backed-up report and
 * `vzdump` to back up guests now.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { jobSelection, nextRun, selectGuests, startVzdump } from '../backup.js';
import { fail, paramError, permissionDenied } from '../errors.js';
import { parseRetention } from '../prune.js';
import { guestName } from '../guest-config.js';
import type { ClusterState } from '../state.js';
import type { BackupJob } from '../types.js';
import { flag, list, optStr, reqStr } from './params.js';
import { pathNode } from './path-targets.js';
import { arr, bool, int, NULL, obj, opt, perm, str } from './schema.js';

/** Job and vzdump options shared by create, update and the one-off backup. */
const BACKUP_OPTIONS: Record<string, SchemaNode> = {
  all: opt(bool('Back up every guest (minus `exclude`).', { default: 0 })),
  vmid: opt(str('Guests to back up.', { format: 'pve-vmid-list' })),
  pool: opt(str('Back up the guests of this pool.')),
  exclude: opt(str('Guests to leave out when `all` is set.', { format: 'pve-vmid-list' })),
  node: opt(str('Only run on this node.', { format: 'pve-node' })),
  storage: opt(str('Where to write the archives.', { format: 'pve-storage-id' })),
  mode: opt(str('Consistency mode: live snapshot, suspend, or stop the guest.', { enum: ['snapshot', 'suspend', 'stop'], default: 'snapshot' })),
  compress: opt(str('Compression.', { enum: ['0', '1', 'gzip', 'lzo', 'zstd'], default: '0' })),
  remove: opt(bool('Prune old backups per the retention settings.', { default: 1 })),
  'notes-template': opt(str('Notes for each archive; {{guestname}}, {{vmid}}, {{node}}, {{cluster}} are replaced.', { maxLength: 1024, requires: 'storage' })),
  protected: opt(bool('Protect the new archives from pruning and removal.', { requires: 'storage' })),
  'prune-backups': opt(str('Retention, e.g. keep-daily=7,keep-weekly=4.', { format: 'prune-backups', default: 'keep-all=1' })),
  mailnotification: opt(str('When to send mail.', { enum: ['always', 'failure'], default: 'always' })),
  mailto: opt(str('Mail recipients.', { format: 'email-or-username-list' })),
  bwlimit: opt(int('I/O bandwidth limit in KiB/s.', { minimum: 0, default: 0 })),
};

const JOB_OPTIONS: Record<string, SchemaNode> = {
  ...BACKUP_OPTIONS,
  schedule: opt(str('When to run, as a calendar event (e.g. 02:00, sat 03:00).', { format: 'pve-calendar-event', maxLength: 128 })),
  enabled: opt(bool('Run the job on its schedule.', { default: '1' })),
  comment: opt(str('Description of the job.', { maxLength: 512 })),
  'repeat-missed': opt(bool('Run once if a scheduled run was missed.', { default: 0 })),
};

const JOB_ID: SchemaNode = str('Backup job ID.', { maxLength: 50, pattern: '\\S+' });
const KEEP = ['keep-all', 'keep-last', 'keep-hourly', 'keep-daily', 'keep-weekly', 'keep-monthly', 'keep-yearly'];

const JOB_VIEW = obj(
  {
    id: JOB_ID,
    schedule: opt(str('Calendar event.', { format: 'pve-calendar-event', maxLength: 128 })),
    enabled: opt(bool('Job runs on its schedule.', { default: '1' })),
    'next-run': opt(int('Next scheduled run (epoch seconds).')),
    storage: opt(str('Storage the archives go to.', { format: 'pve-storage-id' })),
    vmid: opt(str('Selected guests.', { format: 'pve-vmid-list' })),
    pool: opt(str('Selected pool.')),
    all: opt(bool('All guests selected.', { default: 0 })),
    mode: opt(str('Backup mode.', { enum: ['snapshot', 'suspend', 'stop'], default: 'snapshot' })),
    compress: opt(str('Compression.', { enum: ['0', '1', 'gzip', 'lzo', 'zstd'], default: '0' })),
    comment: opt(str('Description.', { maxLength: 512 })),
    'prune-backups': opt(
      obj(Object.fromEntries(KEEP.map((k) => [k, opt(k === 'keep-all' ? bool('Keep everything.') : int('How many to keep.', { minimum: 1 }))])), { description: 'Retention settings.' }),
    ),
  },
  { additionalProperties: 1 },
);

/** What GET returns: stored values, with retention parsed into an object and the next run. */
function jobView(state: ClusterState, job: BackupJob): Record<string, unknown> {
  const out: Record<string, unknown> = { ...job };
  const prune = job['prune-backups'];
  if (prune !== undefined) {
    out['prune-backups'] = Object.fromEntries(
      String(prune)
        .split(',')
        .map((kv) => kv.split('='))
        .map(([k, v]) => [k, Number(v)]),
    );
  }
  if (Number(job.enabled ?? 1) === 1 && job.schedule !== undefined) {
    const next = nextRun(String(job.schedule), state.nowSec());
    if (next !== undefined) out['next-run'] = next;
  }
  return out;
}

/** Copies job options from the request into stored form (booleans 1/0, strings as given). */
function writeOptions(job: BackupJob, params: Record<string, unknown>): void {
  for (const [key, schema] of Object.entries(JOB_OPTIONS)) {
    const v = params[key];
    if (v === undefined || v === null) continue;
    job[key] = schema.type === 'boolean' || schema.type === 'integer' ? Number(v === true ? 1 : v === false ? 0 : v) : String(v);
  }
}

export function backupEndpoints(state: ClusterState): SimEndpoint[] {
  const job = (ctx: SimRequestContext): BackupJob => {
    const id = reqStr(ctx, 'id');
    const j = state.backupJobs.get(id);
    if (!j) throw fail(`job '${id}' does not exist`);
    return j;
  };
  return [
    {
      method: 'GET',
      path: '/cluster/backup',
      description: 'Scheduled backup jobs.',
      parameters: {},
      returns: arr(JOB_VIEW, { links: [{ rel: 'child', href: '{id}' }] }),
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => [...state.backupJobs.values()].map((j) => jobView(state, j)),
    },
    {
      method: 'POST',
      path: '/cluster/backup',
      description: 'Create a scheduled backup job.',
      parameters: { id: opt(str('Job ID (generated when left out).', { format: 'pve-configid' })), ...JOB_OPTIONS },
      returns: NULL,
      permissions: { check: perm('/', ['Sys.Modify']) },
      protected: true,
      handler: (ctx) => {
        const id = optStr(ctx, 'id') ?? `backup-${state.rng.hex(8)}-${state.rng.hex(4)}`;
        if (state.backupJobs.has(id)) throw fail(`Job '${id}' already exists`);
        if (!flag(ctx, 'all') && optStr(ctx, 'vmid') === undefined && optStr(ctx, 'pool') === undefined) {
          throw fail('one of vmid, all or pool must be set');
        }
        const j: BackupJob = { id, type: 'vzdump', enabled: 1 };
        writeOptions(j, ctx.params);
        j.schedule ??= '00:00';
        state.backupJobs.set(id, j);
        return null;
      },
    },
    {
      method: 'GET',
      path: '/cluster/backup/{id}',
      description: 'One backup job.',
      parameters: { id: JOB_ID },
      returns: JOB_VIEW,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: (ctx) => jobView(state, job(ctx)),
    },
    {
      method: 'PUT',
      path: '/cluster/backup/{id}',
      description: 'Change a backup job; `delete` removes options.',
      parameters: {
        id: JOB_ID,
        ...JOB_OPTIONS,
        delete: opt(str('Options to remove.', { format: 'pve-configid-list' })),
      },
      returns: NULL,
      permissions: { check: perm('/', ['Sys.Modify']) },
      protected: true,
      handler: (ctx) => {
        const j = job(ctx);
        for (const key of list(ctx.params.delete)) if (key !== 'id' && key !== 'type') delete j[key];
        writeOptions(j, ctx.params);
        return null;
      },
    },
    {
      method: 'DELETE',
      path: '/cluster/backup/{id}',
      description: 'Remove a backup job (existing archives stay).',
      parameters: { id: JOB_ID },
      returns: NULL,
      permissions: { check: perm('/', ['Sys.Modify']) },
      protected: true,
      handler: (ctx) => {
        state.backupJobs.delete(job(ctx).id);
        return null;
      },
    },
    {
      method: 'GET',
      path: '/cluster/backup-info',
      description: 'Backup reports (directory index).',
      parameters: {},
      returns: arr(obj({ subdir: str('Report name.') }), { links: [{ rel: 'child', href: '{subdir}' }] }),
      // PVE declares no permissions here, which leaves the index to root.
      permissions: {},
      handler: () => [{ subdir: 'not-backed-up' }],
    },
    {
      method: 'GET',
      path: '/cluster/backup-info/not-backed-up',
      description: 'VMs and containers that no backup job selects, so none of them is backed up.',
      parameters: {},
      returns: arr(obj({ vmid: int('Guest ID.'), type: str('Guest kind.', { enum: ['qemu', 'lxc'] }), name: opt(str('Guest name.')) })),
      permissions: { check: perm('/', ['Sys.Audit']) },
      protected: true,
      handler: () => {
        const covered = new Set<number>();
        for (const j of state.backupJobs.values()) for (const g of selectGuests(state, jobSelection(j))) covered.add(g.vmid);
        return state
          .allGuests()
          .filter((g) => !covered.has(g.vmid) && !g.config.template)
          .map((g) => ({ vmid: g.vmid, type: g.type, name: guestName(g) }));
      },
    },
    {
      method: 'POST',
      path: '/nodes/{node}/vzdump',
      description:
        'Back up VMs and containers of this node now, to a storage (task `vzdump`). The mode (snapshot, suspend or stop) says how a running guest is kept consistent; guests on other nodes in the selection are skipped. With `remove` (default) older backups beyond the `prune-backups` retention are deleted afterwards.',
      parameters: {
        ...BACKUP_OPTIONS,
        node: str('Node whose guests are backed up.', { format: 'pve-node' }),
        dumpdir: opt(str('Directory on the node to write the archives to instead of a storage (root@pam only).')),
        tmpdir: opt(str('Directory for temporary files (root@pam only).')),
        script: opt(str('Hook script run at each backup phase; must exist on the node (root@pam only).')),
        'job-id': opt(str('ID of the scheduled job this run belongs to (root@pam only).')),
        ionice: opt(int('I/O priority.', { minimum: 0, maximum: 8, default: 7 })),
        lockwait: opt(int('Minutes to wait for the global backup lock.', { minimum: 0, default: 180 })),
      },
      returns: str('UPID of the backup task, or OK when none of the selected guests is on this node.'),
      permissions: {
        user: 'all',
        description:
          'Needs VM.Backup on each guest and Datastore.AllocateSpace on the target storage; dumpdir, tmpdir, script and job-id only for root@pam; prune-backups needs Datastore.Allocate on the storage; bwlimit and ionice Sys.Modify on /.',
      },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const node = pathNode(state, ctx);
        const p = ctx.params;
        const given = (key: string): boolean => p[key] !== undefined && p[key] !== null;
        const dumpdir = optStr(ctx, 'dumpdir');
        const storageParam = optStr(ctx, 'storage');
        const storage = storageParam ?? (dumpdir !== undefined ? undefined : 'local');
        // Option permissions first (PVE's assert_param_permission_vzdump), root@pam may do anything.
        if (ctx.principal.authId !== 'root@pam') {
          for (const key of ['tmpdir', 'dumpdir', 'script', 'job-id']) if (given(key)) throw paramError(key, 'Only root may set this option.');
          if (['bwlimit', 'ionice', 'performance'].some(given) && !ctx.hasPriv('/', 'Sys.Modify')) throw permissionDenied('/', 'Sys.Modify');
          if (given('prune-backups') && storage !== undefined && !ctx.hasPriv(`/storage/${storage}`, 'Datastore.Allocate')) {
            throw permissionDenied(`/storage/${storage}`, 'Datastore.Allocate');
          }
        }
        if (given('node') && p.node !== node) throw paramError('node', 'option is only allowed on the command line interface.');
        const vmidText = optStr(ctx, 'vmid');
        let all = flag(ctx, 'all') ?? false;
        if (all && vmidText) throw paramError('all', "option conflicts with option 'vmid'");
        if (given('exclude') && vmidText) throw paramError('exclude', "option conflicts with option 'vmid'");
        if (given('pool') && vmidText) throw paramError('pool', "option conflicts with option 'vmid'");
        if (given('exclude') && !given('pool')) all = true;
        if (!all && !given('pool') && !vmidText) throw paramError('vmid', 'property is missing');
        const sel = {
          all,
          ...(vmidText !== undefined ? { vmid: vmidText } : {}),
          ...(given('pool') ? { pool: reqStr(ctx, 'pool') } : {}),
          ...(given('exclude') ? { exclude: reqStr(ctx, 'exclude') } : {}),
        };
        const selected = selectGuests(state, sel);
        const guests = selected.filter((g) => g.node === node);
        // Nothing of the selection lives here: PVE answers OK without starting a task.
        if (guests.length === 0 && !all) return 'OK';
        let s: ReturnType<ClusterState['storageOn']>;
        if (storage !== undefined) {
          s = state.storageOn(storage, node);
          if (!s) throw fail(`storage '${storage}' does not exist`);
          if (!s.content.includes('backup')) throw fail(`storage '${storage}' does not support vzdump backups`);
          if (!ctx.hasPriv(`/storage/${storage}`, 'Datastore.AllocateSpace')) throw permissionDenied(`/storage/${storage}`, 'Datastore.AllocateSpace');
        }
        for (const g of guests) if (!ctx.hasPriv(`/vms/${g.vmid}`, 'VM.Backup')) throw permissionDenied(`/vms/${g.vmid}`, 'VM.Backup');
        const mode = optStr(ctx, 'mode') ?? 'snapshot';
        const compress = optStr(ctx, 'compress') ?? '0';
        const notesTemplate = optStr(ctx, 'notes-template');
        const pruneText = optStr(ctx, 'prune-backups') ?? (s?.props['prune-backups'] !== undefined ? String(s.props['prune-backups']) : undefined);
        const retention = pruneText !== undefined ? parseRetention(pruneText) : { 'keep-all': 1 };
        const remove = flag(ctx, 'remove') ?? true;
        const script = optStr(ctx, 'script');
        const tmpdir = optStr(ctx, 'tmpdir');
        const args = [
          all ? '--all 1' : (sel.vmid ?? '').split(/[,;\s]+/).join(' '),
          ...(sel.pool !== undefined ? [`--pool ${sel.pool}`] : []),
          ...(sel.exclude !== undefined ? [`--exclude ${sel.exclude}`] : []),
          storage !== undefined ? `--storage ${storage}` : `--dumpdir ${dumpdir}`,
          `--mode ${mode}`,
          `--compress ${compress}`,
          ...(optStr(ctx, 'prune-backups') !== undefined ? [`--prune-backups '${optStr(ctx, 'prune-backups')}'`] : []),
          ...(given('remove') ? [`--remove ${remove ? 1 : 0}`] : []),
          ...(script !== undefined ? [`--script ${script}`] : []),
          `--node ${node}`,
        ];
        return startVzdump(state, guests, {
          node,
          mode,
          compress,
          protect: flag(ctx, 'protected') ?? false,
          user: ctx.principal.authId,
          commandLine: `vzdump ${args.filter(Boolean).join(' ')}`,
          remove,
          retention,
          ...(storage !== undefined ? { storage } : {}),
          ...(dumpdir !== undefined ? { dumpdir } : {}),
          ...(tmpdir !== undefined ? { tmpdir } : {}),
          ...(script !== undefined ? { script } : {}),
          ...(notesTemplate !== undefined ? { notesTemplate } : {}),
        });
      },
    },
  ];
}
