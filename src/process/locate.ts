/**
 * The one file locator of the child processes' entries: a child process is started with plain
 * `node`, so it needs the compiled JavaScript, beside the module that starts it when that runs
 * from dist/, else at the same place under the package's dist/ (the tests run the sources).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export class ChildEntryMissingError extends Error {
  constructor(what: string, tried: string) {
    super(`the ${what} is missing (looked for ${tried}); build the project first (npm run build)`);
    this.name = 'ChildEntryMissingError';
  }
}

/** The compiled entry `file` of a child process started by the module at `moduleUrl`. */
export function locateEntry(moduleUrl: string, file: string, what: string): string {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const sibling = path.join(here, file);
  if (existsSync(sibling)) return sibling;
  for (let dir = here, i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'package.json'))) {
      const built = path.join(dir, 'dist', path.relative(dir, here), file);
      if (!existsSync(built)) throw new ChildEntryMissingError(what, built);
      return built;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new ChildEntryMissingError(what, sibling);
}
