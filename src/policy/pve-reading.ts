/**
 * The params as PVE's handler will read them, made before any rule looks at them: the schema
 * check, the escalations, the targets, the plan, the preview, undo and the audit all read this one
 * form, and the client sends it. Each step here is something PVE does to what it receives, so a
 * script cannot spell one effect two ways and have the policy see only the harmless one:
 *
 * - a list given as an array to a parameter that is not `type: array` is sent as one
 *   comma-joined string (read as an array, a one-item `mp0: ['/,mp=/host']` was a host bind mount
 *   no rule looked at);
 * - `null` is not sent at all (the client drops it), so PVE applies the parameter's default;
 * - a property-string key the schema marks as an `alias` is PVE's other name for its target
 *   (`scsi1: 'volume=/dev/sda'` is `file=/dev/sda`): renamed to the target;
 * - a VM's `cdrom` is qemu-server's other name for `ide2` (with `media=cdrom` unless a medium is
 *   given), on create and on a config write; `delete: 'cdrom'` deletes `ide2`.
 */
import { joinedList } from '../client/encoding.js';
import { PveInputError } from '../client/errors.js';
import type { Operation, SchemaNode } from '../schema/model.js';
import { InvalidCallError, type Params } from './call-shape.js';
import { listOf } from '../pve/list-value.js';

/** The operations on which qemu-server reads `cdrom` as `ide2` (its create and config-update handlers). */
const CDROM_ALIAS_OPS = /^(?:POST \/nodes\/\{node\}\/qemu|(?:POST|PUT) \/nodes\/\{node\}\/qemu\/\{vmid\}\/config)$/;
const CONFIG_UPDATE = /^(?:POST|PUT) \/nodes\/\{node\}\/qemu\/\{vmid\}\/config$/;

/** Rewrites `params` in place into what PVE will read. */
export function asPveReads(op: Operation, params: Params, arrayParams: ReadonlySet<string>): void {
  for (const [name, value] of Object.entries(params)) {
    if (value === null) {
      delete params[name];
    } else if (Array.isArray(value) && !arrayParams.has(name)) {
      params[name] = joined(name, value);
    }
  }
  // Before the aliases: the ide2 that cdrom becomes has them resolved with the others.
  if (CDROM_ALIAS_OPS.test(op.key)) cdromAsIde2(op.key, params);
  for (const spec of op.params) {
    const value = params[spec.name];
    if (typeof value === 'string' && typeof spec.format === 'object' && spec.format !== null) params[spec.name] = withAliasesResolved(spec.format, value);
  }
}

function joined(name: string, items: readonly unknown[]): string {
  try {
    return joinedList(name, items);
  } catch (err) {
    if (err instanceof PveInputError) throw new InvalidCallError(err.message);
    throw err;
  }
}

/** Each `alias=value` part of a property string as `target=value`; everything else byte for byte. */
function withAliasesResolved(format: Record<string, SchemaNode>, text: string): string {
  const aliasOf = (key: string): string | undefined => {
    const node = Object.hasOwn(format, key) ? format[key] : undefined;
    // A `keyAlias` key (`virtio=<MAC>` of a NIC) names two values at once: the model by its key, the
    // MAC by its value. It stays as written.
    return typeof node?.alias === 'string' && node.keyAlias === undefined ? node.alias : undefined;
  };
  return text
    .split(',')
    .map((part) => {
      const eq = part.indexOf('=');
      const target = eq > 0 ? aliasOf(part.slice(0, eq)) : undefined;
      return target === undefined ? part : `${target}${part.slice(eq)}`;
    })
    .join(',');
}

function cdromAsIde2(opKey: string, params: Params): void {
  const cdrom = params.cdrom;
  // qemu-server takes `cdrom` only when it is true in Perl's sense; '' and '0' stay as they are.
  if (typeof cdrom === 'string' || typeof cdrom === 'number') {
    const text = String(cdrom);
    if (text !== '' && text !== '0') {
      params.ide2 = /media=/.test(text) ? text : `${text},media=cdrom`;
      delete params.cdrom;
    }
  }
  if (CONFIG_UPDATE.test(opKey) && params.delete !== undefined) {
    const members = listOf(params.delete);
    if (members.includes('cdrom')) params.delete = members.map((k) => (k === 'cdrom' ? 'ide2' : k)).join(',');
  }
}
