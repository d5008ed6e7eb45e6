/**
 * docs/simulator.md lists every implemented operation (and nothing the simulator lacks).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startTestSimulator } from './helpers.js';

describe('docs/simulator.md', () => {
  it('lists exactly the implemented operations', async () => {
    const sim = await startTestSimulator();
    try {
      const doc = readFileSync(new URL('../../docs/simulator.md', import.meta.url), 'utf8');
      const listed = new Set([...doc.matchAll(/^\| `((?:GET|POST|PUT|DELETE) \/[^`]*)` \|/gm)].map((m) => m[1]));
      const missingRows = sim.model.operations.filter((op) => !listed.has(op.key)).map((op) => `| \`${op.key}\` | ${op.summary.replace(/\|/g, '\\|')} |`);
      expect(missingRows, 'add these rows to the "Implemented operations" table').toEqual([]);
      expect([...listed].filter((key) => !sim.implemented.includes(key))).toEqual([]);
    } finally {
      await sim.close();
    }
  });
});
