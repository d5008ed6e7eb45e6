/**
 * The bridge's path handling and target extraction over every operation of the official PVE 9.1
 * schema: each template, filled with realistic values, must resolve back to its own operation,
 * be rebuilt as an encoded URL, and name the guests and nodes it acts on.
 */
import { describe, expect, it } from 'vitest';
import { resolveRequest } from '../../src/policy/request.js';
import { loadSchemaFromFile } from '../../src/schema/loader.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { templateParams } from '../../src/schema/model.js';
import { pathDecision } from '../../src/policy/decide.js';
import { Policy } from '../../src/policy/policy.js';
import { callTargets } from '../../src/policy/targets.js';

const SAMPLE: Record<string, string | number> = {
  node: 'pve1',
  vmid: 101,
  volume: 'local:iso/debian-12.iso',
  upid: 'UPID:pve1:0003A5F1:0112D3C4:6650A1B2:qmstart:101:root@pam!mcp:',
  userid: 'alice@pve',
  tokenid: 'mcp',
  storage: 'local-lvm',
  snapname: 'before-upgrade',
  cidr: '10.0.0.1',
  pos: 3,
  osdid: 4,
  iface: 'vmbr0',
  // An SDN fabric's node is a node name (format pve-node).
  node_id: 'pve2',
};

const available = hasOfficialSchema('9.1');

describe.skipIf(!available)(`official 9.1 schema${available ? '' : ` (skipped: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`}`, () => {
  it('resolves every operation from its template and from the concrete path', async () => {
    const model = await loadSchemaFromFile(officialSchemaFile('9.1'));
    expect(model.operations.length).toBe(649);
    const failures: string[] = [];
    for (const op of model.operations) {
      const params: Record<string, unknown> = {};
      for (const name of templateParams(op.path)) params[name] = SAMPLE[name] ?? `${name}1`;
      try {
        const viaTemplate = resolveRequest(model, op.method, op.path, params);
        const viaConcrete = resolveRequest(model, op.method, viaTemplate.concretePath, {});
        if (viaTemplate.operation.key !== op.key || viaConcrete.operation.key !== op.key || viaConcrete.urlPath !== viaTemplate.urlPath) {
          failures.push(`${op.key} → ${viaTemplate.operation.key} / ${viaConcrete.operation.key}`);
        }
        const targets = callTargets(op, viaTemplate.pathValues, viaTemplate.params);
        if (op.path.includes('{vmid}') && !targets.vmids.includes(101)) failures.push(`${op.key}: vmid not found as a target`);
        if (op.path.includes('{node}') && !targets.nodes.includes('pve1')) failures.push(`${op.key}: node not found as a target`);
      } catch (err) {
        failures.push(`${op.key}: ${(err as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('every preset refuses every privileged operation, and read-only refuses every non-read', async () => {
    const model = await loadSchemaFromFile(officialSchemaFile('9.1'));
    const presets = ['read-only', 'operator', 'admin'].map((preset) => Policy.fromConfig({ preset }));
    for (const op of model.operations) {
      const ref = { method: op.method, template: op.path, risk: op.risk };
      for (const p of presets) {
        if (op.risk === 'privileged') expect(pathDecision(p, ref).allowed, `${p.name} ${op.key}`).toBe(false);
      }
      expect(pathDecision(presets[0]!, ref).allowed, op.key).toBe(op.risk === 'read');
    }
    expect(model.operations.filter((o) => o.risk === 'privileged').length).toBeGreaterThan(0);
  });
});
