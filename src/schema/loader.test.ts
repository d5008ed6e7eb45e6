import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchemaLoadError, SchemaParseError, SchemaShapeError } from './errors.js';
import { loadSchemaFromFile, loadSchemaFromString, loadSchemaFromUrl } from './loader.js';
import { extractApidocArray } from './extract.js';
import { schemaHash } from './hash.js';
import { OFFICIAL_COUNTS, OFFICIAL_SCHEMA_SKIP_MESSAGE, OFFICIAL_VERSIONS, hasOfficialSchema, officialSchemaFile } from './official-schemas.js';

const fixturePath = fileURLToPath(new URL('./fixtures/mini-apidoc.js', import.meta.url));
const fixture = readFileSync(fixturePath, 'utf8');

function parseError(text: string): SchemaParseError {
  try {
    extractApidocArray(text);
  } catch (error) {
    if (error instanceof SchemaParseError) return error;
    throw error;
  }
  throw new Error('expected a SchemaParseError');
}

describe('extractApidocArray', () => {
  it('accepts the declaration form with var/let/const, comments and a missing semicolon', () => {
    expect(extractApidocArray('const apiSchema = [1, 2];')).toEqual([1, 2]);
    expect(extractApidocArray('/* head */ var apiSchema=[{"a":"]"}]\n// tail\n')).toEqual([{ a: ']' }]);
    expect(extractApidocArray('\uFEFFlet\n  apiSchema\n=\n[]')).toEqual([]);
  });

  it('accepts a bare JSON array', () => {
    expect(extractApidocArray('  [{"path": "/x"}]  ')).toEqual([{ path: '/x' }]);
  });

  it('is not fooled by brackets and escaped quotes inside strings', () => {
    expect(extractApidocArray('const apiSchema = ["a\\"]", "[{", "\\\\"];')).toEqual(['a"]', '[{', '\\']);
  });

  it('rejects truncated input with the position of the end', () => {
    const text = 'const apiSchema = [{"path": "/a"}, {"path"';
    const error = parseError(text);
    expect(error.reason).toMatch(/ends inside the array/);
    expect(error.position.offset).toBe(text.length);
    expect(error.message).toMatch(/line 1, column \d+/);
    expect(parseError('const apiSchema = ["abc').reason).toMatch(/ends inside a string/);
  });

  it('rejects trailing code after the array', () => {
    const error = parseError('const apiSchema = [1];\nfetch("http://evil");');
    expect(error.reason).toMatch(/unexpected `fetch` after the apiSchema array/);
    expect(error.position).toMatchObject({ line: 2, column: 1 });
    expect(error.snippet).toContain('⟨here⟩fetch');
  });

  it('rejects code before the array', () => {
    expect(parseError('require("child_process"); const apiSchema = [];').reason).toMatch(/found `require`/);
    expect(parseError('const other = [];').reason).toMatch(/name apiSchema/);
    expect(parseError('const apiSchema = JSON.parse("[]")').reason).toMatch(/array literal/);
  });

  it('rejects code embedded in the array', () => {
    const text = 'const apiSchema = [\n  {"path": "/a", "x": process.exit(1)}\n];';
    const error = parseError(text);
    expect(error.reason).toMatch(/`process`, which is not a JSON value/);
    expect(error.position).toMatchObject({ line: 2, column: 23 });
  });

  it('names other JSON problems precisely', () => {
    expect(parseError("['single']").reason).toMatch(/not a JSON value/);
    expect(parseError('[1, 2,]').reason).toMatch(/trailing ','/);
    expect(parseError('[{"a": 1,}]').reason).toMatch(/trailing ','/);
    expect(parseError('[{"a" 1}]').reason).toMatch(/expected ':'/);
    expect(parseError('[1 2]').reason).toMatch(/expected ',' or '\]'/);
    expect(parseError('[{"a": 1]').reason).toMatch(/mismatched '\]'/);
  });

  it('rejects empty input, unterminated comments and absurd nesting', () => {
    expect(parseError('  ').reason).toMatch(/empty/);
    expect(parseError('/* const apiSchema = []').reason).toMatch(/unterminated \/\* comment/);
    expect(parseError('['.repeat(1000) + ']'.repeat(1000)).reason).toMatch(/nesting deeper/);
  });
});

