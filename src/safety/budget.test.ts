import { describe, expect, it } from 'vitest';
import { resolveBudgetLimits } from '../policy/budget-limits.js';
import { Budget } from './budget.js';

describe('Budget', () => {
  it('refuses the call past a risk-class limit and keeps counting attempts', () => {
    const b = new Budget(resolveBudgetLimits({ write: 2 }));
    expect(b.chargeRisk('write')).toBeUndefined();
    expect(b.chargeRisk('write')).toBeUndefined();
    const refusal = b.chargeRisk('write');
    expect(refusal?.limit).toBe('write');
    expect(refusal?.message).toMatch(/write budget used up \(2 write calls per run\).*policy\.budget\.write/);
    expect(b.usage().write).toEqual({ used: 3, limit: 2 });
    expect(b.usage().read).toEqual({ used: 0, limit: 500 });
  });

  it('limits all attempts', () => {
    const b = new Budget(resolveBudgetLimits({ calls: 1 }));
    expect(b.chargeAttempt()).toBeUndefined();
    expect(b.chargeAttempt()?.limit).toBe('calls');
  });

  it('charges a resolved call as an attempt and a call of its class, and nothing of the class past the attempts', () => {
    const b = new Budget(resolveBudgetLimits({ calls: 2, write: 1 }));
    expect(b.chargeCall('write')).toBeUndefined();
    expect(b.chargeCall('write')?.limit).toBe('write');
    expect(b.chargeCall('write')?.limit).toBe('calls');
    expect(b.usage().calls).toEqual({ used: 3, limit: 2 });
    expect(b.usage().write).toEqual({ used: 2, limit: 1 });
  });

  it('counts distinct guests and refuses without recording when over', () => {
    const b = new Budget(resolveBudgetLimits({ guests: 2 }));
    expect(b.touchGuests([101, 101])).toBeUndefined();
    expect(b.touchGuests([101])).toBeUndefined();
    expect(b.touchGuests([102, 103])?.limit).toBe('guests');
    expect(b.usage().guests).toEqual({ used: 1, limit: 2 });
    expect(b.touchGuests([102])).toBeUndefined();
  });

  it('tracks task-wait time', () => {
    const b = new Budget(resolveBudgetLimits({ taskWaitMs: 1000 }));
    b.chargeWait(400);
    expect(b.remainingWaitMs()).toBe(600);
    b.chargeWait(700);
    expect(b.remainingWaitMs()).toBe(0);
    expect(b.waitRefusal().limit).toBe('taskWaitMs');
    expect(b.usage().taskWaitMs).toEqual({ used: 1100, limit: 1000 });
  });
});
