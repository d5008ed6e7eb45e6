/**
 * Process isolation: the worker refuses a wrong launch, and the server process that runs scripts
 * never loads isolated-vm and gives its workers no environment (no credentials).
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import { locateWorker } from '../../src/sandbox/locate.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('sandbox worker launch guard', () => {
  it('refuses to start without --no-node-snapshot', () => {
    const r = spawnSync(process.execPath, [locateWorker()], { encoding: 'utf8', env: {}, timeout: 20_000 });
    expect(r.stderr).toMatch(/refusing to start without --no-node-snapshot/);
    expect(r.status === 0).toBe(false);
  });

  it('refuses to start without its channel to the server on fd 3', () => {
    const r = spawnSync(process.execPath, ['--no-node-snapshot', locateWorker()], { encoding: 'utf8', env: {}, timeout: 20_000 });
    expect(r.stderr).toMatch(/channel on fd 3/);
    // fd 3 open but not a socket (a file) is refused the same way.
    const file = spawnSync(process.execPath, ['--no-node-snapshot', locateWorker()], { encoding: 'utf8', env: {}, timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe', openSync(locateWorker(), 'r')] });
    expect(file.stderr).toMatch(/channel on fd 3/);
  });
});

describe.skipIf(process.platform !== 'linux')('server process', () => {
  it('runs a script without loading isolated-vm and with an empty worker environment', () => {
    const engineUrl = pathToFileURL(path.join(root, 'dist/src/sandbox/engine.js')).href;
    const program = `
      import { createRequire } from 'node:module';
      import { execSync } from 'node:child_process';
      import { readFileSync } from 'node:fs';
      const { SandboxEngine } = await import(${JSON.stringify(engineUrl)});
      const engine = new SandboxEngine({ workers: 1 });
      const outcome = await engine.run({ code: 'return 6 * 7;' }, async () => ({ ok: true, data: null }));
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('isolated-vm'));
      const children = execSync('ps -o pid= --ppid ' + process.pid).toString().trim().split(/\\s+/).filter(Boolean);
      const envs = children.map((pid) => { try { return readFileSync('/proc/' + pid + '/environ', 'utf8'); } catch { return null; } }).filter((e) => e !== null);
      await engine.close();
      console.log(JSON.stringify({ result: outcome.result, loaded, envs }));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], {
      encoding: 'utf8',
      env: { ...process.env, PVE_TOKEN_SECRET: 'must-not-leak' },
      timeout: 60_000,
    });
    const report = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { result: number; loaded: string[]; envs: string[] };
    expect(report.result).toBe(42);
    expect(report.loaded).toEqual([]);
    expect(report.envs.length).toBeGreaterThan(0);
    for (const env of report.envs) expect(env).not.toContain('must-not-leak');
  });
});

describe('a worker that breaks the channel', () => {
  it('is killed when it announces a frame past the run limits; the run fails as crashed and nothing is buffered', async () => {
    const engine = new SandboxEngine({ workers: 1, workerPath: path.join(root, 'test/sandbox/fixtures/rogue-worker.mjs') });
    try {
      const outcome = await engine.run({ code: 'return 1;', typecheck: false }, async () => ({ ok: true, data: null }));
      expect(outcome.ok).toBe(false);
      expect(outcome.error?.kind).toBe('crashed');
      // With the check off the worker compiles first, so the rogue frame comes during the compile.
      expect(outcome.error?.message).toMatch(/(sandbox process ended|worker exited) \(SIGKILL\)/);
    } finally {
      await engine.close();
    }
  });
});
