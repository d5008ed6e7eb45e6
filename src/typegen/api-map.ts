/** The generated `PveApi` map: every path template's methods with their params and return types. */
import { KINDED_LISTS } from '../pve/resource-kinds.js';
import { HTTP_METHODS, type ApiModel, type Operation } from '../schema/model.js';
import { operationDoc } from './jsdoc.js';
import { kindedListTypes } from './kinded-list.js';
import { paramsMembers } from './params-type.js';
import { returnType } from './return-type.js';
import type { DeclarationSyntax } from './syntax.js';

/**
 * `interface PveApi { '/path/{param}': { GET: { params: PveGetPathParamParams; returns: … }; … } … }`,
 * one entry per path template with methods, which the hand-written SDK surface (sdk-typings/pve.d.ts)
 * indexes. Each operation's params get a named interface so type errors name the operation
 * (`… required in type 'PvePostNodesNodeQemuVmidStatusStartParams'`) instead of printing the whole
 * parameter list. A list whose entries come in kinds (`GET /cluster/resources`) returns a union of
 * one named interface per kind, and `byType` gives its result for each value of its `type` filter.
 */
export function apiMapDeclarations<T, M, D>(model: ApiModel, syntax: DeclarationSyntax<T, M, D>): D[] {
  const names = new Set<string>();
  const paramInterfaces: D[] = [];
  const resultInterfaces: D[] = [];
  const members: M[] = [];
  for (const path of model.paths) {
    const ops = model.byPath(path);
    if (ops.length === 0) continue;
    const methods = HTTP_METHODS.flatMap((method) => {
      const op = ops.find((o) => o.method === method);
      if (!op) return [];
      const name = uniqueName(operationTypeName(op, 'params'), names);
      paramInterfaces.push(syntax.interfaceDeclaration(name, paramsMembers(op, syntax)));
      const known = KINDED_LISTS.get(op.key);
      const kinded = known && kindedListTypes(op, known, syntax, (kind) => uniqueName(operationTypeName(op, kind), names));
      resultInterfaces.push(...(kinded?.declarations ?? []));
      const shape = syntax.typeLiteral([
        syntax.property('params', false, syntax.reference(name)),
        syntax.property('returns', false, kinded?.returns ?? returnType(op.returns, syntax)),
        ...(kinded?.byType ? [syntax.property('byType', false, kinded.byType)] : []),
      ]);
      return [syntax.documented(syntax.property(method, false, shape), operationDoc(op))];
    });
    members.push(syntax.property(path, false, syntax.typeLiteral(methods)));
  }
  return [syntax.interfaceDeclaration('PveApi', members), ...paramInterfaces, ...resultInterfaces];
}

/**
 * A type named after its operation: `POST /nodes/{node}/qemu/{vmid}/status/start` and `params` →
 * `PvePostNodesNodeQemuVmidStatusStartParams`; `GET /cluster/resources` and `qemu` → `PveGetClusterResourcesQemu`.
 */
function operationTypeName(op: Pick<Operation, 'method' | 'path'>, suffix: string): string {
  const words = [op.method.toLowerCase(), ...op.path.split(/[^A-Za-z0-9]+/), ...suffix.split(/[^A-Za-z0-9]+/)].filter(Boolean);
  return `Pve${words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join('')}`;
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}${i}`;
  taken.add(name);
  return name;
}
