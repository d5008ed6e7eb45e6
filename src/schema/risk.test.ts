import { beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from './loader.js';
import { RISK_CLASSES, type ApiModel, type HttpMethod, type OperationKey, type RiskClass } from './model.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from './official-schemas.js';
import { RISK_EXCEPTIONS } from './risk-exceptions.js';
import { METHOD_DEFAULT_RISK, RISK_RULES, classifyRisk, explainRisk, matchRule } from './risk.js';

function split(key: OperationKey): { method: HttpMethod; path: string } {
  const [method, path] = key.split(' ') as [HttpMethod, string];
  return { method, path };
}

describe('classifyRisk without a schema', () => {
  it('falls back to the method for unknown paths', () => {
    expect(classifyRisk({ method: 'GET', path: '/made/up' })).toBe('read');
    expect(classifyRisk({ method: 'POST', path: '/made/up' })).toBe('write');
    expect(classifyRisk({ method: 'PUT', path: '/made/up' })).toBe('write');
    expect(classifyRisk({ method: 'DELETE', path: '/made/up' })).toBe('destructive');
  });

  it('lets rules beat the method default and exceptions beat rules', () => {
    expect(explainRisk({ method: 'DELETE', path: '/access/users/{userid}' })).toMatchObject({ risk: 'privileged', source: 'rule:access-control' });
    expect(explainRisk({ method: 'GET', path: '/nodes/{node}/vncwebsocket' })).toMatchObject({ risk: 'privileged', source: 'rule:console' });
    expect(explainRisk({ method: 'DELETE', path: '/cluster/sdn/lock' })).toMatchObject({ risk: 'write', source: 'exception' });
  });

  it('anchors rules to the whole path', () => {
    expect(classifyRisk({ method: 'POST', path: '/nodes/{node}/ceph/osd/{osdid}/scrub' })).toBe('write');
    expect(classifyRisk({ method: 'POST', path: '/nodes/{node}/statusx' })).toBe('write');
    expect(classifyRisk({ method: 'GET', path: '/access/users' })).toBe('read');
  });
});

describe.skipIf(!hasOfficialSchema('9.1'))(`risk classes of PVE 9.1 (skipped when absent: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`, () => {
  let model: ApiModel;
  beforeAll(async () => {
    model = await loadSchemaFromFile(officialSchemaFile('9.1'));
  });

  it('classifies every operation into exactly one class, with pinned counts', () => {
    const counts = Object.fromEntries(RISK_CLASSES.map((c) => [c, 0])) as Record<RiskClass, number>;
    for (const op of model.operations) counts[op.risk]++;
    expect(counts).toEqual({ read: 314, write: 106, destructive: 58, privileged: 171 });
    expect(Object.values(counts).reduce((a, b) => a + b)).toBe(649);
  });

  const spotChecks: Array<[OperationKey, RiskClass]> = [
    ['GET /nodes/{node}/qemu', 'read'],
    ['GET /cluster/resources', 'read'],
    ['GET /nodes/{node}/tasks/{upid}/status', 'read'],
    ['GET /nodes/{node}/storage/{storage}/content', 'read'],
    ['GET /access/users/{userid}/token/{tokenid}', 'read'],
    ['POST /nodes/{node}/qemu/{vmid}/agent/ping', 'read'],
    ['POST /nodes/{node}/qemu', 'write'],
    ['POST /nodes/{node}/qemu/{vmid}/status/start', 'write'],
    ['POST /nodes/{node}/qemu/{vmid}/status/shutdown', 'write'],
    ['PUT /nodes/{node}/qemu/{vmid}/config', 'write'],
    ['POST /nodes/{node}/lxc/{vmid}/clone', 'write'],
    ['POST /nodes/{node}/vzdump', 'write'],
    ['POST /nodes/{node}/qemu/{vmid}/firewall/rules', 'write'],
    ['PUT /pools', 'write'],
    ['DELETE /nodes/{node}/qemu/{vmid}', 'destructive'],
    ['POST /nodes/{node}/lxc/{vmid}/status/stop', 'destructive'],
    ['POST /nodes/{node}/qemu/{vmid}/status/reset', 'destructive'],
    ['POST /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback', 'destructive'],
    ['DELETE /nodes/{node}/storage/{storage}/content/{volume}', 'destructive'],
    ['PUT /nodes/{node}/disks/wipedisk', 'destructive'],
    ['POST /nodes/{node}/qemu/{vmid}/template', 'destructive'],
    ['POST /nodes/{node}/qemu/{vmid}/vncproxy', 'privileged'],
    ['POST /nodes/{node}/termproxy', 'privileged'],
    ['POST /nodes/{node}/qemu/{vmid}/agent/exec', 'privileged'],
    ['POST /nodes/{node}/qemu/{vmid}/agent/file-write', 'privileged'],
    ['POST /nodes/{node}/qemu/{vmid}/monitor', 'privileged'],
    ['PUT /access/acl', 'privileged'],
    ['POST /cluster/config/join', 'privileged'],
    ['PUT /nodes/{node}/network', 'privileged'],
    ['POST /nodes/{node}/status', 'privileged'],
    ['POST /storage', 'privileged'],
    ['GET /nodes/{node}/qemu/{vmid}/agent/file-read', 'privileged'],
  ];

  it.each(spotChecks)('%s is %s', (key, risk) => {
    const { method, path } = split(key);
    expect(model.get(method, path)?.risk).toBe(risk);
  });

  it('keeps the exception table live: every entry exists and changes the outcome', () => {
    for (const [key, exception] of Object.entries(RISK_EXCEPTIONS) as Array<[OperationKey, { risk: RiskClass }]>) {
      const op = split(key);
      expect(model.get(op.method, op.path), `${key} is not in the 9.1 schema`).toBeDefined();
      const withoutException = matchRule(op)?.risk ?? METHOD_DEFAULT_RISK[op.method];
      expect(withoutException, `${key} exception is redundant`).not.toBe(exception.risk);
    }
  });

  it('has no dead rule', () => {
    for (const rule of RISK_RULES) {
      expect(
        model.operations.some((op) => explainRisk(op).source === `rule:${rule.id}`),
        `rule ${rule.id} decides no 9.1 operation`,
      ).toBe(true);
    }
  });
});
