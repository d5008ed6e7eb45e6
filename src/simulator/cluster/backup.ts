/**
 * Backups as the cluster does them: which guests a job selects, the next run of simple
 * schedules, and the vzdump worker that locks each guest `backup` and writes archives.
 */
import { lockedText } from './errors.js';
import { backupNoSpaceReason, isStorageFull } from './space.js';
import { TaskFailure } from './tasks.js';
import type { ClusterState } from './state.js';
import type { BackupJob, Guest, StoredVolume } from './types.js';
import { nodeDirExists, nodeFileExists, storageOfDumpdir } from './node-files.js';
import { pruneList, removeMarked, retentionText, type Retention } from './prune.js';

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** Guests selected by a job or a vzdump call (`all`/`exclude`, `vmid` list or `pool`). */
export function selectGuests(state: ClusterState, sel: { all?: boolean; vmid?: string; pool?: string; exclude?: string }): Guest[] {
  const exclude = new Set(
    (sel.exclude ?? '')
      .split(/[,;\s]+/)
      .filter(Boolean)
      .map(Number),
  );
  let guests: Guest[];
  if (sel.all) guests = state.allGuests();
  else if (sel.pool !== undefined) guests = state.allGuests().filter((g) => g.pool === sel.pool);
  else {
    const ids = (sel.vmid ?? '')
      .split(/[,;\s]+/)
      .filter(Boolean)
      .map(Number);
    guests = ids.map((id) => state.guests.get(id)).filter((g): g is Guest => g !== undefined);
  }
  return guests.filter((g) => !exclude.has(g.vmid) && !g.config.template);
}

export function jobSelection(job: BackupJob): { all?: boolean; vmid?: string; pool?: string; exclude?: string } {
  return {
    all: Number(job.all ?? 0) === 1,
    ...(job.vmid !== undefined ? { vmid: String(job.vmid) } : {}),
    ...(job.pool !== undefined ? { pool: String(job.pool) } : {}),
    ...(job.exclude !== undefined ? { exclude: String(job.exclude) } : {}),
  };
}

/**
 * Next run (epoch seconds, UTC) of schedules of the form `[dow[,dow…]] HH:MM`; undefined for
 * calendar events beyond that simple shape.
 */
export function nextRun(schedule: string, nowSec: number): number | undefined {
  const m = /^(?:([a-z]{3}(?:[,.][a-z]{3})*)\s+)?(\d{1,2}):(\d{2})$/.exec(schedule.trim());
  if (!m) return undefined;
  const days = m[1] ? m[1].split(/[,.]/).map((d) => DAY_NAMES.indexOf(d)) : [0, 1, 2, 3, 4, 5, 6];
  if (days.some((d) => d < 0)) return undefined;
  const minuteOfDay = Number(m[2]) * 60 + Number(m[3]);
  const dayStart = Math.floor(nowSec / 86400) * 86400;
  for (let i = 0; i <= 7; i++) {
    const t = dayStart + i * 86400 + minuteOfDay * 60;
    if (t > nowSec && days.includes(new Date(t * 1000).getUTCDay())) return t;
  }
  return undefined;
}

