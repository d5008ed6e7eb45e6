import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClients, loadConfig } from './config.js';
import { PveConfigError } from './errors.js';
import type { Secret } from './secret.js';

const FP = 'AB:'.repeat(31) + 'CD';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pve-client-config-'));
  await writeFile(join(dir, 'lab.secret'), 'file-secret-value\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeConfig(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

async function configError(promise: Promise<unknown>): Promise<PveConfigError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(PveConfigError);
    return err as PveConfigError;
  }
  throw new Error('expected a PveConfigError');
}

describe('loadConfig from a file', () => {
  it('reads several clusters with inline, env and file secrets, resolving relative paths', async () => {
    const file = await writeConfig('ok.json', {
      defaultCluster: 'lab',
      cacheDir: 'cache',
      clusters: {
        prod: {
          url: 'https://pve1.example.com:8006',
          auth: { tokenId: 'root@pam!mcp', secret: { env: 'PROD_SECRET' } },
          tls: { fingerprint: FP.toLowerCase().replace(/:/g, '') },
          policy: 'read-only',
          maxConcurrency: 2,
        },
        lab: {
          url: 'https://lab:8006',
          auth: { username: 'admin', realm: 'pve', password: { file: 'lab.secret' }, renewAfterMs: 60000 },
          tls: { caFile: 'ca.pem' },
          schema: 'apidoc.js',
        },
        inline: { url: 'https://x:8006', auth: { username: 'root@pam', password: 'pw' }, tls: { insecure: true } },
      },
    });
    const cfg = await loadConfig({ file, env: { PROD_SECRET: 'env-secret-value' } });
    expect(cfg.defaultCluster).toBe('lab');
    expect(cfg.cacheDir).toBe(join(dir, 'cache'));
    expect(cfg.clusters.map((c) => c.name)).toEqual(['prod', 'lab', 'inline']);
    const [prod, lab, inline] = cfg.clusters;
    expect(prod!.auth).toMatchObject({ kind: 'token', tokenId: 'root@pam!mcp' });
    expect((prod!.auth as { secret: Secret }).secret.reveal()).toBe('env-secret-value');
    expect(prod!.tls.fingerprint).toBe(FP);
    expect(prod!.policy).toBe('read-only');
    expect(lab!.auth).toMatchObject({ kind: 'ticket', username: 'admin', realm: 'pve', renewAfterMs: 60000 });
    expect((lab!.auth as { password: Secret }).password.reveal()).toBe('file-secret-value');
    expect(lab!.tls.caFile).toBe(join(dir, 'ca.pem'));
    expect(lab!.schema).toBe(join(dir, 'apidoc.js'));
    expect(inline!.tls.insecure).toBe(true);
    const shown = inspect(cfg, { depth: 20 }) + JSON.stringify(cfg);
    for (const secret of ['env-secret-value', 'file-secret-value', '"pw"']) expect(shown).not.toContain(secret);
  });

  it('names every bad key with a fix', async () => {
    const file = await writeConfig('bad.json', {
      defaultCluster: 'nope',
      clusters: {
        a: { url: 'http://a:8006', auth: { tokenId: 'root@pam:mcp', secret: 's' }, tls: { fingerprint: 'AB:CD' } },
        b: { url: 'https://b:8006', auth: { username: 'u' }, colour: 'red' },
        c: { url: 'https://c:8006', auth: { tokenId: 'root@pam!x', secret: 's', password: 'p' } },
      },
    });
    const err = await configError(loadConfig({ file, env: {} }));
    const byKey = Object.fromEntries(err.issues.map((i) => [i.key, i.message]));
    expect(byKey['clusters.a.url']).toMatch(/https:\/\//);
    expect(byKey['clusters.a.auth.tokenId']).toMatch(/root@pam!mcp/);
    expect(byKey['clusters.a.tls.fingerprint']).toMatch(/SHA-256/);
    expect(byKey['clusters.b.auth.password']).toMatch(/missing/);
    expect(byKey['clusters.b']).toMatch(/unknown key "colour"/);
    expect(byKey['clusters.c.auth']).toMatch(/not both/);
    expect(err.message).toContain(file);
  });

  it('reports unset env secrets and unreadable secret files, without values', async () => {
    const file = await writeConfig('secrets.json', {
      clusters: {
        a: { url: 'https://a:8006', auth: { tokenId: 'root@pam!t', secret: { env: 'MISSING_VAR' } } },
        b: { url: 'https://b:8006', auth: { username: 'u', password: { file: 'does-not-exist' } } },
      },
    });
    const err = await configError(loadConfig({ file, env: {} }));
    expect(err.issues).toEqual([
      { key: 'clusters.a.auth.secret', message: expect.stringMatching(/MISSING_VAR is not set/) },
      { key: 'clusters.b.auth.password', message: expect.stringMatching(/ENOENT/) },
    ]);
  });

  it('refuses a token secret an HTTP header cannot carry, naming the field and not the value', async () => {
    const placeholder = 'xxxxxxxx-\u2026';
    const file = await writeConfig('placeholder.json', {
      clusters: {
        a: { url: 'https://a:8006', auth: { tokenId: 'root@pam!t', secret: placeholder }, tokens: { write: { tokenId: 'root@pam!w', secret: 'ok-1234\n' } } },
      },
    });
    const err = await configError(loadConfig({ file, env: {} }));
    expect(err.issues).toEqual([
      { key: 'clusters.a.auth.secret', message: expect.stringContaining('U+2026 at character 10') },
      { key: 'clusters.a.tokens.write.secret', message: expect.stringContaining('U+000A at character 8') },
    ]);
    expect(err.message).not.toContain('xxxxxxxx');
    const env = await configError(loadConfig({ env: { PVE_URL: 'https://pve:8006', PVE_TOKEN_ID: 'root@pam!mcp', PVE_TOKEN_SECRET: 'a b', PVE_INSECURE: 'true' } }));
    expect(env.issues).toEqual([{ key: 'PVE_TOKEN_SECRET', message: expect.stringContaining('U+0020 at character 2') }]);
  });

  it('rejects invalid JSON, a missing file and an empty cluster list', async () => {
    expect((await configError(loadConfig({ file: await writeConfig('broken.json', '{ "clusters": ') }))).message).toMatch(/not valid JSON/);
    expect((await configError(loadConfig({ file: join(dir, 'absent.json') }))).message).toMatch(/ENOENT/);
    expect((await configError(loadConfig({ file: await writeConfig('empty.json', { clusters: {} }) }))).message).toMatch(/at least one cluster/);
  });
});

describe('loadConfig from the environment', () => {
  it('builds one cluster named default from PVE_* variables', async () => {
    const cfg = await loadConfig({
      env: {
        PVE_URL: 'https://pve:8006',
        PVE_TOKEN_ID: 'root@pam!mcp',
        PVE_TOKEN_SECRET: 'uuid-secret',
        PVE_FINGERPRINT: FP,
        PVE_POLICY: 'ops',
      },
    });
    expect(cfg.source).toBe('env');
    expect(cfg.defaultCluster).toBe('default');
    expect(cfg.clusters).toHaveLength(1);
    expect(cfg.clusters[0]).toMatchObject({ name: 'default', url: 'https://pve:8006', policy: 'ops', tls: { fingerprint: FP } });
    expect((cfg.clusters[0]!.auth as { secret: Secret }).secret.reveal()).toBe('uuid-secret');
  });

  it('supports username/password/realm and PVE_INSECURE', async () => {
    const cfg = await loadConfig({
      env: { PVE_URL: 'https://pve:8006', PVE_USERNAME: 'ops', PVE_PASSWORD: 'pw', PVE_REALM: 'pve', PVE_INSECURE: 'true' },
    });
    expect(cfg.clusters[0]).toMatchObject({ auth: { kind: 'ticket', username: 'ops', realm: 'pve' }, tls: { insecure: true } });
  });

  it('names the environment variable in errors', async () => {
    expect((await configError(loadConfig({ env: {} }))).issues[0]!.key).toBe('PVE_URL');
    const bad = await configError(loadConfig({ env: { PVE_URL: 'https://pve:8006', PVE_TOKEN_ID: 'root@pam!mcp', PVE_FINGERPRINT: 'xx' } }));
    expect(bad.issues.map((i) => i.key).sort()).toEqual(['PVE_FINGERPRINT', 'PVE_TOKEN_SECRET']);
    expect((await configError(loadConfig({ env: { PVE_URL: 'https://p:8006', PVE_INSECURE: 'maybe' } }))).issues[0]!.key).toBe('PVE_INSECURE');
  });
});

describe('createClients', () => {
  it('creates one client per cluster, exposing name, baseUrl and authId only', async () => {
    const cfg = await loadConfig({
      env: { PVE_URL: 'https://pve:8006/api2/json', PVE_TOKEN_ID: 'root@pam!mcp', PVE_TOKEN_SECRET: 'uuid-secret' },
    });
    const clients = createClients(cfg);
    const client = clients.get('default')!;
    try {
      expect(client.baseUrl).toBe('https://pve:8006');
      expect(client.authId).toBe('root@pam!mcp');
      expect(inspect(client, { depth: 20, showHidden: true })).not.toContain('uuid-secret');
      expect(JSON.stringify(client)).not.toContain('uuid-secret');
    } finally {
      await client.close();
    }
  });
});
