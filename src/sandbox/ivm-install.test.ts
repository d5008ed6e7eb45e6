/**
 * What `npm ci` in a checkout installs on each supported Node, decided by npm itself: npm's own
 * Arborist (the npm on the PATH, as `npm ci` would use it) builds the ideal tree from the committed
 * package.json and package-lock.json for Node 20.19, 22 and 24 — its `nodeVersion` option is the
 * Node the engine check compares against, so this runs under any Node. An optional package whose
 * engines do not match comes out `inert` (not installed, nor what only it needs). Exactly one
 * isolated-vm per Node, and on Node 22 and 24 the prebuilt 6.x, so nothing compiles there.
 *
 * The lockfile records `>=18.0.0 <22` as isolated-vm 5.0.4's engines (its package says `>=18.0.0`):
 * `npm ci` and `npm install` keep that entry as it is, but updating the package or regenerating the
 * lock writes the published range back — then this test fails; restore the range (docs/sandbox.md).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string }; optional?: boolean }> };
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { optionalDependencies: Record<string, string> };

/** npm's Arborist, from the npm that runs this (npm test, npx) or the one on the PATH. */
function npmArborist(): new (options: Record<string, unknown>) => { buildIdealTree(): Promise<{ inventory: Map<string, { location: string; inert: boolean }> }> } {
  const candidates = [process.env.npm_execpath, execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim()];
  for (const candidate of candidates) {
    if (!candidate || !existsSync(candidate)) continue;
    let dir = dirname(realpathSync(candidate));
    while (dir !== dirname(dir) && !existsSync(join(dir, 'node_modules', '@npmcli', 'arborist'))) dir = dirname(dir);
    const arborist = join(dir, 'node_modules', '@npmcli', 'arborist');
    if (existsSync(arborist)) return createRequire(import.meta.url)(arborist) as ReturnType<typeof npmArborist>;
  }
  throw new Error(`npm's @npmcli/arborist not found from ${candidates.join(', ')}`);
}

describe('which isolated-vm a checkout installs, per Node', () => {
  // The two files `npm ci` reads, alone: no node_modules to mix in.
  const dir = mkdtempSync(join(tmpdir(), 'pve-ivm-install-'));
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  copyFileSync(join(root, 'package-lock.json'), join(dir, 'package-lock.json'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const installed = async (nodeVersion: string): Promise<string[]> => {
    const Arborist = npmArborist();
    const tree = await new Arborist({ path: dir, nodeVersion, offline: true, audit: false }).buildIdealTree();
    return [...tree.inventory.values()]
      .filter((n) => !n.inert && /^node_modules\/(isolated-vm|isolated-vm-v6|prebuild-install|node-gyp-build)$/.test(n.location))
      .map((n) => n.location.slice('node_modules/'.length))
      .sort();
  };

  it('the lockfile narrows isolated-vm 5.0.x to Node < 22 and pins what package.json asks for', () => {
    expect(manifest.optionalDependencies).toEqual({ 'isolated-vm': '5.0.4', 'isolated-vm-v6': 'npm:isolated-vm@6.2.0' });
    expect(lock.packages['node_modules/isolated-vm']).toMatchObject({ version: '5.0.4', optional: true, engines: { node: '>=18.0.0 <22' } });
    expect(lock.packages['node_modules/isolated-vm-v6']).toMatchObject({ version: '6.2.0', optional: true, engines: { node: '>=22.0.0' } });
  });

  it('Node 20: isolated-vm 5.0.x (built from source unless a prebuilt binary downloads), no 6.x', async () => {
    expect(await installed('20.19.0')).toEqual(['isolated-vm', 'prebuild-install']);
    expect(await installed('21.7.3')).toEqual(['isolated-vm', 'prebuild-install']);
  });

  it('Node 22 and 24: only 6.x with its prebuilt binary, so nothing compiles', async () => {
    expect(await installed('22.0.0')).toEqual(['isolated-vm-v6', 'node-gyp-build']);
    expect(await installed('22.23.5')).toEqual(['isolated-vm-v6', 'node-gyp-build']);
    expect(await installed('24.22.3')).toEqual(['isolated-vm-v6', 'node-gyp-build']);
  });
});
