/**
 * Resident memory of a process and every process below it, read from /proc (Linux): what a
 * desktop user sees a server hold, child processes included.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessMemory {
  pid: number;
  /** The command's last argument that names a file (`bin.js`, `worker.js`, `typecheck-entry.js`). */
  name: string;
  rssMb: number;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command sits in parentheses and may hold spaces: the fields after it are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

function rssMbOf(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

function nameOf(pid: number): string {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const file = [...args].reverse().find((a) => a.endsWith('.js'));
    return file ? file.slice(file.lastIndexOf('/') + 1) : (args[0] ?? '?');
  } catch {
    return '?';
  }
}

/** `root` and its descendants with their RSS (MB), the root first. */
export function processTree(root: number): ProcessMemory[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const parent = parentOf(pid);
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(pid);
    children.set(parent, list);
  }
  const out: ProcessMemory[] = [];
  const visit = (pid: number): void => {
    out.push({ pid, name: nameOf(pid), rssMb: rssMbOf(pid) });
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return out;
}

/** The tree's total RSS and one line per process (`bin.js 92 MB, worker.js 51 MB`). */
export function treeRss(root: number): { totalMb: number; parts: string } {
  const tree = processTree(root).filter((p) => p.rssMb > 0);
  return {
    totalMb: tree.reduce((sum, p) => sum + p.rssMb, 0),
    parts: tree.map((p) => `${p.name} ${p.rssMb.toFixed(0)}`).join(', '),
  };
}

/** CPU time (user + system, ms) a process has used so far; 0 when it is gone. Clock ticks of 10 ms. */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime: fields 14 and 15 of stat(5), 12 and 13 after the command.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** CPU time used so far by `root` and each process below it, by name (`bin.js`, `worker.js`…). */
export function treeCpuMs(root: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of processTree(root)) out.set(p.name, (out.get(p.name) ?? 0) + cpuMsOf(p.pid));
  return out;
}
