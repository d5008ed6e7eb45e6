/**
 * Human-readable rendering of PVE permission blocks, for `get_schema` output and policy messages:
 * `VM.PowerMgmt on /vms/{vmid}`, `VM.Clone on /vms/{vmid} and (VM.Allocate on /vms/{newid} or …)`.
 */

/** Describe a permissions object (`{check?, user?, description?}`) or a bare check expression. */
export function describePermission(perms: unknown): string {
  if (Array.isArray(perms)) return describeCheck(perms, true);
  if (perms === null || perms === undefined || typeof perms !== 'object') return 'root@pam only';
  const block = perms as Record<string, unknown>;
  if (block.user === 'world') return 'no authentication required';
  if (block.user === 'all' && !Array.isArray(block.check)) return 'any authenticated user';
  if (Array.isArray(block.check)) return describeCheck(block.check, true);
  if (typeof block.description === 'string' && block.description.length > 0) return block.description;
  return 'root@pam only';
}

function describeCheck(expr: unknown[], top: boolean): string {
  const [test, ...rest] = expr;
  switch (test) {
    case 'and':
    case 'or': {
      const parts = rest.filter(Array.isArray).map((sub) => describeCheck(sub, false));
      const joined = parts.join(` ${test} `);
      return top || parts.length < 2 ? joined : `(${joined})`;
    }
    case 'perm':
      return describePerm(rest);
    case 'userid-param':
      if (rest[0] === 'self') return 'the caller is the user {userid}';
      return `${String(rest[0])} on /access/realm/<realm of {userid}>`;
    case 'userid-group': {
      const privs = toPrivs(rest[0]);
      return `${anyOf(privs)} on /access/groups or on a group of {userid}`;
    }
    case 'perm-modify':
      return `Permissions.Modify (or the matching Datastore/VM/Pool.Allocate) on ${String(rest[0])}`;
    default:
      return `unknown check ${JSON.stringify(expr)}`;
  }
}

function toPrivs(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function anyOf(privs: string[]): string {
  return privs.length > 1 ? `any of ${privs.join(', ')}` : (privs[0] ?? '');
}

function describePerm(args: unknown[]): string {
  const [path, privsRaw, ...optList] = args;
  const privs = toPrivs(privsRaw);
  const opts: Record<string, unknown> = {};
  for (let i = 0; i + 1 < optList.length; i += 2) opts[String(optList[i])] = optList[i + 1];
  const what = opts.any ? anyOf(privs) : privs.join(' + ');
  const cond = typeof opts.require_param === 'string' ? ` (when '${opts.require_param}' is given)` : '';
  return `${what} on ${String(path)}${cond}`;
}
