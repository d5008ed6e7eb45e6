import { describe, expect, it } from 'vitest';
import { NeighbourSynonyms, neighboursOf } from './neighbours.js';
import { compileSynonyms } from './synonym-compile.js';

const RULES = compileSynonyms();

describe('word neighbours', () => {
  it('lists the known words nearest to an unknown one, nearest first', () => {
    const near = neighboursOf('suspending');
    expect(near[0]?.[0]).toBe('suspend');
    expect(near[0]?.[1]).toBeGreaterThanOrEqual(0.7);
    expect(neighboursOf('qemu')).toEqual([]);
  });

  it('reads an unknown word through its neighbours, at a discount, with their method', () => {
    const synonyms = new NeighbourSynonyms(RULES, () => false);
    const rule = synonyms.get('suspending')?.[0];
    expect(rule?.tokens).toEqual(['suspending']);
    expect(rule?.methods).toEqual(['POST']);
    const weight = rule?.terms.get('suspend') ?? 0;
    expect(weight).toBeGreaterThan(0.3);
    expect(weight).toBeLessThan(1);
    expect(synonyms.has('suspending')).toBe(true);
  });

  it('leaves words the vocabulary or the schema knows to them', () => {
    const identifiers = new Set(['suspending']);
    const synonyms = new NeighbourSynonyms(RULES, (term) => identifiers.has(term));
    expect(synonyms.get('suspending')).toBeUndefined();
    expect(synonyms.get('suspend')).toBe(RULES.get('suspend'));
    expect(synonyms.get('zzqx')).toBeUndefined();
  });
});
