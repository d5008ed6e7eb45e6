/** The slot with stand-in children: what it starts, keeps, replaces and kills. */
import { describe, expect, it } from 'vitest';
import { ChildSlot, type SlotChild } from './child-slot.js';
import { ChildProcessError } from './supervisor.js';

/** A stand-in child: ready when told, killed on demand. */
class FakeChild implements SlotChild {
  isAlive = true;
  uses = 0;
  readonly ready: Promise<void>;
  settle!: (err?: Error) => void;
  constructor(readonly id: number) {
    this.ready = new Promise<void>((resolve, reject) => (this.settle = (err) => (err ? reject(err) : resolve())));
    this.ready.catch(() => undefined);
  }
  kill(): void {
    this.isAlive = false;
  }
}

function fakeSlot(options: { prepare?: (c: FakeChild) => Promise<void>; recycleAfterUses?: number } = {}) {
  const children: FakeChild[] = [];
  const started: (unknown | 'ok')[] = [];
  const slot = new ChildSlot<FakeChild>({
    start: () => {
      const child = new FakeChild(children.length + 1);
      children.push(child);
      return child;
    },
    ...options,
    started: (err) => started.push(err ?? 'ok'),
  });
  return { slot, children, started };
}

describe('ChildSlot', () => {
  it('at once: acquire keeps one child, retire kills it and the next acquire starts another', () => {
    const { slot, children } = fakeSlot({ recycleAfterUses: 2 });
    const first = slot.acquire();
    expect(slot.acquire()).toBe(first);
    first.uses = 1;
    expect(slot.due(first)).toBe(false);
    first.uses = 2;
    expect(slot.due(first)).toBe(true);
    slot.retire();
    expect(first.isAlive).toBe(false);
    expect(slot.current).toBeUndefined();
    const second = slot.acquire();
    expect(second).not.toBe(first);
    expect({ started: slot.started, recycled: slot.recycled }).toEqual({ started: 2, recycled: 1 });
    // A child that died is replaced by the next acquire and forgotten when its exit arrives.
    second.kill();
    const third = slot.acquire();
    expect(slot.drop(second)).toBeUndefined();
    expect(slot.drop(third)).toBe('serving');
    expect(children.map((c) => c.id)).toEqual([1, 2, 3]);
  });

  it('overlapped: the replacement is prepared while the old child serves and takes over once the slot is not busy', async () => {
    const prepared: number[] = [];
    const { slot, children, started } = fakeSlot({ prepare: async (c) => void prepared.push(c.id) });
    const starting = slot.replace();
    children[0]!.settle();
    await starting;
    const first = slot.current!;
    expect(first.id).toBe(1);
    slot.busy = true;
    const replacing = slot.replace();
    expect(slot.replace()).toBe(replacing);
    expect(slot.replacing).toBe(true);
    children[1]!.settle();
    await replacing;
    expect(slot.current).toBe(first);
    slot.busy = false;
    slot.promote();
    expect(slot.current?.id).toBe(2);
    expect(first.isAlive).toBe(false);
    expect(prepared).toEqual([1, 2]);
    expect(started).toEqual(['ok', 'ok']);
    expect({ started: slot.started, recycled: slot.recycled, replacing: slot.replacing }).toEqual({ started: 2, recycled: 1, replacing: false });
  });

  it('a replacement that cannot start or prepare is killed and reported once', async () => {
    const { slot, children, started } = fakeSlot({
      prepare: async () => {
        throw new Error('warm-up failed');
      },
    });
    const attempt = slot.replace();
    children[0]!.settle();
    await expect(attempt).rejects.toThrow('warm-up failed');
    expect(children[0]!.isAlive).toBe(false);
    expect(slot.current).toBeUndefined();
    const again = slot.replace();
    children[1]!.settle(new ChildProcessError('the test child exited (code 1)', 'exit'));
    await expect(again).rejects.toThrow('exited (code 1)');
    expect(started.map((e) => (e instanceof Error ? e.message : e))).toEqual(['warm-up failed', 'the test child exited (code 1)']);
  });

  it('close kills the serving child, the standby and one being started; nothing starts after', async () => {
    const { slot, children, started } = fakeSlot();
    const first = slot.replace();
    children[0]!.settle();
    await first;
    slot.busy = true;
    const second = slot.replace();
    children[1]!.settle();
    await second;
    const third = slot.replace();
    await Promise.resolve();
    slot.close();
    expect(children.map((c) => c.isAlive)).toEqual([false, false, false]);
    children[2]!.settle();
    await third.catch(() => undefined);
    expect(slot.current).toBeUndefined();
    expect(started).toEqual(['ok', 'ok']);
  });
});
