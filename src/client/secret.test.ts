import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Secret } from './secret.js';

describe('Secret', () => {
  it('reveals its value only through reveal()', () => {
    const s = new Secret('hunter2-uuid');
    expect(s.reveal()).toBe('hunter2-uuid');
    expect(String(s)).not.toContain('hunter2');
    expect(`${s}`).not.toContain('hunter2');
    expect(JSON.stringify({ s })).not.toContain('hunter2');
    expect(inspect({ nested: { s } }, { depth: 10, showHidden: true })).not.toContain('hunter2');
  });
});
