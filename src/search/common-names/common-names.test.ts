import { describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from '../../schema/loader.js';
import { hasOfficialSchema, OFFICIAL_VERSIONS, officialSchemaFile } from '../../schema/official-schemas.js';
import { COMMON_NAME_TABLES, commonNames } from './index.js';

/** Runs of this many words shared with the schema's text would be its text, not ours. */
const COPIED_RUN = 5;

/** Runs within one phrase (common names are phrases separated by ';'), or within the schema's whole text. */
function wordRuns(text: string): Set<string> {
  const runs = new Set<string>();
  for (const phrase of text.split(';')) {
    const words = phrase.toLowerCase().match(/[a-z0-9]+/g) ?? [];
    for (let i = 0; i + COPIED_RUN <= words.length; i++) runs.add(words.slice(i, i + COPIED_RUN).join(' '));
  }
  return runs;
}

describe('common names', () => {
  it('name each operation once, across every area', () => {
    const seen = new Map<string, number>();
    for (const table of COMMON_NAME_TABLES) for (const key of Object.keys(table)) seen.set(key, (seen.get(key) ?? 0) + 1);
    expect([...seen].filter(([, n]) => n > 1).map(([key]) => key)).toEqual([]);
    expect(commonNames('GET /no/such/operation')).toBe('');
  });

  describe.skipIf(!hasOfficialSchema('9.1'))('against the official 9.1 schema', async () => {
    const model = hasOfficialSchema('9.1') ? await loadSchemaFromFile(officialSchemaFile('9.1')) : undefined;
    const keys = new Set(model?.operations.map((op) => op.key));

    it('cover every operation and name no other', () => {
      const written = new Set(COMMON_NAME_TABLES.flatMap((table) => Object.keys(table)));
      expect([...written].filter((key) => !keys.has(key))).toEqual([]);
      expect([...keys].filter((key) => !written.has(key))).toEqual([]);
    });
  });

  // The schemas are Proxmox's (AGPL): the words must be ours, so none repeats a run of its text.
  for (const version of OFFICIAL_VERSIONS) {
    it.skipIf(!hasOfficialSchema(version))(`share no run of ${COPIED_RUN} words with the ${version} schema's text`, async () => {
      const model = await loadSchemaFromFile(officialSchemaFile(version));
      const copied = model.operations.flatMap((op) => {
        const schemaRuns = wordRuns(`${op.summary} ${op.description} ${op.params.map((p) => p.description ?? '').join(' ')}`);
        return [...wordRuns(commonNames(op.key))].filter((run) => schemaRuns.has(run)).map((run) => `${op.key}: "${run}"`);
      });
      expect(copied).toEqual([]);
    });
  }
});
