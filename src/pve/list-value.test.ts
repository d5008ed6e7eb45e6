import { describe, expect, it } from 'vitest';
import { listOf } from './list-value.js';

describe('listOf', () => {
  it('splits on commas, semicolons, whitespace and NUL, dropping empty members', () => {
    expect(listOf('net1,ide2; serial0\tusb0\u0000scsi1,,')).toEqual(['net1', 'ide2', 'serial0', 'usb0', 'scsi1']);
    expect(listOf('')).toEqual([]);
  });

  it('reads arrays item by item and numbers as text; anything else has no members', () => {
    expect(listOf(['100,101', 102, ['103']])).toEqual(['100', '101', '102', '103']);
    expect(listOf(undefined)).toEqual([]);
    expect(listOf(true)).toEqual([]);
    expect(listOf({ vmid: 100 })).toEqual([]);
  });
});
