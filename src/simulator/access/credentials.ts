/**
 * Where pveproxy finds credentials: the `PVEAuthCookie` ticket in the Cookie header, else in the
 * Authorization header, and only when there is no ticket an `PVEAPIToken` in the Authorization
 * header. The key may be followed by `=` or a space, the value runs to the next `;` and is
 * percent-decoded; key matching is case-sensitive.
 */
export const COOKIE_NAME = 'PVEAuthCookie';
export const API_TOKEN_NAME = 'PVEAPIToken';

export interface Credentials {
  ticket?: string;
  apiToken?: string;
}

/** Percent-decoding like URI::Escape's uri_unescape: `%XX` only, malformed escapes kept. */
export function uriUnescape(text: string): string {
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const hex = c === '%' ? text.slice(i + 1, i + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

export function extractAuthValue(header: string | undefined, key: string): string | undefined {
  if (!header) return undefined;
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?:^|\\s)${escaped}(?:=| )([^;]*)`).exec(header);
  if (!m) return undefined;
  const value = uriUnescape(m[1] as string);
  return value.length > 0 ? value : undefined;
}

export function extractCredentials(cookie: string | undefined, authorization: string | undefined): Credentials {
  const ticket = extractAuthValue(cookie, COOKIE_NAME) ?? extractAuthValue(authorization, COOKIE_NAME);
  if (ticket) return { ticket };
  const apiToken = extractAuthValue(authorization, API_TOKEN_NAME);
  return apiToken ? { apiToken } : {};
}

export interface ParsedToken {
  tokenid: string;
  secret: string;
}

/** `user@realm!name=secret`: the last `=` separates the secret (PVE's greedy `^(.*)=(.*)$`). */
export function splitTokenValue(value: string): ParsedToken | undefined {
  const at = value.lastIndexOf('=');
  if (at < 0) return undefined;
  return { tokenid: value.slice(0, at), secret: value.slice(at + 1) };
}
