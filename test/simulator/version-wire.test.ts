/**
 * Version-true wire: the release `/version` reports and the texts that depend on it agree, by
 * default and for each `pveVersion`; token creation answers only the keys that were set.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { parseSimulatorArgs } from '../../src/simulator/cli.js';
import type { RunningSimulator, StartSimulatorOptions } from '../../src/simulator/index.js';
import { call, startTestSimulator } from './helpers.js';

describe('version-true wire', () => {
  let sim: RunningSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });
  const start = async (opts: StartSimulatorOptions = {}) => (sim = await startTestSimulator(opts));
  const badTicket = { Cookie: 'PVEAuthCookie=PVE:root@pam:65000000::AAAA' };
  const reasons = async (s: RunningSimulator) => {
    const ticket = await call(s, '/api2/json/version', { auth: 'none', headers: badTicket });
    const token = await call(s, '/api2/json/version', { auth: { tokenHeader: `PVEAPIToken=root@pam!mcp=00000000-0000-0000-0000-000000000000` } });
    expect([ticket.status, token.status]).toEqual([401, 401]);
    return { ticket: ticket.statusText, token: token.statusText };
  };

  it('by default reports a current 9.1 release and answers 401s with its unified text', async () => {
    const s = await start();
    const v = await call(s, '/api2/json/version');
    expect(v.json.data).toEqual({ version: '9.1.19', release: '9.1', repoid: '076d7c3c' });
    expect(s.pveVersion).toBe('9.1.19');
    expect(await reasons(s)).toEqual({ ticket: 'Authentication failed!', token: 'Authentication failed!' });
  });

  it('as 9.1.1 reports 9.1.1 and gives the reasons, as releases before 9.1.5 do', async () => {
    const s = await start({ pveVersion: '9.1.1' });
    expect((await call(s, '/api2/json/nodes/pve1/version')).json.data).toEqual({ version: '9.1.1', release: '9.1', repoid: 'f4d3f125' });
    expect((await call(s, '/api2/json/nodes/pve1/status')).json.data.pveversion).toBe('pve-manager/9.1.1/f4d3f125');
    expect(await reasons(s)).toEqual({ ticket: 'permission denied - invalid PVE ticket', token: 'invalid token value!' });
  });

  it('9.1.5 is the first 9.1 release with the unified text; an explicit style still wins', async () => {
    expect(await reasons(await start({ pveVersion: '9.1.4' }))).toEqual({ ticket: 'permission denied - invalid PVE ticket', token: 'invalid token value!' });
    await sim?.close();
    expect(await reasons(await start({ pveVersion: '9.1.5' }))).toEqual({ ticket: 'Authentication failed!', token: 'Authentication failed!' });
    await sim?.close();
    expect(await reasons(await start({ pveVersion: '9.1.5', authFailureStyle: 'legacy' }))).toEqual({
      ticket: 'permission denied - invalid PVE ticket',
      token: 'invalid token value!',
    });
  });

  it.runIf(hasOfficialSchema('8.4'))('as 8.4 with the 8.4 schema: 8.4 versions, kernel and texts; 9.x-only operations are not routed', async () => {
    const s = await start({ pveVersion: '8.4.16', schemaFile: officialSchemaFile('8.4') });
    expect((await call(s, '/api2/json/version')).json.data).toEqual({ version: '8.4.16', release: '8.4', repoid: '368e3c45' });
    const status = (await call(s, '/api2/json/nodes/pve1/status')).json.data;
    expect(status['current-kernel'].release).toBe('6.8.12-9-pve');
    expect(await reasons(s)).toEqual({ ticket: 'permission denied - invalid PVE ticket', token: 'invalid token value!' });
    const bulk = await call(s, '/api2/json/cluster/bulk-action/guest/start', { method: 'POST', body: {} });
    expect(bulk.status).toBe(501);
    // 8.4's migrateall knows only `maxworkers`.
    const mig = await call(s, '/api2/json/nodes/pve1/migrateall', { method: 'POST', body: { target: 'pve2', 'max-workers': 2 } });
    expect(mig.status).toBe(400);
    expect(Object.keys(mig.json.errors)).toEqual(['max-workers']);
  });

  it('token creation answers only the keys that were set; reading it back shows the stored expire 0', async () => {
    const s = await start();
    const plain = await call(s, '/api2/json/access/users/root@pam/token/plain', { method: 'POST', body: {} });
    expect(plain.json.data.info).toEqual({ privsep: 1 });
    const full = await call(s, '/api2/json/access/users/root@pam/token/full', { method: 'POST', body: { expire: 4102444800, comment: 'ci', privsep: 0 } });
    expect(full.json.data.info).toEqual({ privsep: 0, expire: 4102444800, comment: 'ci' });
    expect((await call(s, '/api2/json/access/users/root@pam/token/plain')).json.data).toEqual({ expire: 0, privsep: 1 });
    const again = await call(s, '/api2/json/access/users/root@pam/token/plain', { method: 'POST', body: {} });
    expect(again.status).toBe(400);
    expect(again.json.errors).toEqual({ tokenid: 'Token already exists.' });
  });

  it('the command line chooses the release', () => {
    expect(parseSimulatorArgs(['simulator', '--pve-version', '9.1.1'])).toMatchObject({ pveVersion: '9.1.1' });
    expect(() => parseSimulatorArgs(['--pve-version', '9.9.9'])).toThrow(/--pve-version must be one of/);
  });
});
