import { describe, expect, it } from 'vitest';
import { tokenize } from './analyzer.js';
import { readCessation, unknownImperative } from './acts.js';

describe('the act of an ask', () => {
  it('reads ending an activity as removing it, but not stopping guests in a state', () => {
    const base = (w: string) => (w === 'replicating' ? 'replicate' : undefined);
    expect(readCessation(['stop', 'replicating', 'vm', '140'], base)).toEqual({ tokens: ['remove', 'replicate', 'vm', '140'], ceases: true });
    expect(readCessation(['no', 'longer', 'replicate', 'vm', '333'], base)).toEqual({ tokens: ['remove', 'replicate', 'vm', '333'], ceases: true });
    expect(readCessation(['stop', 'running', 'vms'], base)).toEqual({ tokens: ['stop', 'running', 'vms'], ceases: false });
  });

  it('reads an unknown word before an object or an embedded question as a verb', () => {
    const tokens = (text: string) => tokenize(text);
    const known = () => false;
    expect(unknownImperative({ firstContent: 0 }, tokens('obtain the status of ct 200'), known).unknownVerb).toBe(0);
    expect(unknownImperative({ firstContent: 0 }, tokens('determine which node hosts vm 150'), known).questionMethods).toEqual(['GET']);
    expect(unknownImperative({ firstContent: 0 }, tokens('replication status'), known).unknownVerb).toBeUndefined();
    expect(unknownImperative({ firstContent: 0 }, tokens('obtain the status'), () => true).unknownVerb).toBeUndefined();
  });
});
