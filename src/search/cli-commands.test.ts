import { describe, expect, it } from 'vitest';
import { loadSchemaFromFile } from '../schema/loader.js';
import { hasOfficialSchema, officialSchemaFile } from '../schema/official-schemas.js';
import { NODE_COMMANDS, namedCommands } from './cli-commands.js';
import { ApiSearch } from './engine.js';

const Q = '/nodes/{node}/qemu/{vmid}';

describe('node commands named in a request', () => {
  it('finds a command with its subcommand anywhere in the request, longest first', () => {
    expect(namedCommands('qm set 101 --memory 4096')).toEqual([{ keys: [`PUT ${Q}/config`, `POST ${Q}/config`] }]);
    expect(namedCommands('what does `qm guest exec-status` return')).toEqual([{ keys: [`GET ${Q}/agent/exec-status`] }]);
    expect(namedCommands('pct enter 200')).toEqual([{ keys: ['POST /nodes/{node}/lxc/{vmid}/termproxy'] }]);
    expect(namedCommands('pvesh get /nodes/pve1/qemu')).toEqual([{ keys: [], pvesh: { method: 'GET', path: '/nodes/pve1/qemu' } }]);
  });

  it('does not read a plain word as a command', () => {
    // vzdump is a command only with its arguments; "pct" is also "percent".
    expect(namedCommands('what are the vzdump defaults')).toEqual([]);
    expect(namedCommands('vzdump 101 --mode snapshot')).toEqual([{ keys: ['POST /nodes/{node}/vzdump'] }]);
    expect(namedCommands('which vms use more than 90 pct of their memory')).toEqual([]);
    expect(namedCommands('qm')).toEqual([]);
  });
});

describe.skipIf(!hasOfficialSchema('9.1'))('node commands on the official 9.1 schema', async () => {
  const model = hasOfficialSchema('9.1') ? await loadSchemaFromFile(officialSchemaFile('9.1')) : undefined;
  const keys = new Set(model?.operations.map((op) => op.key));

  it('names only operations the schema has', () => {
    const missing = NODE_COMMANDS.flatMap(([command, ops]) => ops.filter((key) => !keys.has(key)).map((key) => `${command} → ${key}`));
    expect(missing).toEqual([]);
  });

  it('puts the operations a named command calls first', () => {
    const search = new ApiSearch(model as NonNullable<typeof model>);
    expect(search.search('qm set 101 --memory 4096', { limit: 2 }).map((h) => h.key)).toEqual([`PUT ${Q}/config`, `POST ${Q}/config`]);
    expect(search.search('pvesh get /nodes/pve1/storage/local/content')[0]?.key).toBe('GET /nodes/{node}/storage/{storage}/content');
    expect(search.search('run lsusb on pve2')[0]?.key).toBe('GET /nodes/{node}/hardware/usb');
  });

  it('reads a tool the table has no subcommand of as its area (synonyms: qm, pvesm, pvecm, pveam…)', () => {
    const search = new ApiSearch(model as NonNullable<typeof model>);
    expect(search.search('qm showcmd 101', { limit: 1 })[0]?.path).toMatch(/\/qemu/);
    expect(search.search('pveam update', { limit: 1 })[0]?.path).toMatch(/\/aplinfo$/);
  });
});
