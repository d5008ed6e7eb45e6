import { describe, expect, it } from 'vitest';
import { tokenize } from './analyzer.js';
import { negatedImperative, readCessation, readPassive, readResult, unknownImperative, wantedState, wishedResult } from './acts.js';

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

  it('reads a passive after a modal of obligation as the act its participle names', () => {
    const isAct = (w: string) => ['delete', 'stop', 'restart'].includes(w);
    expect(readPassive(tokenize('the snapshot should be deleted'), isAct)).toEqual(['the', 'snapshot', 'should', 'be', 'delete']);
    expect(readPassive(tokenize('vm 101 needs to be stopped'), isAct)).toEqual(['vm', '101', 'should', 'be', 'stop']);
    expect(readPassive(tokenize('ct 200 has to be restarted now'), isAct)).toEqual(['ct', '200', 'should', 'be', 'restart', 'now']);
    expect(readPassive(tokenize('the vm has to boot'), isAct)).toEqual(['the', 'vm', 'has', 'to', 'boot']);
    expect(readPassive(tokenize('it should be faster'), isAct)).toEqual(['it', 'should', 'be', 'faster']);
  });

  it('reads a thing and how it ought to be as its act: a generic verb, an action word, or else a change', () => {
    const isAct = (w: string) => w === 'stop';
    const at = (text: string) => wantedState({ firstContent: 0 }, tokenize(text), 0, tokenize(text).length, isAct);
    expect(at('snapshot should delete').verb?.rule.methods).toEqual(['DELETE']);
    expect(at('vm should be stop')).toEqual({ firstContent: 3 });
    expect(at('vm should stop').verb?.rule.methods).toEqual(['PUT', 'POST']);
    expect(at('node should resolve via dns').verb?.rule.methods).toEqual(['PUT', 'POST']);
  });

  it('reads a wish whose object ends with a participle as asking for its act', () => {
    const isAct = (w: string) => ['delete', 'restart'].includes(w);
    expect(readResult(tokenize('I need these snapshots deleted'), isAct)).toEqual(['i', 'need', 'these', 'snapshots', 'delete']);
    expect(readResult(tokenize('we want ct 200 restarted before noon'), isAct)).toEqual(['we', 'want', 'ct', '200', 'restart', 'before', 'noon']);
    expect(readResult(tokenize('show what changed'), isAct)).toEqual(['show', 'what', 'changed']);
    expect(readResult(tokenize('I want to know which vms are deleted'), isAct)).toEqual(['i', 'want', 'to', 'know', 'which', 'vms', 'are', 'deleted']);
    expect(readResult(tokenize('I want these isos deleted from local'), isAct)).toEqual(['i', 'want', 'these', 'isos', 'delete', 'from', 'local']);
    const wish = tokenize('i need these snapshots delete');
    expect(wishedResult({ firstContent: 3 }, wish, 0, wish.length, isAct).verb?.rule.methods).toEqual(['DELETE']);
    const restart = tokenize('we want ct 200 restart');
    expect(wishedResult({ firstContent: 2 }, restart, 0, restart.length, isAct)).toEqual({ firstContent: 4 });
  });

  it('reads a negated imperative as a change, whatever verb follows', () => {
    const methods = (text: string) => negatedImperative({ firstContent: 2 }, tokenize(text), 0).verb?.rule.methods;
    expect(methods("don't let vm 101 start on boot")).toEqual(['PUT', 'POST']);
    expect(methods('never start ct 200 automatically')).toEqual(['PUT', 'POST']);
    expect(methods('start ct 200')).toBeUndefined();
  });
});
