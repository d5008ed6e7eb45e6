import ts from 'typescript';
import { HTTP_METHODS, type ApiModel, type Operation } from '../schema/model.js';
import { operationDoc, withJsDoc } from './jsdoc.js';
import { paramsTypeNode } from './params-type.js';
import { returnTypeNode } from './return-type.js';

const f = ts.factory;

/**
 * `interface PveApi { '/path/{param}': { GET: { params: PveGetPathParamParams; returns: … }; … } … }`,
 * one entry per path template with methods, which the hand-written SDK surface (sdk-typings/pve.d.ts)
 * indexes. Each operation's params get a named interface so type errors name the operation
 * (`… required in type 'PvePostNodesNodeQemuVmidStatusStartParams'`) instead of printing the whole
 * parameter list.
 */
export function apiMapDeclarations(model: ApiModel): ts.InterfaceDeclaration[] {
  const names = new Set<string>();
  const paramInterfaces: ts.InterfaceDeclaration[] = [];
  const members: ts.TypeElement[] = [];
  for (const path of model.paths) {
    const ops = model.byPath(path);
    if (ops.length === 0) continue;
    const methods = HTTP_METHODS.flatMap((method) => {
      const op = ops.find((o) => o.method === method);
      if (!op) return [];
      const name = uniqueName(paramsInterfaceName(op), names);
      paramInterfaces.push(f.createInterfaceDeclaration(undefined, name, undefined, undefined, paramsTypeNode(op).members));
      const shape = f.createTypeLiteralNode([
        f.createPropertySignature(undefined, 'params', undefined, f.createTypeReferenceNode(name)),
        f.createPropertySignature(undefined, 'returns', undefined, returnTypeNode(op.returns)),
      ]);
      return [withJsDoc(f.createPropertySignature(undefined, method, undefined, shape), operationDoc(op))];
    });
    members.push(f.createPropertySignature(undefined, f.createStringLiteral(path, true), undefined, f.createTypeLiteralNode(methods)));
  }
  return [f.createInterfaceDeclaration(undefined, 'PveApi', undefined, undefined, members), ...paramInterfaces];
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
