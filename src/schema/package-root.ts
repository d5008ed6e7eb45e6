/** Where the package's own files are, found from the running module (sources and build alike). */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The directory holding the project's package.json, from the sources (src/…) and the build
 * (dist/src/…) alike, so files shipped beside the code (sdk-typings/) and the development data next
 * to the checkout are found from either.
 */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  cached = dir;
  return dir;
}
