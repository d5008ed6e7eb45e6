/**
 * Smoke run of the token benchmark on the demo cluster: every operator task must be answered
 * correctly in both arms (checked against the simulator's state) and code mode must put fewer
 * tokens into the context than one tool per operation. Correctness only — figures and timings
 * belong to `npm run bench`. Without the official schema the simulator's own schema is used.
 */
import { describe, expect, it } from 'vitest';
import { measureTokens } from '../../bench/tokens/measure.js';
import { hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';

const official = hasOfficialSchema('9.1');

describe('token benchmark smoke run (demo cluster)', () => {
  it('checks every answer and finds code mode cheaper than tool-per-operation', async () => {
    const figures = await measureTokens({ presets: ['demo'], ...(official ? { schemaFile: officialSchemaFile('9.1') } : {}) });
    const [demo] = figures.clusters;
    expect(demo?.tasks.length).toBeGreaterThanOrEqual(12);
    const { toolList } = figures;
    for (const t of demo?.tasks ?? []) {
      expect({ task: t.task, problems: [...t.codeProblems, ...t.toolProblems] }).toEqual({ task: t.task, problems: [] });
      // Search ranking is tuned on the official schema; the simulator's own wording may rank differently.
      if (official) expect({ task: t.task, undiscovered: t.undiscovered }).toEqual({ task: t.task, undiscovered: [] });
      expect(toolList.codeMode + t.work.code).toBeLessThan(toolList.toolMinimal + t.work.tool);
    }
    const work = (demo?.tasks ?? []).reduce((sum, t) => ({ code: sum.code + t.work.code, tool: sum.tool + t.work.tool }), { code: 0, tool: 0 });
    expect(work.code).toBeLessThan(work.tool);
    expect(toolList.codeMode).toBeLessThan(toolList.toolMinimal);
  }, 180_000);
});
