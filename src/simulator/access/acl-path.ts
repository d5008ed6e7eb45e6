/**
 * ACL paths the way pve-access-control handles them, written for the simulator on its own (the
 * product has its own helpers; end-to-end tests compare the two):
 *
 * - a check's path template gets its `{name}` placeholders from the request parameters, and a
 *   parameter that is missing or false in Perl's sense (undef, '', 0, '0') becomes `-`;
 * - the result is normalized: runs of `/` collapse, one trailing `/` goes, a leading `/` is
 *   added; an empty path or one with characters outside letters, digits and `.-_/` is no ACL
 *   path at all (`undefined`: nobody holds privileges there);
 * - privileges are looked up level by level from `/` down to the path itself.
 */

/** Perl truthiness of a parameter value, as `$data->{$name} || '-'` sees it. */
function perlTrue(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value !== '' && value !== '0';
  return true;
}

/** Fills `{name}` placeholders of a permission path template from the request parameters. */
export function fillTemplate(template: string, params: Record<string, unknown>): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      out += template.slice(i);
      break;
    }
    const close = template.indexOf('}', open + 1);
    if (close < 0) {
      out += template.slice(i);
      break;
    }
    out += template.slice(i, open);
    const value = params[template.slice(open + 1, close)];
    out += perlTrue(value) ? String(value) : '-';
    i = close + 1;
  }
  return out;
}

const ACL_PATH_CHARS = /^[A-Za-z0-9.\-_/]+$/;

/** PVE's ACL path normalization; `undefined` for what is not a valid ACL path. */
export function normalizePath(path: string | undefined): string | undefined {
  if (path === undefined || path === '' || path === '0') return undefined;
  let p = '';
  for (const ch of path) {
    if (ch === '/' && p.endsWith('/')) continue;
    p += ch;
  }
  if (p.endsWith('/')) p = p.slice(0, -1);
  if (p === '') p = '/';
  if (!p.startsWith('/')) p = `/${p}`;
  return ACL_PATH_CHARS.test(p) ? p : undefined;
}

/** The levels an ACL lookup walks, root first: `/vms/100` → `/`, `/vms`, `/vms/100`. */
export function pathLevels(normalized: string): string[] {
  if (normalized === '/') return ['/'];
  const levels = ['/'];
  let prefix = '';
  for (const part of normalized.split('/')) {
    if (part === '') continue;
    prefix += `/${part}`;
    levels.push(prefix);
  }
  return levels;
}
