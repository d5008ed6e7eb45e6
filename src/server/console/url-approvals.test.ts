import { describe, expect, it } from 'vitest';
import { UrlApprovals } from './url-approvals.js';

const PLAN = 'a'.repeat(64);

describe('URL-mode approvals', () => {
  it('asks once per plan and principal, names the plan page, and tells only the approved asker', async () => {
    const urls = new UrlApprovals(() => true);
    urls.bind('https://mcp.example.lan');
    const told: string[] = [];
    const notifier = (id: string) => async () => void told.push(id);
    const alice = urls.ask(PLAN, 'alice', notifier);
    expect(alice.url).toBe(`https://mcp.example.lan/console/plans/${PLAN}`);
    expect(urls.ask(PLAN, 'alice', notifier).elicitationId).toBe(alice.elicitationId);
    const bob = urls.ask(PLAN, 'bob', notifier);
    expect(bob.elicitationId).not.toBe(alice.elicitationId);
    expect(urls.waiting(PLAN)).toBe(true);
    expect(await urls.decided(PLAN, 'approved', 'carol', 'alice')).toBe(1);
    expect(told).toEqual([alice.elicitationId]);
    expect(urls.takeDecline(PLAN)).toBeUndefined();
  });

  it('asks only for plans the console can show, once it has an address', () => {
    const urls = new UrlApprovals((id) => id === PLAN);
    expect(urls.canAsk(PLAN)).toBe(false);
    urls.bind('http://127.0.0.1:1');
    expect(urls.canAsk(PLAN)).toBe(true);
    expect(urls.canAsk('b'.repeat(64))).toBe(false);
  });

  it('answers a decline once, to the next run that asks', async () => {
    const urls = new UrlApprovals(() => true);
    urls.bind('http://127.0.0.1:1');
    urls.ask(PLAN, 'alice', () => async () => undefined);
    await urls.decided(PLAN, 'declined', 'alice');
    expect(urls.waiting(PLAN)).toBe(false);
    expect(urls.takeDecline(PLAN)).toEqual({ by: 'alice' });
    expect(urls.takeDecline(PLAN)).toBeUndefined();
  });

  it('opens a new elicitation after the old one expired', () => {
    let now = 0;
    const urls = new UrlApprovals(
      () => true,
      1_000,
      () => now,
    );
    urls.bind('http://127.0.0.1:1');
    const first = urls.ask(PLAN, 'alice', () => async () => undefined);
    now = 1_001;
    expect(urls.ask(PLAN, 'alice', () => async () => undefined).elicitationId).not.toBe(first.elicitationId);
  });
});
