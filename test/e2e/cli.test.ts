/**
 * The `pve-code-mcp` CLI as an operator uses it: help and exit codes, offline search/schema on the
 * official schema, `run` against the simulator, `audit verify` before and after tampering, and
 * `config check` with a fix for a wrong fingerprint.
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasOfficialSchema } from '../../src/schema/official-schemas.js';
import { OFFICIAL_SCHEMA, runCli, startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { statusOf } from './helpers/flows.js';

const COMMANDS = ['serve', 'demo', 'run', 'search', 'schema', 'approve', 'undo', 'console', 'audit', 'halt', 'resume', 'simulator', 'config'];

describe('pve-code-mcp CLI: help and exit codes', () => {
  it('prints help for every command and exits 0', async () => {
    const results = await Promise.all([['--help'], ...COMMANDS.map((c) => [c, '--help'])].map((args) => runCli(args)));
    results.forEach((r, i) => {
      const command = i === 0 ? '(top level)' : COMMANDS[i - 1];
      expect(r.code, `${command}: ${r.stderr}`).toBe(0);
      expect(r.stdout, command).toMatch(/Usage: pve-code-mcp/);
    });
    for (const c of COMMANDS) expect(results[0]?.stdout).toContain(`  ${c} `);
  });

  it('exits 2 on an unknown command, a bad option or missing arguments', async () => {
    const [nothing, unknown, badOption, noQuery, badFormat] = await Promise.all([
      runCli([]),
      runCli(['explode']),
      runCli(['search', 'vm', '--frobnicate']),
      runCli(['search']),
      runCli(['run', 'x.ts', '--format', 'xml']),
    ]);
    expect(nothing.code).toBe(2);
    expect(nothing.stdout).toBe('');
    expect(nothing.stderr).toMatch(/Usage: pve-code-mcp/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'explode'/);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toMatch(/frobnicate/);
    expect(noQuery.code).toBe(2);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toMatch(/--format must be json, table or csv/);
  });
});

describe.skipIf(!hasOfficialSchema('9.1'))('pve-code-mcp CLI offline on the official 9.1 schema', () => {
  // Offline: no config, no PVE_* variables; only the schema file.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PVE_'))) as Record<string, string>;

  it('search finds operations across the whole API', async () => {
    const r = await runCli(['search', 'snapshot a vm', '--schema', OFFICIAL_SCHEMA, '--limit', '5'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^POST \/nodes\/\{node\}\/qemu\/\{vmid\}\/snapshot — .* \[write\]$/m);
    expect(r.stdout.trim().split('\n').length).toBeLessThanOrEqual(5);
    const filtered = await runCli(['search', 'firewall rules', '--schema', OFFICIAL_SCHEMA, '--method', 'delete', '--risk', 'destructive'], { env });
    expect(filtered.code, filtered.stderr).toBe(0);
    for (const line of filtered.stdout.trim().split('\n')) expect(line).toMatch(/^DELETE .*\[destructive\]$/);
  });

  it('schema prints the TypeScript signature, and exits 1 with suggestions for an unknown operation', async () => {
    const r = await runCli(['schema', 'GET /nodes/{node}/qemu', '--schema', OFFICIAL_SCHEMA], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("pve.get('/nodes/{node}/qemu'");
    expect(r.stdout).toMatch(/node: string/);
    const missing = await runCli(['schema', 'GET /nodez', '--schema', OFFICIAL_SCHEMA], { env });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/Not found: GET \/nodez\. Did you mean: .*GET \/nodes/);
  });
});

describe('pve-code-mcp CLI against the simulator', () => {
  let env: E2eEnv;

  beforeAll(async () => {
    env = await startE2eEnv();
  }, 120_000);

  afterAll(async () => {
    await env?.close();
  });

  it('run FILE.ts prints the result as JSON and exits 0', async () => {
    const file = join(env.dir, 'count.ts');
    writeFileSync(file, "const nodes = await pve.get('/nodes');\nconsole.log('nodes:', nodes.length);\nreturn nodes.map((n) => n.node).sort();\n");
    const r = await runCli(['run', file, '--config', env.configFile], { env: env.env });
    expect(r.code, r.stderr).toBe(0);
    const output = JSON.parse(r.stdout) as { ok: boolean; result: unknown; logs: string[] };
    expect(output.ok).toBe(true);
    expect(output.result).toEqual([...env.sim.cluster.nodeNames].sort());
    expect(output.logs).toEqual(['nodes: 3']);
    expect(r.stderr).toContain('log: nodes: 3');
  });

  it('run --policy admin adds a guest IP set entry and reads it back by its CIDR path', async () => {
    const guest = env.sim.cluster.guests().find((g) => g.type === 'qemu' && g.node === 'pve1');
    expect(guest).toBeDefined();
    const at = `node: 'pve1', vmid: ${guest?.vmid}, name: 'allowed'`;
    const code = [
      `await pve.post('/nodes/{node}/qemu/{vmid}/firewall/ipset', { node: 'pve1', vmid: ${guest?.vmid}, name: 'allowed', comment: 'from the CLI' });`,
      `await pve.post('/nodes/{node}/qemu/{vmid}/firewall/ipset/{name}', { ${at}, cidr: '10.20.0.0/16' });`,
      `return (await pve.get('/nodes/{node}/qemu/{vmid}/firewall/ipset/{name}/{cidr}', { ${at}, cidr: '10.20.0.0/16' })).cidr;`,
    ].join('\n');
    const r = await runCli(['run', '-', '--config', env.configFile, '--policy', 'admin'], { env: env.env, input: code });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe('10.20.0.0/16');
    expect(env.sim.cluster.state.guestIpsets(guest?.vmid as number).get('allowed')).toEqual({ name: 'allowed', comment: 'from the CLI', entries: [{ cidr: '10.20.0.0/16' }] });
  });

  it('run --format table renders returned rows; run - reads the script from stdin', async () => {
    const r = await runCli(['run', '-', '--config', env.configFile, '--format', 'table'], {
      env: env.env,
      input: "return (await pve.get('/nodes')).map((n) => ({ node: n.node, status: n.status })).sort((a, b) => a.node.localeCompare(b.node));",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^node\s+status$/);
    expect(r.stdout).toMatch(/^pve1\s+online$/m);
  });

  it('run --dry-run plans writes without sending them', async () => {
    const file = join(env.dir, 'start.ts');
    writeFileSync(file, "const upid = await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve2', vmid: 107 });\nreturn (await pve.waitTask(upid)).ok;\n");
    const writes = env.sim.counters.snapshot().writes;
    const r = await runCli(['run', file, '--dry-run', '--config', env.configFile], { env: env.env });
    expect(r.code, r.stderr).toBe(0);
    const output = JSON.parse(r.stdout) as { plan: { planId: string; writes: unknown[] } };
    expect(output.plan.planId).toMatch(/^[0-9a-f]{64}$/);
    expect(output.plan.writes).toHaveLength(1);
    expect(env.sim.counters.snapshot().writes).toBe(writes);
    expect(statusOf(env.sim, 107)).toBe('stopped');
  });

  it('run exits 1 on a failing script and says why', async () => {
    const file = join(env.dir, 'fail.ts');
    writeFileSync(file, "await pve.get('/nodes');\nthrow new Error('deliberate failure');\n");
    const r = await runCli(['run', file, '--config', env.configFile], { env: env.env });
    expect(r.code).toBe(1);
    const output = JSON.parse(r.stdout) as { ok: boolean; error: { message: string; line?: number } };
    expect(output.ok).toBe(false);
    expect(output.error.message).toMatch(/deliberate failure/);
    expect(output.error.line).toBe(2);
    const typeError = join(env.dir, 'types.ts');
    writeFileSync(typeError, "return await pve.gett('/nodes');\n");
    const t = await runCli(['run', typeError, '--config', env.configFile], { env: env.env });
    expect(t.code).toBe(1);
    expect(t.stdout).toMatch(/'gett' is not a member of the pve SDK/);
  });

  it('audit verify passes on the log the runs wrote and fails after tampering', async () => {
    const log = join(env.stateDir, 'audit.jsonl');
    expect(existsSync(log)).toBe(true);
    const fresh = await runCli(['audit', 'verify', '--config', env.configFile], { env: env.env });
    expect(fresh.code, fresh.stdout + fresh.stderr).toBe(0);

    // Tamper with a copy (with its anchor) so this test leaves the live log intact.
    const copy = join(env.dir, 'tampered.jsonl');
    copyFileSync(log, copy);
    if (existsSync(`${log}.anchor`)) copyFileSync(`${log}.anchor`, `${copy}.anchor`);
    const intact = await runCli(['audit', 'verify', '--file', copy], { env: env.env });
    expect(intact.code, intact.stdout + intact.stderr).toBe(0);
    const lines = readFileSync(copy, 'utf8').split('\n');
    const target = lines.findIndex((l) => l.includes('deliberate failure'));
    expect(target).toBeGreaterThan(0);
    lines[target] = (lines[target] as string).replace('deliberate failure', 'nothing happened');
    writeFileSync(copy, lines.join('\n'));
    const tampered = await runCli(['audit', 'verify', '--file', copy], { env: env.env });
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/edited/i);
  });

  it('config check passes against the simulator', async () => {
    const r = await runCli(['config', 'check', '--config', env.configFile], { env: env.env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ok\s+sandbox: a script ran in \d+ ms \(isolated-vm \d+\.\d+\.\d+\), worker confined by Node's permission model/);
    expect(r.stdout).toMatch(/ok\s+TLS \+ authentication/);
    expect(r.stdout).toMatch(/ok\s+permissions/);
    expect(r.stdout).toContain('all checks passed');
  });

  it('config check says so when the configuration turns worker confinement off', async () => {
    const unconfined = env.writeConfig('unconfined.json', { sandbox: { confineWorker: false } });
    const r = await runCli(['config', 'check', '--config', unconfined], { env: env.env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ok\s+sandbox: .*worker NOT confined \(sandbox\.confineWorker is false\)/);
  });

  it('config check fails the sandbox step with the fix when the limits refuse any script, and exits 3', async () => {
    const tight = env.writeConfig('tight.json', { sandbox: { limits: { maxCodeBytes: 1 } } });
    const r = await runCli(['config', 'check', '--config', tight], { env: env.env });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/FAIL\s+sandbox: a trivial script did not run/);
    expect(r.stdout).toMatch(/fix: sandbox\.limits in the configuration refuse even this script/);
    expect(r.stdout).toMatch(/ok\s+TLS \+ authentication/);
  });

  it('config check reports a wrong fingerprint with the fix, and exits 3', async () => {
    const wrong = env.writeConfig('wrong-fingerprint.json', { fingerprint: Array.from({ length: 32 }, () => 'AB').join(':') });
    const r = await runCli(['config', 'check', '--config', wrong], { env: env.env });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/FAIL\s+TLS \+ authentication/);
    expect(r.stdout).toMatch(/fix: .*tls\.fingerprint/);
    expect(r.stdout).not.toContain(env.sim.token.secret);
  });

  it('config check exits 3 on an invalid config file and names the key', async () => {
    const bad = join(env.dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ clusters: { sim: { url: 'http://plain', auth: {} } } }));
    const r = await runCli(['config', 'check', '--config', bad], { env: env.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/url/);
  });
});
