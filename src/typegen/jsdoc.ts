/** The JSDoc text of generated declarations: an operation's summary, risk class and permissions. */
import { describePermission } from '../permissions/describe.js';
import type { Operation } from '../schema/model.js';

/** Operation comment: summary, risk class, permission and token restrictions. */
export function operationDoc(op: Operation): string {
  const lines = [op.summary || `${op.method} ${op.path}`, '', `@risk ${op.risk}`, `@permission ${describePermission(op.permissions)}`];
  if (!op.allowtoken) lines.push('@remarks not available with API tokens');
  return lines.join('\n');
}

/** The inside of a `/** … *\/` comment holding `text`, one ` * ` line per line of text. */
export function jsDocBody(text: string): string {
  const body = text
    .replace(/\*\//g, '*\\/')
    .split('\n')
    .map((line) => ` * ${line}`.trimEnd())
    .join('\n');
  return `*\n${body}\n `;
}
