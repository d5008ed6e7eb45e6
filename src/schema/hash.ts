/**
 * Content hash of a parsed schema tree: sha256 (hex) of its JSON serialization without whitespace.
 * Reformatting the file keeps the hash, any content change alters it, so caches of derived artefacts
 * (types, search index) can be keyed by it. Key order counts; PVE writes keys sorted, so its files hash
 * identically however they were pretty-printed.
 */
import { createHash } from 'node:crypto';
import { extractApidocArray } from './extract.js';

export function hashSchemaTree(tree: unknown): string {
  return createHash('sha256').update(JSON.stringify(tree)).digest('hex');
}

/** Content hash of apidoc text (see {@link hashSchemaTree}); throws SchemaParseError on malformed text. */
export function schemaHash(text: string): string {
  return hashSchemaTree(extractApidocArray(text));
}
