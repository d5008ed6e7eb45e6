import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root, found by walking up from this file to package.json. Benchmarks run from
 * dist/bench/ after a build and from bench/ under vitest, and tsc does not copy data files, so data
 * under bench/ is always read relative to the root.
 */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}: run the benchmarks from a checkout of the repository`);
    dir = parent;
  }
  return dir;
}
