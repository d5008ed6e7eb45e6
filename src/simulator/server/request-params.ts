/**
 * Request parameters as pveproxy extracts them: the body (form-urlencoded or JSON) first, then
 * query parameters on top, `_dc` (ExtJS cache buster) removed.
 */

export class BodyParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BodyParseError';
  }
}

/** Keep the media type only (`application/json; charset=utf-8` → `application/json`), like PVE's `parse_content_type`. */
export function mediaType(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  return contentType.split(/\s*[;,]\s*/)[0];
}

export const ACCEPTED_BODY_TYPES = new Set(['application/x-www-form-urlencoded', 'application/json']);

function decodeComponent(text: string): string {
  const bytes: number[] = [];
  const plus = text.replace(/\+/g, ' ');
  for (let i = 0; i < plus.length; i++) {
    const hex = plus[i] === '%' ? plus.slice(i + 1, i + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(plus[i] as string, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * `a=1&b=2;c` → `{a:'1', b:'2', c:null}`: split on `&` or `;`, `+` is a space, a repeated key
 * becomes an array, a key without `=` has no value (null).
 */
export function decodeUrlencoded(data: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!data) return out;
  for (const kv of data.split(/[&;]/)) {
    if (kv === '') continue;
    const eq = kv.indexOf('=');
    const key = decodeComponent(eq < 0 ? kv : kv.slice(0, eq));
    const value = eq < 0 ? null : decodeComponent(kv.slice(eq + 1));
    const old = out[key];
    if (value !== null && old !== undefined && old !== null) {
      out[key] = Array.isArray(old) ? [...old, value] : [old, value];
    } else {
      out[key] = value;
    }
  }
  return out;
}

export function parseBody(media: string | undefined, body: Buffer): Record<string, unknown> {
  if (body.length === 0) return {};
  const text = body.toString('utf8');
  if (media === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new BodyParseError(`malformed JSON string: ${(error as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new BodyParseError('Not a HASH reference');
    }
    return parsed as Record<string, unknown>;
  }
  return decodeUrlencoded(text);
}

export function mergeParams(bodyParams: Record<string, unknown>, query: string): Record<string, unknown> {
  const params = { ...bodyParams, ...decodeUrlencoded(query) };
  delete params._dc;
  return params;
}
