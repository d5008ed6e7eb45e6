/**
 * The real CLI server (`pve-code-mcp serve --http`) in its own process, so its memory can be
 * measured without the benchmark's simulator and clients in it. Memory comes from /proc (Linux):
 * VmRSS is what `process.memoryUsage().rss` reports inside the process, VmHWM its peak.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../lib/repo.js';
import { benchConfig, type ProductOptions, type SimulatorEndpoint } from './environment.js';

const START_TIMEOUT_MS = 120_000;

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

async function stop(child: ChildProcess): Promise<void> {
  const done = exited(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await done;
  clearTimeout(timer);
}

/**
 * `pve-code-mcp serve --http` from dist/, configured for `sim` with the benchmark policy;
 * `nodeFlags` go to node before the script, `env` is added to the environment.
 */
export async function startServerProcess(
  sim: SimulatorEndpoint,
  options: ProductOptions & { nodeFlags?: string[]; env?: Record<string, string> } = {},
): Promise<{ pid: number; url: string; token: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'pve-bench-serve-'));
  const configFile = join(dir, 'config.json');
  const { nodeFlags = [], env = {}, ...product } = options;
  writeFileSync(configFile, JSON.stringify(benchConfig(sim, dir, product)), { mode: 0o600 });
  const token = `bench-${process.pid}-${Date.now()}`;
  const bin = join(repoRoot(), 'dist', 'src', 'cli', 'bin.js');
  const child = spawn(process.execPath, [...nodeFlags, bin, 'serve', '--http', '--port', '0', '--token', token, '--config', configFile], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within ${START_TIMEOUT_MS} ms: ${stderr}`)), START_TIMEOUT_MS);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      // Keep draining the pipe for the server's whole life; remember only the tail for errors.
      stderr = (stderr + chunk).slice(-4_096);
      const m = /MCP over Streamable HTTP: (\S+)/.exec(stderr);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with code ${code}: ${stderr.trim()}`));
    });
  }).catch(async (err: unknown) => {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return {
    pid: child.pid as number,
    url,
    token,
    async close() {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ProcessMemory {
  /** Resident set now, MB. */
  rssMb: number;
  /** Peak resident set since the process started, MB. */
  peakMb: number;
}

/** Memory of a process from /proc; undefined when it is gone or /proc is not available. */
export function processMemory(pid: number): ProcessMemory | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/**
 * Resets the kernel's peak-RSS mark (VmHWM) so the next reading is the peak of what follows;
 * false when the kernel does not allow it (then only sampled RSS is available).
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Direct children of a process (its sandbox workers, for the server). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    return out;
  }
  return out;
}

/** Samples a process and its children every `everyMs` until stopped: peak RSS of each side. */
export class MemorySampler {
  peakServerMb = 0;
  peakWorkerMb = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    everyMs = 20,
  ) {
    this.#timer = setInterval(() => this.sample(), everyMs);
  }

  sample(): void {
    // A worker being replaced can be a zombie without memory lines: NaN readings are skipped.
    const own = processMemory(this.pid);
    if (own && Number.isFinite(own.rssMb)) this.peakServerMb = Math.max(this.peakServerMb, own.rssMb);
    for (const child of childPids(this.pid)) {
      const mem = processMemory(child);
      if (mem && Number.isFinite(mem.peakMb)) this.peakWorkerMb = Math.max(this.peakWorkerMb, mem.peakMb);
    }
  }

  stop(): void {
    clearInterval(this.#timer);
    this.sample();
  }
}
