/**
 * The TypeScript compiler reaches the product through `src/script/typescript.ts` (with `require`),
 * never through an ESM import: Node would first scan its 9 MB CommonJS file for named exports,
 * 700–900 ms against 320–450 ms on the path of the first run after idle (docs/benchmarks.md,
 * "Session 15"). Type-only imports are erased and cost nothing.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ts } from '../../src/script/typescript.js';
import { sourceFiles } from '../support/source-files.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

describe('the TypeScript compiler', () => {
  it('is the package itself, loaded with require', () => {
    expect(typeof ts.createSourceFile).toBe('function');
    expect(ts.version).toMatch(/^5\./);
  });

  it('reaches no module of the product through an ESM import, which would scan its 9 MB for exports', () => {
    const valueImports = sourceFiles(SRC).filter((file) =>
      /^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s*['"]typescript['"]|\bimport\(\s*['"]typescript['"]\s*\)/m.test(readFileSync(file, 'utf8')),
    );
    expect(valueImports.map((f) => relative(SRC, f))).toEqual([]);
  });
});
