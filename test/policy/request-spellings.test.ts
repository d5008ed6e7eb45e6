/**
 * A value reaches the policy as PVE will get it, however the script spells it: over every
 * parameter of every operation of PVE 9.1 that is not `type: array`, a list given as an array
 * resolves to exactly what the same list given as a comma-joined string does (or is refused with
 * the same message). The client sends such an array joined; if the policy saw the array, every
 * rule that reads the value as text would miss it (a one-item `['/,mp=/host']` was a host bind
 * mount).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveRequest } from '../../src/policy/request.js';
import { loadSchemaFromFile } from '../../src/schema/loader.js';
import type { ApiModel, Operation, ParamSpec } from '../../src/schema/model.js';
import { hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';

/** Path values the demo names, so most operations get past their path checks. */
const PATH_SAMPLES: Record<string, string> = { node: 'pve1', vmid: '100', storage: 'local', poolid: 'web', userid: 'root@pam', realm: 'pam', name: 'web', snapname: 'before', group: 'web' };

function sampleOf(spec: ParamSpec): string {
  if (Array.isArray(spec.enum) && spec.enum.length > 0) return String(spec.enum[0]);
  return spec.type === 'integer' || spec.type === 'number' ? '1' : spec.type === 'boolean' ? '1' : 'x';
}

type Outcome = { params: Record<string, unknown> } | { refused: string };

function outcome(model: ApiModel, op: Operation, params: Record<string, unknown>): Outcome {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => PATH_SAMPLES[name] ?? 'x');
  try {
    return { params: { ...resolveRequest(model, op.method, path, params).params } };
  } catch (err) {
    return { refused: (err as Error).message };
  }
}

describe.skipIf(!hasOfficialSchema('9.1'))('every parameter of PVE 9.1 given as an array', () => {
  let model: ApiModel;
  beforeAll(async () => {
    model = await loadSchemaFromFile(officialSchemaFile('9.1'));
  });

  it('resolves as the same list given as text, and array parameters stay arrays', () => {
    let compared = 0;
    let resolved = 0;
    for (const op of model.operations) {
      for (const spec of op.params) {
        if (spec.inPath) continue;
        const v = sampleOf(spec);
        if (spec.type === 'array') {
          const kept = outcome(model, op, { [spec.name]: [v] });
          if ('params' in kept) expect(kept.params[spec.name], op.key).toEqual([v]);
          continue;
        }
        for (const [asArray, asText] of [
          [[v], v],
          [[v, v], `${v},${v}`],
        ] as const) {
          const fromArray = outcome(model, op, { [spec.name]: asArray });
          expect(fromArray, `${op.key} ${spec.name}: ${JSON.stringify(asArray)}`).toEqual(outcome(model, op, { [spec.name]: asText }));
          compared++;
          if ('params' in fromArray) resolved++;
        }
      }
    }
    expect(compared).toBeGreaterThan(5_000);
    // Most of them get past the path and value checks, so the comparison is of what is sent.
    expect(resolved / compared).toBeGreaterThan(0.5);
  });

  it('refuses an item that is not text, a number or a boolean, naming the fix', () => {
    const op = model.operations.find((o) => o.key === 'PUT /nodes/{node}/lxc/{vmid}/config') as Operation;
    expect(outcome(model, op, { mp0: [{ volume: '/' }, 'mp=/host'] })).toEqual({ refused: expect.stringMatching(/mp0\[0\] is an object: .*property strings such as/) });
    expect(outcome(model, op, { delete: [true, 'onboot'] })).toEqual(outcome(model, op, { delete: '1,onboot' }));
  });
});
