/**
 * Tests under src/ are unit tests of the module beside them and import nothing from test/: a
 * helper shared with the tests under test/ lives there, and so do the tests that need it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const TEST = join(ROOT, 'test');

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.[^'"]+)\1/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return path.endsWith('.test.ts') ? [path] : [];
  });
}

describe('tests under src/', () => {
  it('import nothing from test/', () => {
    const importing = testFiles(SRC)
      .filter((file) => [...readFileSync(file, 'utf8').matchAll(IMPORT)].some((m) => !relative(TEST, resolve(dirname(file), m[2]!)).startsWith('..')))
      .map((file) => relative(ROOT, file))
      .sort();
    expect(importing).toEqual([]);
  });
});
