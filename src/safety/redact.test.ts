import { describe, expect, it } from 'vitest';
import { isSensitiveKey, REDACTED, redactData, redactInPlace, SecretScrubber } from './redact.js';

describe('redaction', () => {
  it('redacts secret fields everywhere and path-scoped names only under their paths', () => {
    const data = {
      password: 'hunter2!',
      cipassword: 'x',
      'bind-password': 'y',
      CSRFPreventionToken: 'tok',
      ticket: 'PVE:root@pam:...',
      nested: [{ secret: 's', name: 'keep' }],
      value: 'token-uuid',
      key: 'net0',
    };
    const onToken = redactData(data, '/access/users/root@pam/token/mcp') as Record<string, unknown>;
    expect(onToken).toMatchObject({ password: REDACTED, cipassword: REDACTED, 'bind-password': REDACTED, CSRFPreventionToken: REDACTED, ticket: REDACTED, value: REDACTED, key: 'net0' });
    expect(onToken.nested).toEqual([{ secret: REDACTED, name: 'keep' }]);
    const elsewhere = redactData(data, '/nodes/pve1/qemu/101/pending') as Record<string, unknown>;
    expect(elsewhere.value).toBe('token-uuid');
    expect(isSensitiveKey('key', '/nodes/pve1/certificates/custom')).toBe(true);
    expect(isSensitiveKey('tokenid')).toBe(false);
    expect(isSensitiveKey('sshkeys')).toBe(false);
  });

  it('redacts key/value pairs naming a secret option', () => {
    const pending = [
      { key: 'cipassword', value: 'abc', pending: 'def' },
      { key: 'memory', value: '2048' },
    ];
    expect(redactData(pending, '/nodes/pve1/qemu/101/pending')).toEqual([
      { key: 'cipassword', value: REDACTED, pending: REDACTED },
      { key: 'memory', value: '2048' },
    ]);
  });

  it('does not mutate its input and returns null-prototype objects', () => {
    const input = { password: 'p', a: { b: 1 } };
    const out = redactData(input) as Record<string, unknown>;
    expect(input.password).toBe('p');
    expect(Object.getPrototypeOf(out)).toBeNull();
  });

  it('scrubs known secrets in any string, including encoded forms', () => {
    const s = new SecretScrubber(['6f1d2c3b-aaaa-bbbb-cccc-0123456789ab', 'p"w/d&x=1', 'short']);
    const text = 'token=6f1d2c3b-aaaa-bbbb-cccc-0123456789ab and ' + JSON.stringify('p"w/d&x=1') + ' and ' + encodeURIComponent('p"w/d&x=1') + ' short';
    const out = s.scrub(text);
    expect(out).not.toContain('6f1d2c3b');
    expect(out).not.toContain('p\\"w/d');
    expect(out).not.toContain(encodeURIComponent('p"w/d&x=1'));
    expect(out).toContain('short');
    expect(s.scrubDeep({ log: ['secret is 6f1d2c3b-aaaa-bbbb-cccc-0123456789ab'], password: 'stays for key redaction' })).toEqual({
      log: [`secret is ${REDACTED}`],
      password: 'stays for key redaction',
    });
  });
  it('redacts parsed data in place, with the same rules as the copy', () => {
    const scrubber = new SecretScrubber(['6f1d2c3b-aaaa-bbbb-cccc-0123456789ab']);
    const text = JSON.stringify({
      password: 'hunter2!',
      nested: [{ secret: 's', name: 'keep', note: 'uses 6f1d2c3b-aaaa-bbbb-cccc-0123456789ab' }],
      pending: [
        { key: 'cipassword', value: 'abc', pending: 'def' },
        { key: 'memory', value: '2048' },
      ],
      value: 'token-uuid',
      empty: '',
    });
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const copied = redactData(JSON.parse(text), '/access/users/root@pam/token/mcp', scrubber);
    const out = redactInPlace(parsed, '/access/users/root@pam/token/mcp', scrubber);
    expect(out).toBe(parsed);
    expect(out).toEqual(copied);
    expect(parsed.password).toBe(REDACTED);
    expect(JSON.stringify(parsed)).not.toContain('6f1d2c3b');
    expect(parsed.empty).toBe('');
  });

  it('reaches an own __proto__ key of parsed JSON and cuts nesting past the depth limit', () => {
    const scrubber = new SecretScrubber(['s3cr3t-value']);
    const parsed = JSON.parse('{"__proto__": {"password": "x", "note": "s3cr3t-value"}, "list": ["s3cr3t-value"]}') as Record<string, unknown>;
    redactInPlace(parsed, undefined, scrubber);
    expect(JSON.stringify(parsed)).toBe(`{"__proto__":{"password":"${REDACTED}","note":"${REDACTED}"},"list":["${REDACTED}"]}`);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 300; i++) deep = [deep];
    const cut = redactInPlace(deep);
    expect(JSON.stringify(cut)).toContain(REDACTED);
    expect(JSON.stringify(cut)).not.toContain('bottom');
  });
});

describe('text bodies', () => {
  it('redacts secret lines of cloud-init user data, extracted configs and task logs, keeping the rest', async () => {
    const { redactText } = await import('./redact.js');
    const userData = [
      '#cloud-config',
      'user: admin',
      'password: $5$abc$hash',
      'chpasswd:',
      '  expire: False',
      '  list: |',
      '    root:hunter22',
      '    admin:s3cret',
      'ssh_authorized_keys:',
      '  - ssh-ed25519 AAAAC3 me',
    ].join('\n');
    const out = redactText(userData);
    expect(out).toContain('user: admin');
    expect(out).toContain(`password: ${REDACTED}`);
    expect(out).not.toContain('hunter22');
    expect(out).not.toContain('s3cret');
    expect(out).toContain('expire: False');
    expect(out).toContain('ssh-ed25519 AAAAC3 me');
    expect(redactText('name: web\ncipassword: plain\nmemory: 2048')).toBe(`name: web\ncipassword: ${REDACTED}\nmemory: 2048`);
    expect(redactData('bootdisk: scsi0\ncipassword: x1', '/nodes/pve1/vzdump/extractconfig')).toBe(`bootdisk: scsi0\ncipassword: ${REDACTED}`);
    expect(
      redactData(
        [
          { n: 1, t: 'set password=abc123' },
          { n: 2, t: 'TASK OK' },
        ],
        '/nodes/pve1/tasks/UPID:x/log',
      ),
    ).toEqual([
      { n: 1, t: `set password=${REDACTED}` },
      { n: 2, t: 'TASK OK' },
    ]);
    expect(redactText('no secrets: here')).toBe('no secrets: here');
  });
});
