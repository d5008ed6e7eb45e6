/**
 * Backup retention as PVE applies it (`prune-backups`): backups of one guest form a group,
 * newest first; `keep-last` keeps the newest N, `keep-hourly/daily/weekly/monthly/yearly` keep the
 * newest backup of each of the last N periods that are not yet covered, protected backups are
 * never removed, and archives that do not follow the `vzdump-<type>-<vmid>-<time>` naming are left
 * alone ("renamed"). Periods are computed in UTC (the simulated nodes run in UTC).
 */
import type { ClusterState } from './state.js';
import type { StoredVolume } from './types.js';

export type Retention = Record<string, number>;

const KEEP_ORDER = ['keep-last', 'keep-hourly', 'keep-daily', 'keep-weekly', 'keep-monthly', 'keep-yearly'] as const;

/** `keep-daily=7,keep-weekly=4` → `{ 'keep-daily': 7, 'keep-weekly': 4 }`. */
export function parseRetention(text: string): Retention {
  const out: Retention = {};
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const [k, v] = part.split('=');
    out[(k ?? '').trim()] = Number(v ?? 1);
  }
  return out;
}

export function retentionText(keep: Retention): string {
  return Object.keys(keep)
    .sort()
    .map((k) => `${k}=${keep[k]}`)
    .join(', ');
}

export interface PruneEntry {
  volid: string;
  ctime: number;
  type: string;
  vmid?: number;
  mark: 'keep' | 'remove' | 'protected' | 'renamed';
  volume: StoredVolume;
}

const ARCHIVE = /(?:^|\/)vzdump-(qemu|lxc|openvz)-(\d+)-(\d{4})_(\d{2})_(\d{2})-(\d{2})_(\d{2})_(\d{2})\.[^/]+$/;

/** ISO week number and its year, as strftime's %G/%V. */
function isoWeek(d: Date): string {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const day = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - day);
  const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((t.getTime() - yearStart) / 86400000 + 1) / 7);
  return `${week}/${t.getUTCFullYear()}`;
}

const PERIOD: Record<(typeof KEEP_ORDER)[number], (ctime: number) => string> = {
  'keep-last': (c) => String(c),
  'keep-hourly': (c) => {
    const d = new Date(c * 1000);
    return `${d.getUTCHours()}/${d.getUTCDate()}/${d.getUTCMonth()}/${d.getUTCFullYear()}`;
  },
  'keep-daily': (c) => {
    const d = new Date(c * 1000);
    return `${d.getUTCDate()}/${d.getUTCMonth()}/${d.getUTCFullYear()}`;
  },
  'keep-weekly': (c) => isoWeek(new Date(c * 1000)),
  'keep-monthly': (c) => {
    const d = new Date(c * 1000);
    return `${d.getUTCMonth()}/${d.getUTCFullYear()}`;
  },
  'keep-yearly': (c) => String(new Date(c * 1000).getUTCFullYear()),
};

/** Marks one guest's backups (any order in, marks set in place). */
export function markGroup(group: Array<Pick<PruneEntry, 'ctime'> & { mark?: PruneEntry['mark'] }>, keep: Retention): void {
  const positive = Object.keys(keep).filter((k) => k !== 'keep-all' && (keep[k] ?? 0) > 0);
  if (keep['keep-all'] || positive.length === 0) {
    for (const e of group) if (!e.mark || e.mark === 'remove') e.mark = 'keep';
    return;
  }
  const list = [...group].sort((a, b) => b.ctime - a.ctime);
  for (const opt of KEEP_ORDER) {
    const count = keep[opt] ?? 0;
    if (!count) continue;
    const id = PERIOD[opt];
    const already = new Set(list.filter((e) => e.mark === 'keep').map((e) => id(e.ctime)));
    const fresh = new Set<string>();
    for (const e of list) {
      const period = id(e.ctime);
      if (e.mark !== undefined || already.has(period)) continue;
      if (!fresh.has(period)) {
        if (fresh.size >= count) break;
        fresh.add(period);
        e.mark = 'keep';
      } else {
        e.mark = 'remove';
      }
    }
  }
  for (const e of list) e.mark ??= 'remove';
}

/** Backups on one storage (as one node sees it), marked per retention; optionally one guest or guest type. */
export function pruneList(state: ClusterState, storage: string, node: string, keep: Retention, vmid?: number, type?: string): PruneEntry[] {
  const shared = state.storages.get(storage)?.shared ?? false;
  const groups = new Map<string, PruneEntry[]>();
  const out: PruneEntry[] = [];
  for (const v of state.volumes) {
    if (v.storage !== storage || v.content !== 'backup' || (!shared && v.node !== node)) continue;
    const m = ARCHIVE.exec(v.volid);
    const backupType = m ? (m[1] as string) : 'unknown';
    const backupVmid = m ? Number(m[2]) : v.vmid;
    if (type !== undefined && type !== backupType) continue;
    if (vmid !== undefined && backupVmid !== vmid) continue;
    const entry = { volid: v.volid, ctime: v.ctime, type: backupType, volume: v, ...(backupVmid !== undefined ? { vmid: backupVmid } : {}) } as PruneEntry;
    if (m) {
      entry.ctime = Math.floor(Date.UTC(+m[3]!, +m[4]! - 1, +m[5]!, +m[6]!, +m[7]!, +m[8]!) / 1000);
      const key = `${backupType}/${backupVmid}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = []));
      g.push(entry);
    } else {
      entry.mark = 'renamed';
    }
    if (v.protected) entry.mark = 'protected';
    out.push(entry);
  }
  for (const g of groups.values()) markGroup(g, keep);
  return out;
}

/** Removes the backups marked `remove`, logging each as PVE does; returns how many went. */
export function removeMarked(state: ClusterState, entries: PruneEntry[], log: (line: string) => void): number {
  let n = 0;
  for (const e of entries) {
    if (e.mark !== 'remove') continue;
    log(`removing backup '${e.volid}'`);
    const i = state.volumes.indexOf(e.volume);
    if (i >= 0) state.volumes.splice(i, 1);
    n++;
  }
  return n;
}
