import { HTTP_METHODS, type ApiModel, type Operation } from '../schema/model.js';
import { operationDoc } from './jsdoc.js';
import { paramsMembers } from './params-type.js';
import { returnType } from './return-type.js';
import type { DeclarationSyntax } from './syntax.js';

/**
 * `interface PveApi { '/path/{param}': { GET: { params: PveGetPathParamParams; returns: … }; … } … }`,
 * one entry per path template with methods, which the hand-written SDK surface (sdk-typings/pve.d.ts)
 * indexes. Each operation's params get a named interface so type errors name the operation
 * (`… required in type 'PvePostNodesNodeQemuVmidStatusStartParams'`) instead of printing the whole
 * parameter list.
 */
export function apiMapDeclarations<T, M, D>(model: ApiModel, syntax: DeclarationSyntax<T, M, D>): D[] {
  const names = new Set<string>();
  const paramInterfaces: D[] = [];
  const members: M[] = [];
  for (const path of model.paths) {
    const ops = model.byPath(path);
    if (ops.length === 0) continue;
    const methods = HTTP_METHODS.flatMap((method) => {
      const op = ops.find((o) => o.method === method);
      if (!op) return [];
      const name = uniqueName(paramsInterfaceName(op), names);
      paramInterfaces.push(syntax.interfaceDeclaration(name, paramsMembers(op, syntax)));
      const shape = syntax.typeLiteral([
        syntax.property('params', false, syntax.reference(name)),
        syntax.property('returns', false, returnType(op.returns, syntax)),
      ]);
      return [syntax.documented(syntax.property(method, false, shape), operationDoc(op))];
    });
    members.push(syntax.property(path, false, syntax.typeLiteral(methods)));
  }
  return [syntax.interfaceDeclaration('PveApi', members), ...paramInterfaces];
}

/** `POST /nodes/{node}/qemu/{vmid}/status/start` → `PvePostNodesNodeQemuVmidStatusStartParams`. */
export function paramsInterfaceName(op: Pick<Operation, 'method' | 'path'>): string {
  const words = [op.method.toLowerCase(), ...op.path.split(/[^A-Za-z0-9]+/)].filter(Boolean);
  return `Pve${words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join('')}Params`;
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}${i}`;
  taken.add(name);
  return name;
}
