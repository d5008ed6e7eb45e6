import { describe, expect, it } from 'vitest';
import { stem, tokenize } from './analyzer.js';
import { findOpening, rejoinSplitActions } from './opening.js';
import { compileSynonyms } from './synonym-compile.js';

const opening = (text: string) => {
  const tokens = tokenize(text);
  return findOpening(tokens, tokens.map(stem));
};

describe('findOpening', () => {
  it('reads "make <thing> <behave>" and an opening "keep" as a change', () => {
    expect(opening('make migrations use the 10.10.10.0/24 network').verb?.rule.methods[0]).toBe('PUT');
    expect(opening('make a new pool').verb?.rule.methods[0]).toBe('POST');
    expect(opening('keep the two database vms on different nodes').verb?.rule.methods[0]).toBe('PUT');
    expect(opening('which backups would a prune with keep daily 7 remove').verb).toBeUndefined();
  });

  it("reads a verb's -s form opening a request as a noun, and after a question word as a verb", () => {
    expect(opening('mounts and network').verb).toBeUndefined();
    expect(opening('updates for pve1').verb).toBeUndefined();
    expect(opening('what deletes a snapshot').verb?.rule.methods[0]).toBe('DELETE');
  });

  it('reads "can you …", "could you …", "would you …" as a request to act, not a question', () => {
    for (const text of ['can you start vm 150', 'could you reboot vm 112', 'would you stop ct 204', 'will you migrate vm 7 to pve2']) {
      expect(opening(text).questionMethods, text).toBeUndefined();
    }
    expect(opening('could you delete snapshot pre').verb?.rule.methods[0]).toBe('DELETE');
  });

  it('reads "can I …" and "could we …" as asking how to act, marking the modal, and keeps them in a question word\'s question', () => {
    for (const text of ['can I suspend every vm on pve4 at once', 'could we shrink the disk of vm 101', 'can i restart pveproxy on pve1']) {
      const read = opening(text);
      expect(read.questionMethods, text).toBeUndefined();
      expect(read.ability, text).toBe(0);
    }
    expect(opening('can I delete snapshot pre').verb?.rule.methods[0]).toBe('DELETE');
    expect(opening('which firewall macros can I use').questionMethods).toEqual(['GET']);
    expect(opening('how can I stop all guests on pve2').ability).toBeUndefined();
  });

  it('keeps "can vm 150 …", "how can you …" and "what can you …" as they were', () => {
    expect(opening('can vm 150 be migrated online').questionMethods).toEqual(['GET']);
    expect(opening('how can you start vm 150').manner).toBe(true);
    const what = opening('what can you tell about vm 7');
    expect(what.questionMethods ?? what.verb?.rule.methods).toEqual(['GET']);
  });

  it('reads what a question says exists as a thing, not an act ("are there updates", "is there any change")', () => {
    for (const text of ['are there updates for pve1', 'is there any change pending on vm 118', 'are there any backups of ct 200']) {
      expect(opening(text).questionMethods, text).toEqual(['GET']);
    }
    expect(opening('update pve1').verb?.rule.methods[0]).not.toBe('GET');
  });

  it('reads "give me …", "get me …", "send me …" as a read', () => {
    for (const text of ['give me the ram usage of every node', 'get me the syslog of pve2', 'send me the task log']) {
      expect(opening(text).verb?.rule.methods, text).toEqual(['GET']);
    }
  });
});

describe('rejoinSplitActions', () => {
  const synonyms = compileSynonyms();
  const rejoin = (text: string) => rejoinSplitActions(tokenize(text), synonyms).join(' ');

  it('puts a two-word action split around its object back together, "on" included', () => {
    expect(rejoin('switch the firewall on for the datacenter')).toBe('switch on the firewall for the datacenter');
    expect(rejoin('shut the host down')).toBe('shut down the host');
    // How it is done may follow the particle.
    expect(rejoin('shut it down gracefully')).toBe('shut down it gracefully');
  });

  it('leaves particles joined by a conjunction to no one action', () => {
    expect(rejoin('a role that can only power guests on and off')).toBe('a role that can only power guests on and off');
  });
});
