import { describe, expect, it } from 'vitest';
import { REDACTED } from './redact.js';
import { scrubSecretLiterals, secretLiterals } from './script-secrets.js';

describe('secret literals in a script', () => {
  it('finds literals given to secret-named properties, directly or through a literal variable', () => {
    const code = [
      "const pw = 'hunter2';",
      "const note = 'hello';",
      "await pve.put('/nodes/{node}/qemu/{vmid}/config', { node: 'pve1', vmid: 101, cipassword: \"s3cr3t-1\", description: note });",
      "await pve.post('/access/users', { userid: 'a@pve', password: pw });",
      "const token_secret = `abc-123`;",
    ].join('\n');
    expect(secretLiterals(code).sort()).toEqual(['abc-123', 'hunter2', 's3cr3t-1']);
    const scrubbed = scrubSecretLiterals(code, secretLiterals(code));
    for (const s of ['hunter2', 's3cr3t-1', 'abc-123']) expect(scrubbed).not.toContain(s);
    expect(scrubbed).toContain(`cipassword: "${REDACTED}"`);
    expect(scrubbed).toContain("'hello'");
    expect(scrubbed).toContain("{ node: 'pve1'");
  });

  it('costs nothing for scripts that name no secret key', () => {
    expect(secretLiterals("return await pve.get('/version')")).toEqual([]);
  });
});
