import { encode } from 'gpt-tokenizer';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideCall } from '../policy/decide.js';
import { describeCall } from '../policy/facts.js';
import { Policy } from '../policy/policy.js';
import { loadSchemaFromFile } from '../schema/loader.js';
import type { ApiModel, Operation } from '../schema/model.js';
import { OFFICIAL_SCHEMA_SKIP_MESSAGE, hasOfficialSchema, officialSchemaFile } from '../schema/official-schemas.js';
import { formatHit, LINE_TOKEN_BUDGET } from '../search/hit.js';
import { describeOperations } from './index.js';
import { operationVerdict, VERDICT_TEXT, verdictOf } from './verdict.js';

const operator = Policy.fromConfig({ preset: 'operator', approval: { require: ['destructive'] } });
const scoped = Policy.fromConfig({ preset: 'operator', scopes: { vmids: ['100-199'] } });
const readOnly = Policy.fromConfig({ preset: 'read-only' });
const enabled = Policy.fromConfig({ preset: 'operator', privileged: ['POST /nodes/*/vzdump +script'] });

describe.skipIf(!hasOfficialSchema('9.1'))(`verdicts on PVE 9.1 (skipped when absent: ${OFFICIAL_SCHEMA_SKIP_MESSAGE})`, () => {
  let model: ApiModel;
  const op = (key: string): Operation => {
    const found = model.operations.find((o) => o.key === key);
    if (!found) throw new Error(`no ${key}`);
    return found;
  };
  beforeAll(async () => {
    model = await loadSchemaFromFile(officialSchemaFile('9.1'));
  });

  it('is the bridge decision for the same call at default parameters, for every operation and policy', () => {
    for (const policy of [operator, scoped, readOnly, enabled]) {
      for (const o of model.operations) {
        const decision = decideCall(describeCall({ cluster: 'c', operation: o, pathValues: {}, params: {} }), policy);
        const v = operationVerdict(o, { cluster: 'c', policy });
        expect(v.verdict, `${o.key} under ${policy.name}`).toBe(verdictOf(decision));
        expect(v.risk).toBe(decision.risk);
      }
    }
  });

  it('names the parameters that raise a call, with the verdict once they do', () => {
    const v = operationVerdict(op('POST /nodes/{node}/qemu/{vmid}/status/shutdown'), { cluster: 'c', policy: operator });
    expect(v.verdict).toBe('allowed');
    expect(v.raisedBy.find((r) => r.param === 'forceStop')).toMatchObject({ risk: 'destructive', class: 'hard-stop', verdict: 'approval' });
    expect(v.raisedBy.find((r) => r.param === 'skiplock')).toMatchObject({ risk: 'privileged', verdict: 'refused' });
    // A real call with forceStop is decided the same way.
    const live = decideCall(describeCall({ cluster: 'c', operation: op('POST /nodes/{node}/qemu/{vmid}/status/shutdown'), pathValues: {}, params: { forceStop: 1 } }), operator);
    expect(live.outcome).toBe('approval');
  });

  it('follows per-parameter enabling of privileged escalations', () => {
    const backup = op('POST /nodes/{node}/vzdump');
    expect(operationVerdict(backup, { cluster: 'c', policy: operator }).raisedBy.find((r) => r.param === 'script')?.verdict).toBe('refused');
    // Enabled, it is still a privileged write, which the operator preset sends for approval.
    expect(operationVerdict(backup, { cluster: 'c', policy: enabled }).raisedBy.find((r) => r.param === 'script')?.verdict).toBe('approval');
  });

  it('tells refused, in scope only and read-only apart', () => {
    expect(operationVerdict(op('POST /nodes/{node}/qemu/{vmid}/clone'), { cluster: 'c', policy: operator }).verdict).toBe('refused');
    expect(operationVerdict(op('POST /nodes/{node}/qemu/{vmid}/snapshot'), { cluster: 'c', policy: scoped }).verdict).toBe('scoped');
    expect(operationVerdict(op('POST /nodes/{node}/qemu/{vmid}/snapshot'), { cluster: 'c', policy: readOnly }).verdict).toBe('refused');
    expect(operationVerdict(op('GET /cluster/resources'), { cluster: 'c', policy: readOnly }).verdict).toBe('allowed');
    // A bulk action without `vms` addresses every guest: raised at default parameters already.
    const bulk = operationVerdict(op('POST /cluster/bulk-action/guest/shutdown'), { cluster: 'c', policy: operator });
    expect(bulk.risk).toBe('destructive');
    expect(bulk.raisedBy.map((r) => r.param)).not.toContain('vms');
  });

  it('get_schema shows the verdict and the raising parameters', () => {
    const [shutdown] = describeOperations(model, ['POST /nodes/{node}/qemu/{vmid}/status/shutdown'], { policy: { cluster: 'prod', policy: operator } }).operations;
    expect(shutdown?.signature).toContain("// policy 'operator' on prod: allowed");
    expect(shutdown?.signature).toMatch(/\/\/ raises: forceStop → destructive, needs approval \(a shutdown with forceStop/);
    const [clone] = describeOperations(model, ['POST /nodes/{node}/qemu/{vmid}/clone'], { policy: { cluster: 'prod', policy: operator } }).operations;
    expect(clone?.signature).toMatch(/\/\/ policy 'operator' on prod: refused — .*not allowed by policy 'operator'/);
    // Without a policy the raising parameters are still named.
    const [bare] = describeOperations(model, ['POST /nodes/{node}/vzdump']).operations;
    expect(bare?.signature).toMatch(/\/\/ raises: .*script.* → privileged/);
  });

  it('keeps every search line within the token budget with a verdict and raising parameters', () => {
    const over: string[] = [];
    for (const o of model.operations) {
      const v = operationVerdict(o, { cluster: 'c', policy: scoped });
      for (const verdict of ['in scope only', 'needs approval']) {
        const line = formatHit({ key: o.key, method: o.method, path: o.path, summary: o.summary, risk: o.risk, score: 1, verdict, raisedBy: v.raisedBy.map((r) => r.param) });
        if (encode(line).length > LINE_TOKEN_BUDGET) over.push(line);
      }
    }
    expect(over).toEqual([]);
    expect(VERDICT_TEXT.scoped).toBe('in scope only');
  });
});
