/**
 * Finds the sandbox's files on disk: the compiled worker and the trusted prelude. The worker must
 * be compiled JavaScript (it is forked with plain `node`), so when this module runs from the
 * TypeScript sources (tests) it points at the build output under dist/.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
  const sibling = path.join(here, 'worker.js');
  if (existsSync(sibling)) return sibling;
  const root = packageRoot();
  const built = root ? path.join(root, 'dist', 'src', 'sandbox', 'worker.js') : sibling;
  if (!existsSync(built)) throw new SandboxFilesMissingError('worker', built);
  return built;
}
