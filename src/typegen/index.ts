/**
 * The TypeScript declarations a run is checked against: the `PveApi` map generated from one schema
 * and the hand-written `pve` surface in sdk-typings/ it plugs into, as the files the checker loads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiModel } from '../schema/model.js';
import { packageRoot } from '../schema/package-root.js';
import { apiMapDeclarations } from './api-map.js';
import { textSyntax } from './text-syntax.js';

export interface DeclarationFile {
  fileName: string;
  text: string;
}

export const API_DECLARATIONS_FILE = 'pve-api.d.ts';
export const SDK_SURFACE_FILE = 'pve.d.ts';

/** The generated `PveApi` map for one schema, as a global script declaration file. */
export function generateApiDeclarations(model: ApiModel): string {
  const header = [
    `// Generated from the Proxmox VE API schema ${model.hash.slice(0, 12)} (${model.operations.length} operations). Do not edit.`,
    '// Pairs with sdk-typings/pve.d.ts, which declares the `pve` SDK over this map.',
  ].join('\n');
  return `${header}\n${apiMapDeclarations(model, textSyntax).join('\n')}\n`;
}

let surface: string | undefined;

/** The hand-written SDK surface, read once from the package. */
export function sdkSurfaceDeclarations(): string {
  surface ??= readFileSync(join(packageRoot(), 'sdk-typings', SDK_SURFACE_FILE), 'utf8');
  return surface;
}

/** Everything a script is type-checked against: the generated API map and the SDK surface. */
export function sdkDeclarationFiles(model: ApiModel): DeclarationFile[] {
  return [
    { fileName: API_DECLARATIONS_FILE, text: generateApiDeclarations(model) },
    { fileName: SDK_SURFACE_FILE, text: sdkSurfaceDeclarations() },
  ];
}
