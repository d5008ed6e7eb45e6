/**
 * Finds the sandbox's files on disk: the compiled worker (through the child processes' one
 * locator, src/process/locate.ts) and the trusted prelude. The prelude is found from inside the
 * confined worker too, so its search reads only the package's own files.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { locateEntry } from '../process/locate.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export class SandboxFilesMissingError extends Error {
  constructor(what: string, tried: string) {
    super(`the sandbox ${what} is missing (looked for ${tried}); build the project first (npm run build)`);
    this.name = 'SandboxFilesMissingError';
  }
}

/** The package root: the nearest ancestor holding both package.json and sandbox/prelude.js. */
export function packageRoot(): string | undefined {
  let dir = here;
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'sandbox', 'prelude.js'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

export function locatePrelude(): string {
  const root = packageRoot();
  if (!root) throw new SandboxFilesMissingError('prelude', `sandbox/prelude.js above ${here}`);
  return path.join(root, 'sandbox', 'prelude.js');
}

export function locateWorker(): string {
  return locateEntry(import.meta.url, 'worker.js', 'sandbox worker');
}
