import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSchemaFromString } from '../../src/schema/loader.js';
import { sdkDeclarationFiles } from '../../src/typegen/index.js';
import { strictCheck } from './strict-check.js';

const model = loadSchemaFromString(readFileSync(new URL('../../src/schema/fixtures/mini-apidoc.js', import.meta.url), 'utf8'));
const files = sdkDeclarationFiles(model);

describe('the hand-written pve surface', () => {
  it('types a planned task wait, so a dry-run script can tell it from one that ran', () => {
    const script = [
      "const upid = await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 100 });",
      'const task = await pve.waitTask(upid);',
      'const planned: true | undefined = task.planned;',
      "return task.planned ? 'planned, not sent' : task.ok;",
    ].join('\n');
    expect(strictCheck(files, script)).toEqual([]);
    // The marker is the literal `true`, never a boolean a script could read as "sent".
    expect(strictCheck(files, "const t = await pve.waitTask('x'); const b: false = t.planned;").join('\n')).toMatch(/TS2322/);
  });
});
