/**
 * ACL path helpers shared by permission evaluation and description.
 *
 * PVE fills `{param}` placeholders of a check's path from the request parameters (a missing one
 * becomes `-`, so the check fails on a path nobody has an ACL for) and then normalizes the result.
 */

/** Substitute `{name}` placeholders from params; missing or empty values become `-` like PVE. */
export function fillAclPath(template: string, params: Record<string, unknown>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === '' || value === 0) return '-';
    return String(value);
  });
}

/** Collapse repeated slashes, drop a trailing slash, ensure a leading one (`/` stays `/`). */
export function normalizeAclPath(path: string): string {
  let p = path.replace(/\/+/g, '/');
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  if (p === '') return '/';
  return p.startsWith('/') ? p : `/${p}`;
}
