/**
 * How PVE reads the value of a list parameter (the formats ending `-list`: a config `delete`, the
 * `vms` of a bulk call, `tags`, a pool's `storage`…): split on `,`, `;`, whitespace or NUL, empty
 * members dropped. The one reading in the product, for every rule, plan, preview and undo that
 * looks at a list's members. An array is read item by item (the request resolver has joined the
 * SDK's arrays before a rule sees them; values read back from the cluster may still be arrays), a
 * number as its text.
 */
export function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(listOf);
  if (typeof value === 'number') return [String(value)];
  if (typeof value !== 'string') return [];
  return value.split(/[,;\s\0]+/).filter((s) => s.length > 0);
}
