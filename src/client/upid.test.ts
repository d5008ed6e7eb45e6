import { describe, expect, it } from 'vitest';
import { PveInputError } from './errors.js';
import { parseUpid } from './upid.js';

describe('parseUpid', () => {
  it('decodes node, hex fields, type, id and a token user', () => {
    const u = parseUpid('UPID:pve-2:0003A5F1:0112D3C4:6650A1B2:qmstart:100:root@pam!mcp:');
    expect(u).toMatchObject({ node: 'pve-2', pid: 0x3a5f1, pstart: 0x112d3c4, starttime: 0x6650a1b2, type: 'qmstart', id: '100', user: 'root@pam!mcp' });
  });

  it('accepts an empty id and a 9-digit pstart', () => {
    expect(parseUpid('UPID:node:0017C594:10ADB2769:63EC5455:imgcopy::root@pam:').id).toBe('');
  });

  it('rejects strings that are not UPIDs, naming the expected shape', () => {
    expect(() => parseUpid('UPID:pve1:1:2:3:qmstart:100:root@pam')).toThrow(PveInputError);
    expect(() => parseUpid('nope')).toThrow(/UPID:<node>/);
  });
});
