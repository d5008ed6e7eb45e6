import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAppConfig } from './app-config.js';

const cluster = { url: 'https://pve.example:8006', auth: { tokenId: 'root@pam!ci', secret: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee' } };
const parse = (extra: Record<string, unknown>, env: Record<string, string> = {}) => parseAppConfig({ clusters: { lab: cluster }, ...extra }, { source: 'test', baseDir: '/etc/pvemcp', env });

describe('the state section', () => {
  it('takes state.dir, and stateDir as its old name, relative to the config file', async () => {
    expect((await parse({ state: { dir: 'st' } })).state).toEqual({ dir: '/etc/pvemcp/st' });
    expect((await parse({ stateDir: 'old' })).stateDir).toBe('/etc/pvemcp/old');
    expect((await parse({ stateDir: 'old' })).state.dir).toBe('/etc/pvemcp/old');
    expect((await parse({ stateDir: '/etc/pvemcp/same', state: { dir: 'same' } })).stateDir).toBe('/etc/pvemcp/same');
  });

  it('refuses stateDir and state.dir naming two directories', async () => {
    await expect(parse({ stateDir: 'a', state: { dir: 'b' } })).rejects.toThrow(/stateDir: stateDir is the old name of state\.dir/);
  });

  it('reads the PostgreSQL URL from the config, an environment variable or a file, with defaults for the rest', async () => {
    const url = 'postgres://pve:pw-in-url-123@db.example:5432/pvemcp';
    const direct = await parse({ state: { postgres: { url } } });
    expect(direct.state.postgres).toEqual({ url, poolMax: 4, connectTimeoutMs: 5_000, statementTimeoutMs: 5_000, recoverEveryMs: 30_000 });
    expect((await parse({ state: { postgres: { url: { env: 'PG_URL' }, poolMax: 8 } } }, { PG_URL: url })).state.postgres).toMatchObject({ url, poolMax: 8 });
    const dir = mkdtempSync(join(tmpdir(), 'pvemcp-state-'));
    writeFileSync(join(dir, 'pg-url'), `${url}\n`);
    expect((await parse({ state: { postgres: { url: { file: join(dir, 'pg-url') } } } })).state.postgres?.url).toBe(url);
  });

  it('scrubs the database password like every other secret', async () => {
    const config = await parse({ state: { postgres: { url: 'postgres://pve:pw%20in%20url@db:5432/x' } } });
    expect(config.secrets).toContain('pw in url');
  });

  it('names the key and the fix when the URL cannot be had', async () => {
    await expect(parse({ state: { postgres: { url: { env: 'NOPE' } } } })).rejects.toThrow(/state\.postgres\.url: environment variable NOPE is not set/);
    await expect(parse({ state: { postgres: { url: { file: '/nonexistent/pg' } } } })).rejects.toThrow(/state\.postgres\.url: cannot read \/nonexistent\/pg \(ENOENT\)/);
    await expect(parse({ state: { postgres: { url: 'mysql://db/x' } } })).rejects.toThrow(/state\.postgres\.url: expected a URL like postgres:\/\//);
    await expect(parse({ state: { postgres: { url: 'postgres://db/x', poolMax: 0 } } })).rejects.toThrow(/state\.postgres\.poolMax/);
    await expect(parse({ state: { postgres: {} } })).rejects.toThrow(/state\.postgres\.url/);
  });
});
