import { describe, expect, it } from 'vitest';
import { formatUpid, parseUpid } from './upid.js';

describe('UPID', () => {
  const parts = { node: 'pve1', pid: 0x3a5f1, pstart: 0x112d3c4, starttime: 0x6650a1b2, type: 'qmstart', id: '100', user: 'root@pam' };

  it('reads 8 hex digits per number and a trailing colon', () => {
    expect(parseUpid('UPID:pve1:0003A5F1:0112D3C4:6650A1B2:qmstart:100:root@pam:')).toEqual(parts);
  });

  it('reads token users and empty ids', () => {
    expect(parseUpid('UPID:pve1:0003A5F1:0112D3C4:6650A1B2:vzdump::admin@pve!ci:')).toEqual({ ...parts, id: '', type: 'vzdump', user: 'admin@pve!ci' });
  });

  it('accepts a 9-digit pstart as PVE does and rejects malformed strings', () => {
    expect(parseUpid('UPID:pve1:0003A5F1:1112D3C4A:6650A1B2:qmstart:100:root@pam:')?.pstart).toBe(0x1112d3c4a);
    expect(parseUpid('UPID:pve1:0003A5F1:0112D3C4:6650A1B2:qmstart:100:root@pam')).toBeUndefined();
    expect(parseUpid('UPID:-bad:0003A5F1:0112D3C4:6650A1B2:qmstart:100:root@pam:')).toBeUndefined();
    expect(parseUpid('not a upid')).toBeUndefined();
  });

  it('writes what it reads', () => {
    const upid = 'UPID:pve1:0003A5F1:0112D3C4:6650A1B2:qmstart:100:root@pam:';
    expect(formatUpid(parts)).toBe(upid);
    expect(parseUpid(formatUpid({ ...parts, pid: 0, pstart: 0, starttime: 1, id: '' }))).toEqual({ ...parts, pid: 0, pstart: 0, starttime: 1, id: '' });
  });
});
