/**
 * The SDK's own helpers, found through the operation they wrap. A script can read every guest with
 * `pve.get('/cluster/resources', { type: 'vm' })`, but `pve.guests()` and `pve.findGuest()` say it in
 * fewer tokens and return the fields an operator asks for, so a search that finds the operation
 * points at them in one line instead of adding results of another shape.
 */
import type { OperationKey } from '../schema/model.js';

export interface SdkHelper {
  /** How a script calls it. */
  call: string;
  /** What it gives, in a few words. */
  gives: string;
}

/** Helpers by the operation they read (sdk-typings/pve.d.ts documents them). */
const HELPERS: ReadonlyMap<OperationKey, readonly SdkHelper[]> = new Map([
  [
    'GET /cluster/resources',
    [
      { call: 'pve.guests()', gives: 'every guest {vmid, name, node, type, status, template}' },
      { call: 'pve.findGuest(nameOrVmid)', gives: 'one guest and its node' },
    ],
  ],
]);

/** One line naming the helpers behind the operations found, or undefined when none wraps them. */
export function helperLine(keys: readonly OperationKey[]): string | undefined {
  const found = [...new Set(keys)].flatMap((key) => (HELPERS.get(key) ?? []).map((h) => ({ ...h, key })));
  if (found.length === 0) return undefined;
  const wrapped = [...new Set(found.map((h) => h.key))].join(', ');
  return `SDK helpers (read ${wrapped}): ${found.map((h) => `${h.call} → ${h.gives}`).join('; ')}`;
}

/**
 * The operations wrapped by the helpers a request names (`pve.findGuest`, `guests()`, `findguest`),
 * so a search for a helper finds what it reads and, through `helperLine`, the helper itself.
 */
export function helperOperations(query: string): OperationKey[] {
  const text = query.toLowerCase();
  const keys: OperationKey[] = [];
  for (const [key, helpers] of HELPERS) {
    for (const helper of helpers) {
      const name = /^pve\.(\w+)\(/.exec(helper.call)?.[1]?.toLowerCase();
      if (name === undefined) continue;
      // A plain word ("guests") names the helper only as code; a compound one ("findguest") as itself.
      const named = text.includes(`pve.${name}`) || new RegExp(`\\b${name}\\s*\\(`).test(text) || (/[A-Z]/.test(helper.call.slice(4)) && new RegExp(`\\b${name}\\b`).test(text));
      if (named && !keys.includes(key)) keys.push(key);
    }
  }
  return keys;
}
