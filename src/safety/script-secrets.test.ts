import { describe, expect, it } from 'vitest';
import { compileScript } from '../script/compile.js';
import { REDACTED } from './redact.js';
import { auditSource } from './script-secrets.js';

describe("the audit's copy of a script", () => {
  it('loses literals given to secret-named properties, directly or through a literal variable', () => {
    const code = [
      "const pw = 'hunter2';",
      "const note = 'hello';",
      "await pve.put('/nodes/{node}/qemu/{vmid}/config', { node: 'pve1', vmid: 101, cipassword: \"s3cr3t-1\", description: note });",
      "await pve.post('/access/users', { userid: 'a@pve', password: pw });",
      'const token_secret = `abc-123`;',
    ].join('\n');
    const { secrets } = compileScript(code);
    expect(secrets.literals.sort()).toEqual(['abc-123', 'hunter2', 's3cr3t-1']);
    const stored = auditSource(code, secrets);
    for (const s of ['hunter2', 's3cr3t-1', 'abc-123']) expect(stored).not.toContain(s);
    expect(stored).toContain(`cipassword: "${REDACTED}"`);
    expect(stored).toContain("'hello'");
    expect(stored).toContain("{ node: 'pve1'");
  });

  it('costs nothing for scripts that name no secret key', () => {
    const code = "return await pve.get('/version')";
    expect(compileScript(code).secrets).toEqual({ literals: [], spans: [] });
    expect(auditSource(code, compileScript(code).secrets)).toBe(code);
  });

  it('hides every string of a script that could not be parsed', () => {
    const code = `const password = 'hunter2';\nreturn ${'['.repeat(2_000)}${']'.repeat(2_000)};`;
    const { transpiled, secrets } = compileScript(code);
    expect(transpiled.ok).toBe(false);
    expect(secrets.allStrings).toBe(true);
    const stored = auditSource(code, secrets);
    expect(stored).not.toContain('hunter2');
    expect(stored).toContain(`const password = '${REDACTED}';`);
  });

  it('withholds the source when no compile read it, or its offsets do not fit the source', () => {
    const code = "const password = 'hunter2';";
    expect(auditSource(code, undefined)).toMatch(/^\[source withheld: /);
    // Offsets that do not sit between quotes (a child that lies, or a bug) are not trusted.
    expect(auditSource(code, { literals: [], spans: [[0, 5]] })).toMatch(/^\[source withheld: /);
    expect(
      auditSource(code, {
        literals: [],
        spans: [
          [19, 26],
          [18, 20],
        ],
      }),
    ).toMatch(/^\[source withheld: /);
    expect(auditSource(code, { literals: ['hunter2'], spans: [[18, 25]] })).toBe(`const password = '${REDACTED}';`);
  });
});
