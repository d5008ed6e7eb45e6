/**
 * An operator's deployment, end to end with the built CLI and a real MCP client: the policy lint
 * in `config check` (non-zero exit, did-you-mean) and at `serve` start (warnings); a degraded
 * start where one cluster is unreachable and one has a missing secret while a healthy one serves,
 * the bad ones answer with the cluster, cause and fix, and the missing secret is picked up by the
 * background retry; the README's multi-cluster example starting as written.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN } from './helpers/harness.js';
import { callTool, textOf, type Connected } from './helpers/mcp.js';

let env: E2eEnv;

beforeAll(async () => {
  env = await startE2eEnv();
}, 120_000);

afterAll(async () => {
  await env?.close();
});

/** A config with one cluster per entry; `policies` shared. */
function writeConfig(name: string, clusters: Record<string, Record<string, unknown>>, policies: Record<string, unknown> = {}): string {
  const file = join(env.dir, name);
  const config = { clusters, cacheDir: join(env.dir, `cache-${name}`), stateDir: env.stateDir, policies };
  writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
  return file;
}

const simCluster = (policy: string): Record<string, unknown> => ({
  url: env.sim.url,
  auth: { tokenId: env.sim.token.id, secret: env.sim.token.secret },
  tls: { fingerprint: env.sim.fingerprint },
  policy,
});

describe('config check: the policy lint', () => {
  it('passes a policy whose rules all match, and fails one with typos, naming each with a did-you-mean', async () => {
    const good = writeConfig(
      'lint-good.json',
      { sim: simCluster('ops') },
      {
        ops: {
          preset: 'operator',
          deny: ['* /nodes/*/qemu/100/**'],
          privileged: ['POST /nodes/*/vzdump +script'],
          targets: [{ action: 'deny', vmids: [101], nodes: ['pve3'], tags: ['prod'] }],
          scopes: { pools: ['production'] },
        },
      },
    );
    const ok = await runCli(['config', 'check', '--config', good], { env: env.env, timeoutMs: 120_000 });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/ok {4}policy lint \(schema and inventory\): 2 rule\(s\), 1 target rule\(s\)/);
    expect(ok.stdout).toMatch(/all checks passed/);
    expect(ok.stdout).toContain(
      "deny[0]: deny '* /nodes/*/qemu/100/**' → protects VMID 100 from every call, by any path (as target rule {action: 'deny', vmids: [100], risk: ['read', 'write', 'destructive', 'privileged']})",
    );

    const bad = writeConfig(
      'lint-bad.json',
      { sim: simCluster('ops') },
      {
        ops: {
          preset: 'operator',
          deny: ['* /node/*/qemu/100/**'],
          allow: ['DELETE /cluster/resources'],
          privileged: ['POST /nodes/*/vzdump +scirpt'],
          targets: [{ action: 'deny', vmids: [1000], nodes: ['pve4'] }],
          scopes: { pools: ['prodution'] },
        },
      },
    );
    const r = await runCli(['config', 'check', '--config', bad], { env: env.env, timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stdout).toMatch(/FAIL {2}policy lint \(schema and inventory\): 6 rule\(s\) match nothing/);
    expect(r.stdout).toContain("error: policies.ops.deny[0]: '* /node/*/qemu/100/**' matches no operation");
    expect(r.stdout).toContain("did you mean '* /nodes/*/qemu/100/**'?");
    expect(r.stdout).toContain("error: policies.ops.allow[0]: 'DELETE /cluster/resources' matches no operation");
    expect(r.stdout).toContain("did you mean 'GET /cluster/resources'?");
    expect(r.stdout).toContain("error: policies.ops.privileged[0]: '+scirpt' names no parameter or escalation rule");
    expect(r.stdout).toContain("did you mean 'POST /nodes/*/vzdump +script'?");
    expect(r.stdout).toMatch(/error: policies\.ops\.targets\[0\]\.vmids\[0\]: VMID 1000 is not a guest of this cluster; did you mean '100'\?/);
    expect(r.stdout).toMatch(/error: policies\.ops\.targets\[0\]\.nodes\[0\]: node 'pve4' does not exist in this cluster; did you mean 'pve1'\?/);
    expect(r.stdout).toMatch(/error: policies\.ops\.scopes\.pools\[0\]: pool 'prodution' does not exist in this cluster; did you mean 'production'\?/);
    expect(r.stdout).toMatch(/1 check\(s\) failed/);
  }, 180_000);

  it('on an unreachable cluster: schema rules are still errors, the inventory is only a warning', async () => {
    const schemaFile = join(env.dir, 'sim-apidoc.js');
    writeFileSync(schemaFile, env.sim.apidocText);
    const file = writeConfig(
      'lint-down.json',
      {
        down: { url: 'https://127.0.0.1:1', auth: { tokenId: 'root@pam!x', secret: 'x' }, tls: { insecure: true }, schema: schemaFile, policy: 'ops', retry: { attempts: 1 } },
      },
      { ops: { preset: 'operator', deny: ['* /nodes/*/qemu/100/stauts/**'], targets: [{ action: 'deny', vmids: [4242, 100] }] } },
    );
    const r = await runCli(['config', 'check', '--config', file], { env: env.env, timeoutMs: 120_000 });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/FAIL {2}TLS \+ authentication: .*127\.0\.0\.1:1/);
    expect(r.stdout).toMatch(/FAIL {2}policy lint \(schema only\): 1 rule\(s\) match nothing/);
    expect(r.stdout).toContain("did you mean '* /nodes/*/qemu/100/status/**'?");
    expect(r.stdout).toMatch(/warning: targets and scopes not checked against the inventory/);
    // The rule is described (what it protects), but not checked against an inventory it has not got.
    expect(r.stdout).not.toMatch(/(error|warning): policies\.ops\.targets/);
    expect(r.stdout).toContain('targets[0]: refuses every write, destructive, privileged call that reaches VMIDs 4242, 100, by any path');
  }, 180_000);

  it('config schema prints the JSON Schema that is shipped in schema/config.schema.json', async () => {
    const r = await runCli(['config', 'schema'], { env: env.env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(readFileSync(join(REPO_ROOT, 'schema', 'config.schema.json'), 'utf8')));
  });
});

