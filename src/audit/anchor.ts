/**
 * The anchor sidecar (`<file>.anchor`) records where the active audit file should end: its index,
 * the last entry's seq and hash. Cutting entries off the end of the log leaves the chain itself
 * intact, so only this outside record reveals truncation.
 *
 * It is a fixed-size record rewritten in place at offset 0 (one small positional write, no
 * rename), tagged with HMAC-SHA256 when a key is configured so it cannot be rewritten to match a
 * shortened log without the key. The log rewrites it at most every `ANCHOR_DELAY_MS` (under the
 * state lock, with the log's real end, whichever process wrote it), not after every entry: a
 * script's thousand sequential calls then cost a few anchor writes instead of a thousand.
 * Entries a crash leaves past the anchor are reported by `verifyAudit` as not anchored yet, never
 * as tampering.
 */
import { closeSync, constants, openSync, readFileSync, writeSync } from 'node:fs';
import { canonicalJson, hmacSha256Hex, sha256Hex } from '../safety/canonical.js';

export const ANCHOR_SIZE = 512;
/** How long the anchor may trail the log. */
export const ANCHOR_DELAY_MS = 100;

export interface AnchorState {
  v: 1;
  index: number;
  seq: number;
  hash: string;
}

export type AnchorRead = { status: 'ok'; state: AnchorState } | { status: 'missing' } | { status: 'invalid'; reason: string };

function tagOf(state: AnchorState, key?: string | Buffer): string {
  const text = canonicalJson(state);
  return key !== undefined ? hmacSha256Hex(key, text) : sha256Hex(text);
}

/**
 * Rewrite the anchor in place (create it owner-only if missing). The caller holds the state lock,
 * so the anchor always names the log's real end, whichever process wrote that end.
 */
export function writeAnchor(path: string, state: AnchorState, key?: string | Buffer): void {
  const text = JSON.stringify({ ...state, tag: tagOf(state, key) });
  const padded = text.padEnd(ANCHOR_SIZE - 1, ' ') + '\n';
  // Read-write, created if missing, never truncated; positional writes need a non-append descriptor.
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  try {
    writeSync(fd, padded, 0, 'utf8');
  } finally {
    closeSync(fd);
  }
}

export function readAnchor(path: string, key?: string | Buffer): AnchorRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
    throw err;
  }
  return parseAnchor(text, key);
}

export function parseAnchor(text: string, key?: string | Buffer): AnchorRead {
  if (text.trim() === '') return { status: 'invalid', reason: 'the anchor file is empty' };
  let raw: unknown;
  try {
    raw = JSON.parse(text.trim());
  } catch {
    return { status: 'invalid', reason: 'the anchor file is not valid JSON' };
  }
  if (raw === null || typeof raw !== 'object') return { status: 'invalid', reason: 'the anchor file is not an object' };
  const r = raw as Record<string, unknown>;
  if (r.v !== 1 || typeof r.index !== 'number' || typeof r.seq !== 'number' || typeof r.hash !== 'string' || typeof r.tag !== 'string') {
    return { status: 'invalid', reason: 'the anchor file lacks v/index/seq/hash/tag' };
  }
  const state: AnchorState = { v: 1, index: r.index, seq: r.seq, hash: r.hash };
  if (tagOf(state, key) !== r.tag) {
    return { status: 'invalid', reason: key !== undefined ? 'the anchor tag does not match (edited, or a different HMAC key)' : 'the anchor tag does not match (edited, or written with an HMAC key)' };
  }
  return { status: 'ok', state };
}
