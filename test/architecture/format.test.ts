/**
 * The tree is formatted as biome.json says (Biome rather than Prettier: one native binary with no
 * plugins, fast enough to run with the tests on every change, whose output stays close to
 * Prettier's; its linter is off, the formatter only). Fails listing each file the formatter would change: run
 * `npx biome format --write .` and commit the result.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome');

interface Report {
  diagnostics: Array<{ category: string; message: string; location?: { path?: string } }>;
}

describe('formatting', () => {
  it('leaves no file the formatter would change', () => {
    const run = spawnSync(BIOME, ['format', '--reporter=json', '--max-diagnostics=none', '.'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(run.error, 'biome could not be started').toBeUndefined();
    const report = JSON.parse(run.stdout) as Report;
    const problems = report.diagnostics.map((d) => (d.category === 'format' ? (d.location?.path ?? '?') : `${d.location?.path ?? '?'}: ${d.category}: ${d.message}`));
    expect(problems, 'run `npx biome format --write .`').toEqual([]);
  });
});
