/**
 * The files of a source tree, for the architecture tests that read the code as text: every file
 * under a folder that a test keeps, and the usual choice, the modules of src/ without their tests.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir`, at any depth, for which `keep(path)` holds. */
export function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, keep);
    return keep(path) ? [path] : [];
  });
}

/** The TypeScript modules under `dir`, their tests left out. */
export function sourceFiles(dir: string): string[] {
  return filesUnder(dir, (path) => path.endsWith('.ts') && !path.endsWith('.test.ts'));
}
