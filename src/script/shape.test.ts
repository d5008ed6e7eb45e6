import { describe, expect, it } from 'vitest';
import { MAX_EXPRESSION_DEPTH, MAX_NESTING, shapeError, stringContents } from './shape.js';

const terms = (n: number, op: string) => Array.from({ length: n }, () => 'a').join(op);

describe('shape limits before any parser', () => {
  it('refuses deep nesting and long chains with the limit and the line', () => {
    expect(shapeError(`const a = 1;\nreturn ${'('.repeat(MAX_NESTING + 1)}a${')'.repeat(MAX_NESTING + 1)};`)).toMatchObject({
      line: 2,
      message: `the script nests brackets more than ${MAX_NESTING} deep`,
    });
    for (const chain of [terms(MAX_EXPRESSION_DEPTH + 2, '+'), `(${terms(MAX_EXPRESSION_DEPTH + 2, ',')})`, `${'!'.repeat(MAX_EXPRESSION_DEPTH + 1)}a`, `a${'.b'.repeat(MAX_EXPRESSION_DEPTH + 1)}`]) {
      expect(shapeError(`\n\nreturn ${chain};`)).toMatchObject({ line: 3, message: `the script's expression is nested more than ${MAX_EXPRESSION_DEPTH} operators and brackets deep` });
    }
    expect(shapeError(`return \`\${${'`${'.repeat(MAX_NESTING)}1${'}`'.repeat(MAX_NESTING)}}\`;`)?.message).toContain('nests brackets');
  });

  it('lets long flat data, statements, strings and comments through', () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => `{ vmid: ${i}, weight: -${i}.5, name: 'vm-${i}' }`).join(',\n');
    expect(shapeError(`const rows = [\n${rows}\n];\nreturn rows.length;`)).toBeUndefined();
    expect(shapeError(Array.from({ length: 3_000 }, (_, i) => `const v${i} = a.b.c + ${i} * 2 - f(x, y);`).join('\n'))).toBeUndefined();
    const hidden = `${'('.repeat(2_000)}${'+'.repeat(2_000)}`;
    expect(shapeError(`const s = '${hidden}';\nconst t = "${hidden}";\n// ${hidden}\n/* ${hidden} */\nconst u = \`${hidden}\${1 + 2}${hidden}\`;`)).toBeUndefined();
  });

  it('finds the contents of every string, template text included', () => {
    const source = "const a = 'x1'; const b = \"x2\"; const c = `x3${a}x4`; // 'not'";
    expect(stringContents(source).map(([s, e]) => source.slice(s, e))).toEqual(['x1', 'x2', 'x3', 'x4']);
  });
});
