/**
 * Who writes the audit, and whether they still live. Several servers share one state directory,
 * and a starting server must recover the intents of writers that are gone — never those of a
 * writer that is merely in another process. So each `AuditLog` open gets a random per-start
 * writer id and registers it as `<audit dir>/writers/<id>.json` (pid, host, start time, and what
 * proves that this very process is alive); `close()` removes it.
 *
 * The liveness proof, on Linux: the pid together with the process's start time in
 * `/proc/<pid>/stat` (field 22, clock ticks since boot) and the boot id. Only the live process
 * holds that triple: a pid reused after the writer died has another start time, and after a
 * reboot the boot id differs. It needs no timer and no lock, and it cannot declare a live but busy
 * or stopped process dead. Node has no `flock`, so a held lock is not an option; a heartbeat alone
 * would call a writer whose event loop stalled for a minute dead. Where `/proc` is missing (not
 * Linux), the pid's existence (`kill(pid, 0)`) plus the file's mtime, refreshed every
 * `WRITER_HEARTBEAT_MS` by an unref'd timer, is the fallback: a writer is alive while its pid
 * exists and its heartbeat is younger than `WRITER_STALE_MS`. A writer on another host (a shared
 * network state directory) can only be judged by its heartbeat.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';

export const WRITER_HEARTBEAT_MS = 10_000;
/** A heartbeat older than this (six missed beats) means the writer is gone (fallback only). */
export const WRITER_STALE_MS = 60_000;

const WriterRecordSchema = z.object({
  v: z.literal(1),
  id: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/),
  pid: z.number().int().positive(),
  host: z.string(),
  startedAt: z.string(),
  /** /proc/<pid>/stat field 22 when the writer started (Linux). */
  procStart: z.string().optional(),
  /** /proc/sys/kernel/random/boot_id when the writer started (Linux). */
  bootId: z.string().optional(),
});

export type WriterRecord = z.infer<typeof WriterRecordSchema>;

export interface WriterStatus extends WriterRecord {
  alive: boolean;
  /** Why it is judged alive or gone, in words. */
  reason: string;
}

export function writersDir(auditFile: string): string {
  return join(dirname(auditFile), 'writers');
}

export function newWriterId(): string {
  return randomBytes(6).toString('base64url');
}

function procStartOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may hold spaces and parentheses: count from after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}

export interface WriterRegistration {
  readonly id: string;
  /** Stop the heartbeat and remove the registration (the writer closed cleanly). */
  remove(): void;
}

/** Register this process as writer `id` of the audit log `auditFile` (atomic: written aside, renamed). */
export function registerWriter(auditFile: string, id: string, now: Date = new Date()): WriterRegistration {
  const dir = writersDir(auditFile);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const procStart = procStartOf(process.pid);
  const boot = bootId();
  const record: WriterRecord = { v: 1, id, pid: process.pid, host: hostname(), startedAt: now.toISOString(), ...(procStart ? { procStart } : {}), ...(boot ? { bootId: boot } : {}) };
  const path = join(dir, `${id}.json`);
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, JSON.stringify(record) + '\n', { mode: 0o600 });
  renameSync(aside, path);
  const timer = setInterval(() => {
    try {
      const t = new Date();
      utimesSync(path, t, t);
    } catch {
      // Removed or unwritable: the pid and start time still prove liveness on Linux.
    }
  }, WRITER_HEARTBEAT_MS);
  timer.unref();
  return {
    id,
    remove() {
      clearInterval(timer);
      try {
        unlinkSync(path);
      } catch {
        // Already retired by hand: nothing left to remove.
      }
    },
  };
}

/** Judge one registered writer. */
export function writerLiveness(record: WriterRecord, heartbeatMs: number, now: number = Date.now()): { alive: boolean; reason: string } {
  const fresh = now - heartbeatMs < WRITER_STALE_MS;
  if (record.host !== hostname()) {
    return fresh
      ? { alive: true, reason: `on host ${record.host}; its heartbeat is ${Math.round((now - heartbeatMs) / 1000)} s old` }
      : { alive: false, reason: `on host ${record.host}; no heartbeat for ${Math.round((now - heartbeatMs) / 1000)} s` };
  }
  const boot = bootId();
  if (record.bootId !== undefined && boot !== undefined && record.bootId !== boot) return { alive: false, reason: 'the host rebooted since it started' };
  try {
    process.kill(record.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return { alive: false, reason: `process ${record.pid} no longer exists` };
    // EPERM: the pid exists (another user's process): the start time decides.
  }
  if (record.procStart !== undefined) {
    const current = procStartOf(record.pid);
    if (current === record.procStart) return { alive: true, reason: `process ${record.pid} runs (same start time)` };
    return { alive: false, reason: current === undefined ? `process ${record.pid} no longer exists` : `pid ${record.pid} now belongs to another process (other start time)` };
  }
  return fresh
    ? { alive: true, reason: `process ${record.pid} exists and its heartbeat is fresh` }
    : { alive: false, reason: `process ${record.pid} exists but sent no heartbeat for ${Math.round((now - heartbeatMs) / 1000)} s (pid reused?)` };
}

/** Every registered writer of `auditFile` with its liveness; unreadable registrations are skipped. */
export function listWriters(auditFile: string, now: number = Date.now()): WriterStatus[] {
  const dir = writersDir(auditFile);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: WriterStatus[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const parsed = WriterRecordSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      if (!parsed.success || `${parsed.data.id}.json` !== name) continue;
      out.push({ ...parsed.data, ...writerLiveness(parsed.data, statSync(path).mtimeMs, now) });
    } catch {
      // Being written or removed right now, or not ours: not a writer we can judge.
    }
  }
  return out.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

/** Remove a writer's registration (it is gone and nothing of it is left to recover). */
export function removeRegistration(auditFile: string, id: string): void {
  try {
    unlinkSync(join(writersDir(auditFile), `${id}.json`));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
