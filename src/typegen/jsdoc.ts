import ts from 'typescript';
import { describePermission } from '../permissions/describe.js';
import type { Operation } from '../schema/model.js';

/** Operation comment: summary, risk class, permission and token restrictions. */
export function operationDoc(op: Operation): string {
  const lines = [op.summary || `${op.method} ${op.path}`, '', `@risk ${op.risk}`, `@permission ${describePermission(op.permissions)}`];
  if (!op.allowtoken) lines.push('@remarks not available with API tokens');
  return lines.join('\n');
}

/** Attach `/** … *\/` above a node. */
export function withJsDoc<T extends ts.Node>(node: T, text: string): T {
  const body = text
    .replace(/\*\//g, '*\\/')
    .split('\n')
    .map((line) => ` * ${line}`.trimEnd())
    .join('\n');
  return ts.addSyntheticLeadingComment(node, ts.SyntaxKind.MultiLineCommentTrivia, `*\n${body}\n `, true);
}
