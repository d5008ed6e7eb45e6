/**
 * Every source file of src/ opens with a comment saying what it is for, before its imports: a
 * reader who opens a file learns its job from its first lines.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

describe('source files', () => {
  it('open with a comment', () => {
    const bare = sourceFiles(join(ROOT, 'src'))
      .filter((file) => !/^\s*(?:\/\*|\/\/|#!)/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(bare).toEqual([]);
  });
});
