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
