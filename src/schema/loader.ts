/**
 * The ways an apidoc schema comes in (text, file, URL), all ending in the same bracket-matched
 * extraction (nothing evaluated), normalization and content hash, so every source yields the same
 * `ApiModel` for the same schema.
 */
import { readFile } from 'node:fs/promises';
import { SchemaLoadError } from './errors.js';
import { extractApidocArray } from './extract.js';
import { hashSchemaTree } from './hash.js';
import { ApiModel, type SchemaSource } from './model.js';
import { normalizeSchema } from './normalize.js';

/** Far above the 9.1 file (~4 MB); keeps a wrong URL or file from exhausting memory. */
export const MAX_SCHEMA_BYTES = 64 * 1024 * 1024;

/** Parse and normalize apidoc text (`const apiSchema = [...]` or a bare JSON array). Nothing in it is evaluated. */
export function loadSchemaFromString(text: string, source: SchemaSource = { kind: 'string' }): ApiModel {
  const location = source.location ?? source.kind;
  const tree = extractApidocArray(text, location);
  const { operations, paths } = normalizeSchema(tree, location);
  return new ApiModel(operations, hashSchemaTree(tree), source, paths);
}

export async function loadSchemaFromFile(path: string): Promise<ApiModel> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'the file does not exist' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message;
    throw new SchemaLoadError(`Cannot read the schema file: ${why}. Check the configured schema path.`, path, { cause: error });
  }
  if (text.length > MAX_SCHEMA_BYTES) {
    throw new SchemaLoadError(`The schema file is larger than ${MAX_SCHEMA_BYTES} bytes; it is not an apidoc file.`, path);
  }
  return loadSchemaFromString(text, { kind: 'file', location: path });
}

export interface LoadFromUrlOptions {
  signal?: AbortSignal;
  /** The client passes its own fetch (TLS pinning, auth); defaults to the global fetch. */
  fetchImpl?: typeof fetch;
}

export async function loadSchemaFromUrl(url: string, options: LoadFromUrlOptions = {}): Promise<ApiModel> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new SchemaLoadError('Not a valid URL. Give an http(s) URL such as https://pve1:8006/pve-docs/api-viewer/apidoc.js.', url, { cause: error });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new SchemaLoadError(`Unsupported URL scheme ${parsed.protocol}; only http and https are fetched.`, url);
  }
  const fetchImpl = options.fetchImpl ?? fetch;
  let response: Response;
  try {
    response = await fetchImpl(parsed, options.signal ? { signal: options.signal } : {});
  } catch (error) {
    const aborted = options.signal?.aborted === true;
    const why = aborted ? 'the request was aborted' : `the request failed (${(error as Error).message})`;
    throw new SchemaLoadError(`Cannot fetch the schema: ${why}. Check the URL, network and TLS settings.`, url, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new SchemaLoadError(`Cannot fetch the schema: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`, url);
  }
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_SCHEMA_BYTES) {
    await response.body?.cancel();
    throw new SchemaLoadError(`The schema is ${declared} bytes, above the ${MAX_SCHEMA_BYTES}-byte limit.`, url);
  }
  const text = await readBounded(response, url);
  return loadSchemaFromString(text, { kind: 'url', location: url });
}

/** Read the body but stop at the size limit even when the server sends no or a false Content-Length. */
async function readBounded(response: Response, url: string): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_SCHEMA_BYTES) {
        await reader.cancel();
        throw new SchemaLoadError(`The schema response exceeds ${MAX_SCHEMA_BYTES} bytes; it is not an apidoc file.`, url);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof SchemaLoadError) throw error;
    throw new SchemaLoadError(`Cannot read the schema response: ${(error as Error).message}.`, url, { cause: error });
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
