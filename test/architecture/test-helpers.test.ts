/**
 * Tests under src/ are unit tests of the module beside them and import nothing from test/: a
 * helper shared with the tests under test/ lives there, and so do the tests that need it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../support/source-files.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const TEST = join(ROOT, 'test');

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.[^'"]+)\1/g;

const testFiles = (dir: string): string[] => filesUnder(dir, (path) => path.endsWith('.test.ts'));

describe('tests under src/', () => {
  it('import nothing from test/', () => {
    const importing = testFiles(SRC)
      .filter((file) => [...readFileSync(file, 'utf8').matchAll(IMPORT)].some((m) => !relative(TEST, resolve(dirname(file), m[2]!)).startsWith('..')))
      .map((file) => relative(ROOT, file))
      .sort();
    expect(importing).toEqual([]);
  });
});