function stamp(sec: number): string {
  const d = new Date(sec * 1000);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}_${p(d.getUTCMonth() + 1)}_${p(d.getUTCDate())}-${p(d.getUTCHours())}_${p(d.getUTCMinutes())}_${p(d.getUTCSeconds())}`;
}

export interface VzdumpOptions {
  node: string;
  /** Target storage; undefined when the archives go to `dumpdir`. */
  storage?: string;
  /** Directory the archives go to instead of a storage. */
  dumpdir?: string;
  tmpdir?: string;
  /** Hook script run at each phase; it must exist on the node. */
  script?: string;
  /** Prune older backups per `retention` after each backup. */
  remove: boolean;
  /** The retention in effect (`prune-backups` of the call, else of the storage, else keep-all). */
  retention: Retention;
  mode: string;
  compress: string;
  notesTemplate?: string;
  protect: boolean;
  user: string;
  commandLine: string;
}

/** Starts a vzdump task over the given guests of one node and returns its UPID. */
export function startVzdump(state: ClusterState, guests: Guest[], opts: VzdumpOptions): string {
  const releases: Array<() => void> = [];
  /** Guests skipped at the start, with the reason the log reports. */
  const failed = new Map<number, string>();
  const ext = (g: Guest): string => (g.type === 'qemu' ? 'vma' : 'tar') + (opts.compress === 'zstd' ? '.zst' : opts.compress === 'gzip' ? '.gz' : opts.compress === 'lzo' ? '.lzo' : '');
  return state.tasks.start({
    node: opts.node,
    type: 'vzdump',
    id: guests.length === 1 ? String(guests[0]?.vmid) : '',
    user: opts.user,
    weight: Math.max(1, Math.min(5, guests.length)),
    begin: (run) => {
      // What vzdump checks when it sets up the job; any problem ends the task before a guest is touched.
      const errors: string[] = [];
      if (opts.script !== undefined && !nodeFileExists(state, opts.node, opts.script)) errors.push(`Error: The hook script '${opts.script}' does not exist.`);
      if (opts.storage === undefined && opts.dumpdir !== undefined && !nodeDirExists(state, opts.node, opts.dumpdir)) errors.push(`dumpdir '${opts.dumpdir}' does not exist`);
      if (opts.tmpdir !== undefined && !nodeDirExists(state, opts.node, opts.tmpdir)) errors.push(`tmpdir '${opts.tmpdir}' does not exist`);
      if (errors.length > 0) throw new TaskFailure(errors.join('\n'));
      run.log(`INFO: starting new backup job: ${opts.commandLine}`);
      for (const g of guests) {
        const lock = g.config.lock;
        if (state.guests.get(g.vmid) !== g) {
          failed.set(g.vmid, `unable to find VM ${g.vmid}`);
          continue;
        }
        if (lock !== undefined) {
          failed.set(g.vmid, lockedText(g.type, String(lock)));
          continue;
        }
        g.config.lock = 'backup';
        releases.push(() => {
          if (g.config.lock === 'backup') delete g.config.lock;
        });
      }
    },
    finish: (run) => {
      const now = state.nowSec();
      // Archives written to a storage (or to a dumpdir that is a storage's dump directory) show in its content.
      const storage = opts.storage ?? (opts.dumpdir !== undefined ? storageOfDumpdir(state, opts.node, opts.dumpdir)?.storage : undefined);
      const keepAll = Boolean(opts.retention['keep-all']);
      const remove = opts.remove && !keepAll;
      const limit = keepAll ? 0 : Object.values(opts.retention).reduce((a, b) => a + b, 0);
      for (const g of guests) {
        const kind = g.type === 'qemu' ? 'qemu' : 'lxc';
        run.log(`INFO: Starting Backup of VM ${g.vmid} (${kind})`);
        if (!failed.has(g.vmid) && storage !== undefined && isStorageFull(state, storage)) failed.set(g.vmid, backupNoSpaceReason(g.type));
        if (!failed.has(g.vmid) && storage !== undefined && limit > 0 && !remove && !opts.protect) {
          const existing = pruneList(state, storage, opts.node, { 'keep-all': 1 }, g.vmid, kind).filter((e) => e.mark !== 'protected');
          if (existing.length >= limit) {
            failed.set(g.vmid, `There is a max backup limit of ${limit} enforced by the target storage or the vzdump parameters. Either increase the limit or delete old backups.`);
          }
        }
        const reason = failed.get(g.vmid);
        if (reason !== undefined) {
          run.log(`ERROR: Backup of VM ${g.vmid} failed - ${reason}`);
          continue;
        }
        const file = `vzdump-${kind}-${g.vmid}-${stamp(now)}.${ext(g)}`;
        const notes = opts.notesTemplate ? opts.notesTemplate.replace(/\{\{guestname\}\}/g, String(g.config.name ?? g.config.hostname ?? g.vmid)).replace(/\{\{vmid\}\}/g, String(g.vmid)) : undefined;
        run.log(`INFO: backup mode: ${opts.mode}`);
        if (storage !== undefined) {
          const volume: StoredVolume = {
            storage,
            ...(state.storages.get(storage)?.shared ? {} : { node: opts.node }),
            volid: `${storage}:backup/${file}`,
            content: 'backup',
            format: ext(g),
            size: Math.floor((0.3 + (g.vmid % 7) / 10) * 1024 ** 3),
            ctime: now,
            vmid: g.vmid,
            ...(notes !== undefined ? { notes } : {}),
            ...(opts.protect ? { protected: 1 } : {}),
            config: { ...g.config },
          };
          state.volumes.push(volume);
          run.log(`INFO: creating vzdump archive '${file}'`);
        } else {
          const path = `${(opts.dumpdir ?? '').replace(/\/+$/, '')}/${file}`;
          const n = state.node(opts.node);
          (n.files ??= new Set()).add(path);
          run.log(`INFO: creating vzdump archive '${path}'`);
        }
        if (opts.protect) run.log('INFO: marking backup as protected');
        run.log(`INFO: Finished Backup of VM ${g.vmid} (00:00:${String(5 + (g.vmid % 50)).padStart(2, '0')})`);
        if (remove && storage !== undefined) {
          run.log(`INFO: prune older backups with retention: ${retentionText(opts.retention)}`);
          const pruned = removeMarked(state, pruneList(state, storage, opts.node, opts.retention, g.vmid, kind), (line) => run.log(`INFO: ${line}`));
          run.log(`INFO: pruned ${pruned} backup(s)${pruned > 0 ? ' not covered by keep-retention policy' : ''}`);
        }
      }
      if (failed.size > 0) {
        run.log('INFO: Backup job finished with errors');
        throw new TaskFailure('job errors');
      }
      run.log('INFO: Backup job finished successfully');
    },
    cleanup: () => {
      for (const r of releases) r();
    },
  });
}
