import { describe, expect, it } from 'vitest';
import { stem, tokenize } from './analyzer.js';
import { findAsk, splitParts } from './ask.js';
import { dropMetaWords } from './intent.js';
import { verbRule } from './verbs.js';

/** The ask of a request tokenized per punctuated part, its words for the API dropped, as parseQuery does. */
function ask(text: string) {
  const tokens: string[] = [];
  const ends: number[] = [];
  for (const part of splitParts(text)) {
    tokens.push(...dropMetaWords(tokenize(part), (w) => verbRule(w, stem(w)) !== undefined));
    ends.push(tokens.length);
  }
  const found = findAsk(tokens, tokens.map(stem), ends);
  const words = (positions: Iterable<number>) => [...positions].map((i) => tokens[i]);
  return { ...found, tokens, contextWords: words(found.context), verb: found.opening.verb ? tokens[found.opening.verb.position] : undefined };
}

describe('the ask of a request', () => {
  it('cuts parts at punctuation, a colon or a dash between words, but not inside an ID or a time', () => {
    expect(splitParts('snapshots of 101 — delete')).toEqual(['snapshots of 101', 'delete']);
    expect(splitParts('acme: sign up, now')).toEqual(['acme', 'sign up', 'now']);
    expect(splitParts('osd.12 on vm:101 at 02:30')).toEqual(['osd.12 on vm:101 at 02:30']);
  });

  it('reads what a statement tells as context, and the clause after it as the ask', () => {
    const found = ask('vm 171 is wedged, yank the power');
    expect(found.contextWords).toEqual(['vm', '171', 'is', 'wedged']);
    expect(found.tokens[found.start]).toBe('yank');
  });

  it('reads a "so" that leads to an imperative as the ask, and one that leads to a statement as a reason', () => {
    const found = ask('we just had a scare with a failed disk, so set up a nightly backup of all guests');
    expect(found.opening.verb?.rule.methods[0]).toBe('POST');
    expect(found.contextWords).toContain('scare');
    expect(found.contextWords).not.toContain('backup');
    const reason = ask('freeze the disks of vm 130, so I can snapshot it');
    expect(reason.contextWords).toContain('snapshot');
  });

  it('reads a later question as the ask, and a wish before it as its purpose', () => {
    const found = ask('we are running out of space on local-zfs, which volumes are the biggest');
    expect(found.opening.questionMethods).toEqual(['GET']);
    expect(found.contextWords).toContain('space');
    const wish = ask('I need to take pve2 down for maintenance, how do I move the guests off first');
    expect(wish.opening.manner).toBe(true);
    expect(wish.contextWords).toContain('maintenance');
  });

  it('keeps the subject of the last statement when the ask points back at it with a pronoun', () => {
    expect(ask('the gitlab token leaked, kill it').contextWords).toEqual(['leaked']);
    expect(ask('the gitlab token leaked, kill the session').contextWords).toEqual(['the', 'gitlab', 'token', 'leaked']);
  });

  it('reads a reason that opens the request, and a "so" that leads to a wish, and a subject that has something', () => {
    expect(ask('after the kernel update pve3 hangs, show the syslog').contextWords).toContain('kernel');
    expect(ask('after the kernel update show the syslog').context.size).toBe(0);
    expect(ask("we move to a new nas, so first I'd like to see the vms").contextWords).not.toContain('see');
    expect(ask('I have a container 210 for ci, what is its cpu usage').contextWords).toContain('ci');
  });

  it('says when the ask is written as bare keywords', () => {
    expect(ask('user token revoke bob').keywords).toBe(true);
    expect(ask('revoke the token of bob').keywords).toBe(false);
  });

  it('does not take a pronoun that is a subject for one that points back', () => {
    expect(ask("someone deleted a vm yesterday, I'd like to know who it was").contextWords).toContain('deleted');
  });

  it('keeps a wish as the ask when the question after it names nothing', () => {
    const found = ask("I need to give vm 310 two more gigs of ram, what's the call?");
    expect(found.verb).toBe('give');
    expect(found.context.size).toBe(0);
  });

  it('reads a clause that says why or when as context', () => {
    expect(ask('quiesce vm 160 filesystem before a storage snapshot').contextWords).toEqual(['before', 'a', 'storage', 'snapshot']);
  });

  it('finds a generic verb after the object in a keyword request, not in prose', () => {
    expect(ask('sdn vnet create').verb).toBe('create');
    expect(ask('vm cpu type change 103').verb).toBe('change');
    expect(ask('show the vnet list').verb).toBe('show');
    expect(ask('the vnet list').verb).toBeUndefined();
  });

  it('reads a thing and how it ought to be as a change of it', () => {
    const found = ask('pve2 should resolve via 1.1.1.1');
    expect(found.opening.verb?.rule.methods).toEqual(['PUT', 'POST']);
    expect(ask('ct 400 should remove be ha managed').verb).toBe('remove');
  });

  it('reads a question about a way to act as asking how to act', () => {
    for (const q of ['is there a way to clone ct 200', "what's the best way to delete vm 120", 'is it possible to resize the disk']) {
      const found = ask(q);
      expect(found.opening.manner, q).toBe(true);
      expect(found.opening.questionMethods, q).toBeUndefined();
    }
    expect(ask('is it safe to delete vm 101').opening.questionMethods).toEqual(['GET']);
  });

  it("reads the operator's effort as a wish, not as the act", () => {
    expect(ask("I'm trying to add a user to the admins group").verb).toBe('add');
    expect(ask('help me create a backup job').verb).toBe('create');
  });

  it('reads greetings and fillers as nothing, and a wish after "so basically I just"', () => {
    const found = ask('hey there! pls delete the snapshot, cheers');
    expect(found.verb).toBe('delete');
    expect(ask('ok so basically I just want to see the storage').contextWords).toEqual([]);
  });

  it('reads an action word opening a clause that tells nothing as the ask, and a condition before a comma as context', () => {
    const isAct = (w: string) => w === 'start';
    const tokens = ['is', 'vm', '101', 'running', 'if', 'not', 'start', 'it'];
    const found = findAsk(tokens, tokens.map(stem), [4, 6, 8], isAct);
    expect(found.start).toBe(6);
    expect(found.opening.firstContent).toBe(6);
    const told = ['restart', 'mode', 'is', 'fine'];
    expect(findAsk(told, told.map(stem), [4], isAct).clauses[0]?.role).toBe('context');
    const condition = ['if', 'vm', '101', 'is', 'stopped', 'start', 'it'];
    expect(findAsk(condition, condition.map(stem), [5, 7], isAct).clauses[0]).toMatchObject({ role: 'context', reason: true });
  });

  it('reads a question before another ask as its context', () => {
    const tokens = ['is', 'vm', '101', 'running', 'start', 'it'];
    expect(findAsk(tokens, tokens.map(stem), [4, 6], (w) => w === 'start').clauses[0]?.role).toBe('context');
  });

  it("reads a third party's wish as the ask, and what that party wants as its object", () => {
    const found = ask('our CFO wants a backup of vm 160 before quarter close');
    expect(found.tokens[found.start]).toBe('a');
    expect(found.clauses[0]?.wish).toBe(true);
    // Wanting a thing, no act named, asks for it to be given.
    expect(ask('vnet app needs a gateway and a dhcp range').opening.verb?.rule.methods).toEqual(['PUT', 'POST']);
    // Not a passive ("needs to be stopped"), not the needs of something.
    expect(ask('vm 101 needs to be stopped').clauses[0]?.wish).toBe(false);
    expect(ask('the needs of the team').clauses[0]?.wish).toBe(false);
  });

  it('reads "before that" with a subject after it as a time of the clause, not a reason of its own', () => {
    const found = ask("we're moving racks on friday so before that I need to power down pve2");
    expect(found.contextWords).toContain('racks');
    expect(found.contextWords).not.toContain('power');
  });

  it('reads a form of "be" before a place, its subject left out, as context', () => {
    const found = ask('please restore for me the container 204 from yesterday backup, is on storage nas');
    expect(found.opening.questionMethods).toBeUndefined();
    expect(found.contextWords).toEqual(['is', 'on', 'storage', 'nas']);
  });

  it('reads the guests a statement names as context when the ask names its own node', () => {
    const found = ask('power down pve2 cleanly (guests already migrated)');
    expect(found.scoped).toBe(false);
    const named = ask('power down node cleanly (guests already migrated)');
    expect(named.scoped).toBe(true);
    expect(named.contextWords).toContain('guests');
  });

  it("reads irregular pasts, a third person's present and a fragment between statements as context", () => {
    const found = ask('the apt upgrade inside container 204 broke everything, show the task log');
    expect(found.contextWords).toContain('upgrade');
    const story = ask('vm 140 is frozen, console black, acpi does nothing. force it off');
    expect(story.contextWords).toEqual(expect.arrayContaining(['console', 'black']));
  });

  it('reads a wish after its topic as the ask ("dns server of pve1 i want change …"), not after a question word', () => {
    expect(ask('dns server of node i want change to 1.1.1.1').opening.verb?.rule.methods[0]).toBe('PUT');
    expect(ask('what do I need to join a new node').clauses).toHaveLength(1);
  });
});
