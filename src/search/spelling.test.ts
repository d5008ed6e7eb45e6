import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiModel } from '../schema/model.js';
import { startSimulator } from '../simulator/index.js';
import { ApiSearch } from './engine.js';
import { Ranker } from './ranker.js';
import { editDistance, Speller, searchVocabulary } from './spelling.js';

describe('editDistance', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('tsak', 'task', 2)).toBe(1);
    expect(editDistance('snapshto', 'snapshot', 2)).toBe(1);
  });
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('delte', 'delete', 2)).toBe(1);
    expect(editDistance('memmory', 'memory', 2)).toBe(1);
    expect(editDistance('storgae', 'storage', 2)).toBe(1);
    expect(editDistance('cluster', 'clusters', 2)).toBe(1);
    expect(editDistance('node', 'nuke', 2)).toBe(2);
  });
  it('stops early past the limit', () => {
    expect(editDistance('abcdefgh', 'zyxwvuts', 1)).toBeGreaterThan(1);
  });
});

describe('Speller', () => {
  const speller = new Speller(
    new Map([
      ['task', 40],
      ['start', 1_000_000],
      ['restart', 1_000_000],
      ['snapshot', 80],
      ['storage', 90],
      ['stop', 1_000_000],
      ['stat', 3],
      ['file', 20],
    ]),
  );

  it('corrects misspelt verbs and nouns in place, keeping the rest of the request', () => {
    expect(speller.correct('strat vm 101')).toBe('start vm 101');
    expect(speller.correct('Show the TSAK log')).toBe('Show the task log');
    expect(speller.correct('restrat and snapshto vm 7')).toBe('restart and snapshot vm 7');
    expect(speller.correct('stroage usage')).toBe('storage usage');
  });

  it('leaves known words, frequent English words, short words and words with digits alone', () => {
    // "fine" is one edit from "file" but is a word: an operator's "fine" is not a typo.
    expect(speller.correct('restart mode is fine')).toBe('restart mode is fine');
    expect(speller.correct('stuck alice')).toBe('stuck alice');
    expect(speller.correct('stp vm 1')).toBe('stp vm 1');
    expect(speller.correct('strat2 tsak-1 local-tsak strat@pve')).toBe('strat2 tsak-1 local-tsak strat@pve');
  });

  it('does not change the first letter, except as a swap with the second', () => {
    expect(speller.correct('ftart')).toBe('ftart');
    expect(speller.correct('tsart')).toBe('start');
  });

  it('takes the more frequent of two close words and leaves a tie alone', () => {
    const tied = new Speller(
      new Map([
        ['bolt', 5],
        ['boat', 5],
      ]),
    );
    expect(tied.correct('boqt')).toBe('boqt');
    expect(speller.correct('stpo')).toBe('stop');
  });
});

describe('typos on the demo cluster', () => {
  let search: ApiSearch;
  let model: ApiModel;
  beforeAll(async () => {
    const sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0 });
    await sim.close();
    model = sim.model;
    search = new ApiSearch(model);
  });

  it('finds the operation a misspelt request names as the spelt one does', () => {
    for (const [typo, spelt] of [
      ['strat vm 101', 'start vm 101'],
      ['shutdwon container 200', 'shutdown container 200'],
      ['lsit snapshtos of vm 100', 'list snapshots of vm 100'],
      ['delte the pool dev', 'delete the pool dev'],
      ['show the tsak log', 'show the task log'],
    ] as const) {
      expect(search.search(typo, { limit: 1 })[0]?.key, typo).toBe(search.search(spelt, { limit: 1 })[0]?.key);
    }
  });

  it('knows the words of the schema, the phrase rules and the verb table', () => {
    const known = searchVocabulary(new Ranker(model.operations).indexedWords);
    for (const word of ['snapshot', 'qemu', 'vm', 'list', 'shutdown']) expect(known.has(word), word).toBe(true);
  });
});
