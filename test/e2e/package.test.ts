/**
 * The release as a user gets it: the committed tree (HEAD, what a release is cut from) is built
 * from clean and packed with `npm pack` (its prepack script), the tarball's contents are checked
 * (what users need and nothing else), it is installed into a temporary project OFFLINE from the
 * npm cache, and the installed command runs its demo end to end — including the client snippet it
 * prints, started by a real MCP client.
 *
 * Offline: `npm install --offline --prefix DIR ./pve-code-mcp-x.tgz` cannot work from this
 * machine's cache (it holds the dependency tarballs but not their registry metadata, so npm
 * cannot resolve versions: ENOTCACHED). A lockfile for the temporary project — the package's own
 * locked dependency tree, which is exactly what the tarball pins — lets `npm ci --offline` fetch
 * every tarball from the cache by its integrity instead.
 *
 * Slow (a clean TypeScript build, and isolated-vm compiled from source on Node 20): about 3
 * minutes here. PVE_SKIP_PACK_TEST=1 skips it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/harness.js';

const skip = process.env.PVE_SKIP_PACK_TEST === '1';

describe.skipIf(skip)('the npm package, packed, installed offline and run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pve-pack-'));
  const src = join(dir, 'src');
  const project = join(dir, 'project');
  const timings: Record<string, number> = {};
  let tarball = '';
  let files: string[] = [];
  let manifest: Record<string, unknown> = {};

  const timed = <T>(name: string, fn: () => T): T => {
    const started = performance.now();
    try {
      return fn();
    } finally {
      timings[name] = Math.round(performance.now() - started);
    }
  };
  const run = (cmd: string, args: string[], cwd: string, env: Record<string, string | undefined> = process.env): string => {
    const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };

  beforeAll(() => {
    // The committed tree, built from clean by the package's own prepack (no stale dist files).
    mkdirSync(src);
    const archive = execFileSync('git', ['archive', '--format=tar', 'HEAD'], { cwd: REPO_ROOT, maxBuffer: 256 * 1024 * 1024 });
    spawnSync('tar', ['-x', '-C', src], { input: archive });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(src, 'node_modules'));
    const packed = timed('build + pack', () => run('npm', ['pack', '--json', '--pack-destination', dir], src));
    const info = (JSON.parse(packed) as Array<{ filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }>)[0];
    if (!info) throw new Error(`npm pack printed no result:\n${packed}`);
    tarball = join(dir, info.filename);
    files = info.files.map((f) => f.path);
    timings['tarball bytes'] = info.size;
    timings['unpacked bytes'] = info.unpackedSize;
    manifest = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8')) as Record<string, unknown>;
  }, 600_000);

  afterAll(() => {
    // The figures the report quotes.
    process.stderr.write(`package test: ${JSON.stringify(timings)}\n`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('ships what users need and nothing else', () => {
    expect(files).toContain('dist/src/cli/bin.js');
    expect(files).toContain('sandbox/prelude.js');
    expect(files).toContain('views/main.js');
    expect(files).toContain('sdk-typings/pve.d.ts');
    expect(files).toContain('schema/config.schema.json');
    expect(files).toContain('server.json');
    expect(files).toContain('LICENSE');
    // Every doc the README links.
    const readme = readFileSync(join(src, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => m[1] as string);
    expect(linked.length).toBeGreaterThan(3);
    for (const doc of linked) expect(files, doc).toContain(doc);
    // No benchmarks, no tests, no source maps without their sources, no stale build output.
    expect(files.filter((f) => f.startsWith('dist/bench') || f.endsWith('.map') || /\.test\.js$/.test(f) || f.startsWith('test/') || f.startsWith('bench/'))).toEqual([]);
    const stale = files.filter((f) => f.startsWith('dist/src/') && !existsSync(join(src, f.slice('dist/'.length).replace(/\.js$/, '.ts'))));
    expect(stale).toEqual([]);
  });

  it('has the metadata a registry listing needs, consistent with server.json', () => {
    const server = JSON.parse(readFileSync(join(src, 'server.json'), 'utf8')) as {
      name: string;
      version: string;
      repository: { url: string };
      packages: Array<{ registryType: string; identifier: string; version: string; transport: { type: string } }>;
    };
    const repo = (manifest.repository as { url: string }).url;
    expect(manifest.mcpName).toBe(server.name);
    expect(server.version).toBe(manifest.version);
    expect(server.packages[0]).toMatchObject({ registryType: 'npm', identifier: manifest.name, version: manifest.version, transport: { type: 'stdio' } });
    expect(repo).toBe(`git+${server.repository.url}.git`);
    // The registry verifies io.github.<owner>/… against the repository's owner.
    const owner = /^io\.github\.([^/]+)\//.exec(server.name)?.[1];
    expect(server.repository.url.startsWith(`https://github.com/${owner}/`)).toBe(true);
    expect(manifest.homepage).toBeTruthy();
    expect((manifest.bugs as { url: string }).url).toBeTruthy();
  });

  it('installs offline from the npm cache and the installed command runs the demo end to end', async () => {
    mkdirSync(project);
    const lock = JSON.parse(readFileSync(join(src, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };
    const spec = `file:${tarball}`;
    const packages: Record<string, Record<string, unknown>> = {
      '': { name: 'consumer', version: '1.0.0', dependencies: { 'pve-code-mcp': spec } },
      'node_modules/pve-code-mcp': {
        version: manifest.version,
        resolved: spec,
        license: manifest.license,
        dependencies: manifest.dependencies,
        optionalDependencies: manifest.optionalDependencies,
        bin: manifest.bin,
        engines: manifest.engines,
      },
    };
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path === '' || !path.startsWith('node_modules/') || entry.dev === true) continue;
      const { devOptional: _devOptional, ...rest } = entry;
      packages[path] = rest;
    }
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, dependencies: { 'pve-code-mcp': spec }, allowScripts: { 'isolated-vm': true } }, null, 2),
    );
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2));
    timed('npm ci --offline', () => run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], project));

    const bin = join(project, 'node_modules', '.bin', 'pve-code-mcp');
    expect(existsSync(bin)).toBe(true);
    const env = { ...process.env, PVE_STATE_DIR: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_CACHE_HOME: join(dir, 'cache') };
    for (const k of Object.keys(env)) if (k.startsWith('PVE_') && k !== 'PVE_STATE_DIR') delete env[k];
    const out = timed('installed demo --walkthrough', () => run(bin, ['demo', '--walkthrough'], project, env));
    expect(out).toContain('MCP tools: search_api, get_schema, run_script');
    expect(out).toMatch(/── 3\. run_script[\s\S]*→\n\{"guests":\d+,"running":\d+/);
    expect(out).toMatch(/── 4\. run_script with dryRun[\s\S]*plan [0-9a-f]{64}:/);
    expect(run(bin, ['config', 'schema'], project, env)).toContain('"clusters"');

    // The snippet the installed demo prints, started as a client would: the exact Node and the installed script.
    const snippet = /Claude Desktop[^\n]*\n((?: {4}.*\n)+)/.exec(out)?.[1];
    expect(snippet, out).toBeDefined();
    const config = JSON.parse((snippet as string).replace(/^ {4}/gm, '')) as { mcpServers: Record<string, { command: string; args: string[] }> };
    const server = config.mcpServers['pve-demo'];
    expect(server?.command).toBe(process.execPath);
    expect(server?.args[0]).toBe(join(project, 'node_modules', 'pve-code-mcp', 'dist', 'src', 'cli', 'bin.js'));
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: server?.command as string, args: server?.args ?? [], env: env as Record<string, string>, cwd: project, stderr: 'pipe' });
    await client.connect(transport, { timeout: 120_000 });
    try {
      const result = await client.callTool({ name: 'run_script', arguments: { code: "return (await pve.get('/nodes')).length;" } }, undefined, { timeout: 60_000 });
      expect((result.structuredContent as { result: unknown }).result).toBe(3);
      expect((await client.listPrompts()).prompts.length).toBe(5);
    } finally {
      await client.close();
    }
  }, 600_000);
});
