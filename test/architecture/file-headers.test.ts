/**
 * Every source file of src/ opens with a comment saying what it is for, before its imports: a
 * reader who opens a file learns its job from its first lines.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('source files', () => {
  it('open with a comment', () => {
    const bare = sourceFiles(join(ROOT, 'src'))
      .filter((file) => !/^\s*(?:\/\*|\/\/|#!)/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(bare).toEqual([]);
  });
});