describe('serve: degraded start', () => {
  let c: Connected | undefined;
  const secretFile = (): string => join(env.dir, 'lab-secret');

  afterAll(async () => {
    await c?.close();
  });

  it('serves the healthy cluster, answers for the bad ones with cluster, cause and fix, and picks up a secret that appears', async () => {
    const file = writeConfig(
      'degraded.json',
      {
        sim: simCluster('typo'),
        down: { url: 'https://127.0.0.1:1', auth: { tokenId: 'root@pam!x', secret: 'x' }, tls: { insecure: true }, policy: 'read-only', retry: { attempts: 1 } },
        lab: { ...simCluster('read-only'), auth: { tokenId: env.sim.token.id, secret: { file: secretFile() } } },
      },
      { typo: { preset: 'operator', deny: ['* /node/*/qemu/100/**'] } },
    );
    c = await connectServe(file, { PVE_CLUSTER_RETRY_MS: '500' });

    const ok = await callTool(c, 'search_api', { query: 'list virtual machines', cluster: 'sim' });
    expect(ok.result.isError, textOf(ok.result)).toBeFalsy();
    expect(textOf(ok.result)).toMatch(/GET \/nodes\/\{node\}\/qemu/);

    const down = await callTool(c, 'search_api', { query: 'list virtual machines', cluster: 'down' });
    expect(down.result.isError).toBe(true);
    expect(textOf(down.result)).toMatch(/cluster 'down' is unavailable: .*127\.0\.0\.1:1.* Fix: check the URL .* retries it in the background .* available clusters: sim/);

    const lab = await callTool(c, 'run_script', { code: "return (await pve.get('/nodes')).length;", cluster: 'lab' });
    expect(lab.result.isError).toBe(true);
    expect(textOf(lab.result)).toMatch(/cluster 'lab' is unavailable: clusters\.lab\.auth\.secret: cannot read .*lab-secret \(ENOENT\).* Fix: provide the secret/);

    // The lint warned at start, naming the rule and the fix; the server still serves.
    await waitFor(
      () => /policy lint \(matches nothing\): policies\.typo\.deny\[0\]: .*did you mean '\* \/nodes\/\*\/qemu\/100\/\*\*'\?/.test(c?.stderr() ?? ''),
      20_000,
      () => c?.stderr() ?? '',
    );

    const resources = async () => (await (c as Connected).client.listResources()).resources.map((r) => r.uri);
    expect(await resources()).not.toContain('pve://lab/version');
    let listChanged = 0;
    c.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged++;
    });
    writeFileSync(secretFile(), env.sim.token.secret, { mode: 0o600 });
    await waitFor(
      () => /cluster 'lab' is available/.test(c?.stderr() ?? ''),
      30_000,
      () => c?.stderr() ?? '',
    );
    // The open session learns of the recovered cluster: its resources, and list_changed.
    await waitFor(
      () => listChanged > 0,
      10_000,
      () => c?.stderr() ?? '',
    );
    expect(await resources()).toEqual(expect.arrayContaining(['pve://lab/sdk.d.ts', 'pve://lab/version', 'pve://lab/policy']));
    const after = await callTool(c, 'run_script', { code: "return (await pve.get('/nodes')).length;", cluster: 'lab' });
    expect(after.result.isError, textOf(after.result)).toBeFalsy();
    expect((after.result.structuredContent as { result: unknown }).result).toBe(3);
    // The secret read later is scrubbed like the others.
    const echo = await callTool(c, 'run_script', { code: `return ${JSON.stringify(env.sim.token.secret)};`, cluster: 'lab' });
    expect(textOf(echo.result)).not.toContain(env.sim.token.secret);
  }, 180_000);

  it('the README multi-cluster example and its Claude Desktop env start as written', async () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const example = /```json\n(\{\n {2}"\$schema"[\s\S]*?\n\})\n```/.exec(readme.replace(/^ {3}/gm, ''))?.[1];
    expect(example, 'the README config example').toBeDefined();
    const file = join(env.dir, 'readme-pve.json');
    writeFileSync(file, example as string);
    const desktop = /"mcpServers": \{[\s\S]*?"env": (\{[^}]*\})/.exec(readme)?.[1];
    expect(desktop, 'the README Claude Desktop env block').toBeDefined();
    const extra = JSON.parse(desktop as string) as Record<string, string>;
    // The client's config carries no secret (README: "Keep the token secret out of the client's config file").
    expect(Object.keys(extra).filter((k) => /SECRET|TOKEN|PASSWORD/.test(k))).toEqual([]);
    const readmeClient = await connectServe(file, { ...extra, PVE_CLUSTER_RETRY_MS: '60000' });
    try {
      const tools = await readmeClient.client.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(['search_api', 'get_schema', 'run_script']);
      const r = await callTool(readmeClient, 'search_api', { query: 'list virtual machines' });
      expect(r.result.isError).toBe(true);
      expect(textOf(r.result)).toMatch(/cluster 'prod' is unavailable: .*PVE_PROD_SECRET is not set.* Fix: /);
      expect(readmeClient.stderr()).toMatch(/cluster 'lab' is unavailable .*\/run\/secrets\/lab-token/);
    } finally {
      await readmeClient.close();
    }
  }, 180_000);
});

async function waitFor(cond: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out; stderr:\n${describe()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `serve --config FILE` over stdio with extra environment variables, as a client starts it. */
async function connectServe(configFile: string, extraEnv: Record<string, string>): Promise<Connected> {
  const client = new Client({ name: 'operators', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--config', configFile], env: { ...env.env, ...extraEnv }, cwd: REPO_ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  try {
    await client.connect(transport, { timeout: 120_000 });
  } catch (err) {
    throw new Error(`cannot connect to the stdio server: ${String(err)}\nserver stderr:\n${stderr}`);
  }
  return { client, elicitations: [], logs: [], stderr: () => stderr, close: () => client.close() };
}
