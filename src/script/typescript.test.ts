import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ts } from './typescript.js';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('the TypeScript compiler', () => {
  it('is the package itself, loaded with require', () => {
    expect(typeof ts.createSourceFile).toBe('function');
    expect(ts.version).toMatch(/^5\./);
  });

  it('reaches no module of the product through an ESM import, which would scan its 9 MB for exports', () => {
    const valueImports = sourceFiles(src).filter((file) =>
      /^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s*['"]typescript['"]|\bimport\(\s*['"]typescript['"]\s*\)/m.test(readFileSync(file, 'utf8')),
    );
    expect(valueImports.map((f) => path.relative(src, f))).toEqual([]);
  });
});
