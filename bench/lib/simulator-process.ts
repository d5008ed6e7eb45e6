/**
 * The simulator in a process of its own (`pve-code-mcp simulator`), the way a real Proxmox node
 * is another machine: the benchmark's client and the server under test then do not share their
 * event loop and CPU with the simulator's request handling.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './repo.js';
import type { SimulatorEndpoint } from '../tokens/environment.js';

export interface SimulatorProcess extends SimulatorEndpoint {
  pid: number;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

export async function startSimulatorProcess(options: { preset?: string; schemaFile?: string; scenario?: string } = {}): Promise<SimulatorProcess> {
  const bin = path.join(repoRoot(), 'dist', 'src', 'cli', 'bin.js');
  const args = [
    bin,
    'simulator',
    '--port',
    '0',
    '--auth-delay-ms',
    '0',
    ...(options.preset ? ['--preset', options.preset] : []),
    ...(options.schemaFile ? ['--schema', options.schemaFile] : []),
    ...(options.scenario ? ['--scenario', options.scenario] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const banner = await readBanner(child);
  const field = (label: string): string => {
    const match = new RegExp(`^\\s*${label}:\\s+(\\S+)`, 'm').exec(banner);
    if (!match?.[1]) throw new Error(`the simulator banner has no ${label} line:\n${banner}`);
    return match[1];
  };
  const token = { id: field('API token'), secret: field('Token secret') };
  return {
    pid: child.pid as number,
    url: field('URL'),
    fingerprint: field('Fingerprint'),
    token: { ...token, header: `PVEAPIToken=${token.id}=${token.secret}` },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function readBanner(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the simulator printed no banner within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      text += chunk;
      if (/Token secret:\s+\S+/.test(text)) {
        clearTimeout(timer);
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolve(text);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the simulator exited (${signal ?? `code ${code}`}) before it was ready:\n${text}`));
    });
  });
}
