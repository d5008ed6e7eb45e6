import { describe, expect, it } from 'vitest';
import { PveProtocolError } from './errors.js';
import { PveAuthError, PveHttpError, PveNodeOfflineError, PveNotFoundError, PvePermissionError } from './http-errors.js';
import { type CallerInfo, readEnvelope } from './response.js';

const token: CallerInfo = { authId: 'root@pam!mcp', kind: 'token' };
const user: CallerInfo = { authId: 'ops@pve', kind: 'ticket' };

function fail(status: number, statusText: string, body: string, path = '/nodes/pve1/qemu', caller = token): Error {
  try {
    readEnvelope({ status, statusText, body }, 'GET', path, caller);
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

describe('readEnvelope', () => {
  it('returns data, total and status of a success', () => {
    const env = readEnvelope<number[]>({ status: 200, statusText: 'OK', body: '{"data":[1,2],"total":"7"}' }, 'GET', '/x', token);
    expect(env).toEqual({ data: [1, 2], total: 7, status: 200 });
    expect(readEnvelope({ status: 200, statusText: 'OK', body: '{"data":null}' }, 'POST', '/x', token).data).toBeNull();
  });

  it('raises PveProtocolError for a 2xx that is not the PVE envelope', () => {
    expect(fail(200, 'OK', '<html>login</html>')).toBeInstanceOf(PveProtocolError);
    expect(fail(200, 'OK', '{"result":1}').message).toMatch(/"data"/);
  });

  it('uses the reason phrase when a 401 has no body and hints by auth kind', () => {
    const tokenErr = fail(401, 'Authentication failed!', '');
    expect(tokenErr).toBeInstanceOf(PveAuthError);
    expect((tokenErr as PveAuthError).pveMessage).toBe('Authentication failed!');
    expect(tokenErr.message).toMatch(/API token root@pam!mcp was rejected/);
    expect(fail(401, 'authentication failure', '{"data":null,"message":"authentication failure\\n"}', '/x', user).message).toMatch(/User ops@pve could not authenticate/);
    expect(fail(401, 'Permission denied - invalid csrf token', '', '/x', user).message).toMatch(/CSRF/);
  });

  it('parses ACL path and privilege out of a 403', () => {
    const err = fail(403, 'Permission check failed (/vms/100, VM.Audit)', '{"data":null,"message":"Permission check failed (/vms/100, VM.Audit)\\n"}');
    expect(err).toBeInstanceOf(PvePermissionError);
    expect(err).toMatchObject({ aclPath: '/vms/100', privilege: 'VM.Audit', status: 403 });
    expect(err.message).toMatch(/privilege separation/);
    const tokenRefused = fail(403, 'x', `{"data":null,"message":"Permission check failed (URI '/access/password' not available with API token, need proper ticket.\\n)\\n"}`);
    expect(tokenRefused.message).toMatch(/refuses API tokens/);
  });

  it('keeps per-parameter errors of a 400', () => {
    const err = fail(400, 'Parameter verification failed.', '{"data":null,"errors":{"vmid":"type check (\'integer\') failed - got \'abc\'"},"message":"Parameter verification failed.\\n"}');
    expect(err).toBeInstanceOf(PveHttpError);
    expect((err as PveHttpError).errors).toEqual({ vmid: "type check ('integer') failed - got 'abc'" });
    expect(err.message).toContain('[vmid: type check');
  });

  it('maps missing objects, unknown nodes and unknown paths to PveNotFoundError, other 500s to PveHttpError', () => {
    const conf = "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist";
    expect(fail(500, conf, JSON.stringify({ data: null, message: `${conf}\n` }))).toBeInstanceOf(PveNotFoundError);
    expect(fail(500, 'x', '{"data":null,"message":"hostname lookup \'nope\' failed - no address\\n"}')).toBeInstanceOf(PveNotFoundError);
    expect(fail(501, "Method 'GET /nodes/pve1/foo' not implemented", '{"data":null,"message":"Method \'GET /nodes/pve1/foo\' not implemented"}')).toBeInstanceOf(PveNotFoundError);
    const locked = fail(500, 'VM is locked (backup)', '{"data":null,"message":"VM is locked (backup)\\n"}');
    expect(locked.constructor).toBe(PveHttpError);
    expect((locked as PveHttpError).pveMessage).toBe('VM is locked (backup)');
    expect(fail(501, "Unexpected content for method 'GET'", '').constructor).toBe(PveHttpError);
  });

  it('a 501 from a simulated cluster says the operation exists but is not simulated, not to search again', () => {
    const err = fail(501, "Method 'GET /nodes/pve1/scan/pbs' not implemented by the simulator", '{"data":null,"message":"Method \'GET /nodes/pve1/scan/pbs\' not implemented by the simulator\n"}');
    expect(err).toBeInstanceOf(PveNotFoundError);
    expect(err.message).toMatch(/does not implement it/);
    expect(err.message).not.toMatch(/search_api/);
  });

  it('maps 595/596 to PveNodeOfflineError with the node from the path', () => {
    const err = fail(595, 'Connection refused', '', '/nodes/pve3/qemu');
    expect(err).toBeInstanceOf(PveNodeOfflineError);
    expect((err as PveNodeOfflineError).node).toBe('pve3');
    expect(err.message).toMatch(/node 'pve3'/);
  });
});
