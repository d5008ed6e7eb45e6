/**
 * One operation as get_schema shows it: the comment lines (summary, risk, permission, verdict), the
 * parameters, the return type and an example call, assembled from the describe helpers.
 */
import { describePermission } from '../permissions/describe.js';
import type { Operation } from '../schema/model.js';
import { exampleCall } from './example.js';
import { paramSection } from './param-lines.js';
import { returnsText } from './returns.js';
import { unservedLine, type Unserved } from './unserved.js';
import { raisesLines, raisingParams, verdictLines, type OperationVerdict } from './verdict.js';

const MAX_PERMISSION_NOTE = 160;

/**
 * Permission as a person reads it, plus the API-token restriction. Where the schema has no check
 * expression its prose says what the handler verifies, so that is appended.
 */
export function permissionText(op: Operation): string {
  let text = describePermission(op.permissions);
  const note = op.permissions?.check === undefined ? op.permissions?.description?.replace(/\s+/g, ' ').trim() : undefined;
  if (note && note !== text) text += ` — ${note.length > MAX_PERMISSION_NOTE ? `${note.slice(0, MAX_PERMISSION_NOTE - 1).trimEnd()}…` : note}`;
  return op.allowtoken ? text : `${text} (not available with API tokens)`;
}

/**
 * The compact TypeScript-style signature get_schema returns:
 *
 *   // Start the virtual machine [risk: write]
 *   // permission: VM.PowerMgmt on /vms/{vmid}
 *   pve.post('/nodes/{node}/qemu/{vmid}/status/start', params: {
 *     node: string;  // format pve-node — The cluster node name
 *     ...
 *   }): Promise<string>  // usually a task UPID → await pve.waitTask(upid)
 *   // example: await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 100 })
 */
export function renderSignature(op: Operation, requestedParams: readonly string[] = [], verdict?: OperationVerdict, unserved?: Unserved): string {
  const lines = [
    `// ${op.summary || op.key} [risk: ${op.risk}]`,
    ...(unserved?.operations.has(op.key) ? [unservedLine(unserved)] : []),
    ...(verdict ? verdictLines(verdict) : raisesLines(raisingParams(op))),
    `// permission: ${permissionText(op)}`,
  ];
  const call = `pve.${op.method.toLowerCase()}('${op.path}'`;
  const returns = returnsText(op, requestedParams);
  const tail = `): Promise<${returns.type}>${returns.note ? `  // ${returns.note}` : ''}`;
  // A requested name may be a return field instead of a parameter: that is not "no such param".
  const section = paramSection(
    op,
    requestedParams.filter((name) => !returns.expanded.includes(name)),
  );
  if (section.lines.length === 0 && section.omitted.length === 0) {
    lines.push(`${call}${tail}`);
  } else {
    const allOptional = op.params.every((p) => p.optional);
    lines.push(`${call}, params${allOptional ? '?' : ''}: {`, ...section.lines);
    if (section.omitted.length > 0) {
      lines.push(`  // ${section.omitted.length} more optional: ${section.omitted.join(', ')} (ask get_schema with params: [...] for details)`);
    }
    lines.push(`}${tail}`);
  }
  if (section.unknown.length > 0) lines.push(`// no such params: ${section.unknown.join(', ')}`);
  lines.push(`// example: ${exampleCall(op)}`);
  return lines.join('\n');
}