describe('loadSchemaFromString', () => {
  it('normalizes the fixture into an ApiModel', () => {
    const model = loadSchemaFromString(fixture);
    expect(model.paths).toContain('/cluster');
    expect(model.hasPath('/cluster')).toBe(true);
    expect(model.byPath('/cluster')).toEqual([]);
    expect(model.paths).toHaveLength(11);
    expect(model.operations).toHaveLength(11);
    expect(model.source).toEqual({ kind: 'string' });
    expect(model.hash).toBe(schemaHash(fixture));
  });

  it('rejects a tree of the wrong shape, naming the JSON path', () => {
    const bad = '[{"path": "/a", "info": {"GET": {"parameters": {"properties": {"x": {"type": 5}}}}}}]';
    // Asserted outside a catch block, so that a load that does not throw fails here.
    const error = (() => {
      try {
        loadSchemaFromString(bad);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(SchemaShapeError);
    expect((error as SchemaShapeError).issues[0]?.jsonPath).toBe('$[0].info.GET.parameters.properties.x.type');
    expect(() => loadSchemaFromString('{"path": "/a"}')).toThrow(SchemaParseError);
    expect(() => loadSchemaFromString('[{"text": "no path"}]')).toThrow(/\$\[0\]\.path/);
    expect(() => loadSchemaFromString('[{"path": "/a"}, {"path": "/a"}]')).toThrow(/duplicate path node \/a/);
    expect(() => loadSchemaFromString('[{"path": "/a", "info": {"GET": {"method": "PUT"}}}]')).toThrow(/says PUT but is listed under GET/);
    expect(() => loadSchemaFromString('[{"path": "/a", "children": [{"path": "no slash"}]}]')).toThrow(/\$\[0\]\.children\[0\]\.path/);
  });
});

describe('schemaHash', () => {
  it('ignores formatting but not content', () => {
    const a = 'const apiSchema = [{"path": "/a", "text": "a"}];';
    const b = '// pretty\n[\n  {\n    "path": "/a",\n    "text": "a"\n  }\n]';
    expect(schemaHash(a)).toBe(schemaHash(b));
    expect(schemaHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(schemaHash(a)).not.toBe(schemaHash('[{"path": "/a", "text": "b"}]'));
  });
});

describe('loadSchemaFromFile', () => {
  it('loads a file and records its location', async () => {
    const model = await loadSchemaFromFile(fixturePath);
    expect(model.source).toEqual({ kind: 'file', location: fixturePath });
  });

  it('explains a missing file', async () => {
    await expect(loadSchemaFromFile('/nonexistent/apidoc.js')).rejects.toThrow(/does not exist.*\/nonexistent\/apidoc\.js/);
  });

  it('puts the file name into parse errors', async () => {
    await expect(loadSchemaFromFile(fileURLToPath(import.meta.url))).rejects.toThrow(/loader\.test\.ts/);
  });
});

describe('loadSchemaFromUrl', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/apidoc.js') res.end(fixture);
      else if (req.url === '/evil.js') res.end('const apiSchema = [];\nalert(1);');
      else if (req.url === '/hang') setTimeout(() => res.end('[]'), 5_000);
      else {
        res.statusCode = 404;
        res.end('nope');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('fetches and normalizes', async () => {
    const model = await loadSchemaFromUrl(`${base}/apidoc.js`);
    expect(model.operations).toHaveLength(11);
    expect(model.source).toEqual({ kind: 'url', location: `${base}/apidoc.js` });
  });

  it('reports HTTP errors, bad URLs, code in the body and aborts', async () => {
    await expect(loadSchemaFromUrl(`${base}/missing`)).rejects.toThrow(/HTTP 404/);
    await expect(loadSchemaFromUrl('not a url')).rejects.toThrow(SchemaLoadError);
    await expect(loadSchemaFromUrl('file:///etc/passwd')).rejects.toThrow(/Unsupported URL scheme/);
    await expect(loadSchemaFromUrl(`${base}/evil.js`)).rejects.toThrow(/unexpected `alert`/);
    await expect(loadSchemaFromUrl(`${base}/hang`, { signal: AbortSignal.timeout(50) })).rejects.toThrow(/aborted/);
  });

  it('uses the given fetch implementation', async () => {
    const seen: string[] = [];
    const fetchImpl: typeof fetch = async (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    };
    await loadSchemaFromUrl(`${base}/apidoc.js`, { fetchImpl });
    expect(seen).toEqual([`${base}/apidoc.js`]);
  });
});

describe.skipIf(!OFFICIAL_VERSIONS.every(hasOfficialSchema))(`official schemas (${OFFICIAL_SCHEMA_SKIP_MESSAGE} to run)`, () => {
  it.each(OFFICIAL_VERSIONS)('PVE %s loads with the expected path and operation counts', async (version) => {
    const model = await loadSchemaFromFile(officialSchemaFile(version));
    expect({ paths: model.paths.length, operations: model.operations.length }).toEqual(OFFICIAL_COUNTS[version]);
    expect(new Set(model.operations.map((o) => o.key)).size).toBe(model.operations.length);
  });
});
