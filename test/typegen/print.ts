/** Factory nodes back to text (the reference printer the text back-end of src/typegen is tested against). */
import ts from 'typescript';

const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed, removeComments: false });
const scratch = ts.createSourceFile('print.ts', '', ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);

export function printNode(node: ts.Node): string {
  return printer.printNode(ts.EmitHint.Unspecified, node, scratch);
}

/** A type on one line (`string | string[]`, `{ a: number; b?: string }`), for compact listings. */
export function typeText(node: ts.TypeNode): string {
  return printNode(node).replace(/\s*\n\s*/g, ' ');
}
