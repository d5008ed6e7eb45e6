/**
 * Worker confinement: the sandbox worker runs under Node's permission model, so code that got out
 * of an isolate into the worker's Node realm could read only the worker's own files and could not
 * write, start processes or threads — checked by running a probe with the worker's exact flags.
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import { ISOLATED_VM_PACKAGES } from '../../src/sandbox/ivm.js';
import { locateWorker } from '../../src/sandbox/locate.js';
import { startWorker, WORKER_PACKAGES, WORKER_V8_FLAGS, workerLaunch, workerV8Flags } from '../../src/sandbox/worker-launch.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = (name: string) => path.join(root, 'test/sandbox/fixtures', name);
const noBridge = async () => ({ ok: true as const, data: null });

/** Bare module names imported or required anywhere in the compiled worker's import graph. */
function workerBareImports(): Set<string> {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const walk = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(
      /\b(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|\b(?:require|createRequire\([^)]*\))\(\s*['"]([^'"]+)['"]\s*\)/g,
    )) {
      const spec = (m[1] ?? m[2] ?? m[3]) as string;
      if (spec.startsWith('.')) walk(path.resolve(path.dirname(file), spec));
      else if (!spec.startsWith('node:')) bare.add(spec.split('/')[0] as string);
    }
  };
  walk(locateWorker());
  return bare;
}

describe('the worker launch', () => {
  it('confines the worker to reading its code, the prelude and the packages it loads', () => {
    const launch = workerLaunch(locateWorker(), true);
    expect(launch.confined).toBe(true);
    expect(launch.args[0]).toBe('--no-node-snapshot');
    expect(launch.args.at(-1)).toBe(locateWorker());
    expect(launch.args).toContain('--allow-addons');
    expect(launch.args.some((a) => a === '--permission' || a === '--experimental-permission')).toBe(true);
    const grants = launch.args.filter((a) => a.startsWith('--allow-')).filter((a) => a !== '--allow-addons');
    // Only reads are granted: no writes, child processes, threads or WASI.
    expect(grants.every((a) => a.startsWith('--allow-fs-read='))).toBe(true);
    for (const p of ['dist', 'sandbox', 'package.json', 'node_modules/zod']) {
      expect(launch.readable).toContain(path.join(root, p));
    }
    // Whichever isolated-vm this Node got installed (src/sandbox/ivm.ts), and nothing else of node_modules.
    const installed = ISOLATED_VM_PACKAGES.filter((name) => existsSync(path.join(root, 'node_modules', name)));
    expect(installed.length).toBeGreaterThan(0);
    for (const name of installed) expect(launch.readable).toContain(path.join(root, 'node_modules', name));
    expect(launch.readable).not.toContain(root);
    expect(launch.readable).not.toContain(path.join(root, 'node_modules'));
  });

  it('loads no package from node_modules that it is not allowed to read', () => {
    for (const name of workerBareImports()) expect(WORKER_PACKAGES).toContain(name);
  });

  it.skipIf(process.platform !== 'linux')('starts every worker with its V8 flags before the launch', async () => {
    expect(WORKER_V8_FLAGS).toEqual(workerV8Flags(process.versions.node));
    const launch = workerLaunch(locateWorker(), true);
    const worker = startWorker(launch, { message: () => undefined });
    try {
      await worker.ready;
      const argv = readFileSync(`/proc/${worker.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      expect(argv.slice(1, 1 + launch.args.length + WORKER_V8_FLAGS.length)).toEqual([...WORKER_V8_FLAGS, ...launch.args]);
    } finally {
      worker.kill();
    }
  });

  it('keeps the interrupt budget to Node 20, whose V8 knows the flag', () => {
    expect(workerV8Flags('20.19.0')).toEqual(['--max-semi-space-size=1', '--interrupt-budget=524288']);
    expect(workerV8Flags('22.23.5')).toEqual(['--max-semi-space-size=1']);
    expect(workerV8Flags('24.22.3')).toEqual(['--max-semi-space-size=1']);
  });

  it('starts the worker with Node flags only when confinement is off', () => {
    expect(workerLaunch(locateWorker(), false)).toEqual({ args: ['--no-node-snapshot', locateWorker()], readable: [], confined: false });
  });
});

describe.skipIf(process.platform !== 'linux')("code running with the worker's flags", () => {
  it('cannot read secrets, write files, or start processes or threads, and still runs isolated-vm', () => {
    const probe = fixture('confinement-probe.mjs');
    const { args } = workerLaunch(probe, true);
    const r = spawnSync(process.execPath, [...args, root], { encoding: 'utf8', env: {}, timeout: 30_000 });
    expect(r.stderr).toBe('');
    const results = JSON.parse(r.stdout) as Record<string, { allowed: boolean; value?: unknown; code?: string }>;
    for (const denied of ['read server environment', 'read /etc/passwd', 'read project README', 'write temp file', 'start process', 'start thread', 'internal bindings']) {
      expect({ [denied]: results[denied] }).toEqual({ [denied]: { allowed: false, code: 'ERR_ACCESS_DENIED' } });
    }
    expect(results['read package.json']).toEqual({ allowed: true, value: 'pve-code-mcp' });
    expect(results['read prelude']).toEqual({ allowed: true, value: true });
    expect(results['run isolated-vm']).toEqual({ allowed: true, value: 42 });
  });
});

describe('the engine', () => {
  it.each([
    ['confined by default', {}, true],
    ['unconfined when told to, and says so', { confineWorker: false }, false],
  ] as const)('runs scripts in workers %s', async (_name, options, confined) => {
    const engine = new SandboxEngine({ workers: 1, ...options });
    try {
      expect(engine.stats.workerConfined).toBe(confined);
      const outcome = await engine.run({ code: 'return 6 * 7;', typecheck: false }, noBridge);
      expect(outcome.result).toBe(42);
      expect(engine.stats.workerRuntime).toMatch(/^isolated-vm \d+\.\d+\.\d+$/);
    } finally {
      await engine.close();
    }
  });

  it('never runs a script in a worker launched confined that reports it is not', async () => {
    const engine = new SandboxEngine({ workers: 1, workerPath: fixture('unconfined-worker.mjs') });
    try {
      const outcome = await engine.run({ code: 'return 1;', typecheck: false }, noBridge);
      expect(outcome.ok).toBe(false);
      expect(outcome.error?.kind).toBe('crashed');
      expect(outcome.error?.message).toMatch(/without the permission model confining it/);
    } finally {
      await engine.close();
    }
  });
});
