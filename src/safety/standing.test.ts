import { describe, expect, it } from 'vitest';
import { findStanding, standingVerdict, type StandingApproval, type StandingUse } from './standing.js';

const approval: StandingApproval = {
  id: '0123456789abcdef',
  runbook: 'snapshot-pool',
  contentHash: 'h1',
  args: { pool: { values: ['development'] }, keep: { min: 1, max: 5 } },
  targets: { pools: ['development'] },
  risks: ['write'],
  maxWrites: 10,
  approvedBy: 'alice',
  approvedAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-08T00:00:00.000Z',
  used: { runs: 0, writes: 0 },
};

const use: StandingUse = {
  runbook: 'snapshot-pool',
  contentHash: 'h1',
  cluster: 'lab',
  args: { pool: 'development', keep: 3 },
  writes: [{ seq: 1, risk: 'write', needsApproval: true, targets: [{ vmid: 101, pool: 'development', tags: [] }] }],
  now: new Date('2026-01-02T00:00:00.000Z'),
  runner: 'bob',
  fourEyes: false,
  tainted: false,
};

const reason = (a: Partial<StandingApproval>, u: Partial<StandingUse> = {}): string | undefined => {
  const v = standingVerdict({ ...approval, ...a }, { ...use, ...u });
  return v.covered ? undefined : v.reason.replace(`standing approval ${approval.id}: `, '');
};

describe('standingVerdict', () => {
  it('covers a use inside every bound', () => {
    expect(reason({})).toBeUndefined();
  });

  it('refuses outside each bound, saying which', () => {
    expect(reason({}, { contentHash: 'h2' })).toMatch(/changed since it was approved/);
    expect(reason({}, { now: new Date('2026-01-09T00:00:00.000Z') })).toMatch(/^expired/);
    expect(reason({ revokedAt: '2026-01-01T12:00:00.000Z' })).toMatch(/^revoked/);
    expect(reason({}, { args: { pool: 'production', keep: 3 } })).toBe('argument \'pool\' = "production" is not one of "development"');
    expect(reason({}, { args: { pool: 'development', keep: 9 } })).toBe("argument 'keep' = 9 is outside 1..5");
    expect(reason({}, { writes: [{ seq: 1, risk: 'destructive', needsApproval: true, targets: [] }] })).toBe('write 1 is destructive; it covers write');
    expect(reason({}, { writes: [{ seq: 2, risk: 'write', needsApproval: true, targets: [{ vmid: 7, pool: 'production', tags: [] }] }] })).toBe(
      'write 2: guest 7 is in pool production, not development',
    );
    expect(reason({ used: { runs: 3, writes: 10 } })).toBe('this run plans 1 write(s) and 0 of its 10 remain');
    expect(reason({ cluster: 'prod' })).toBe("is for cluster 'prod'");
  });

  it('counts under four eyes only for another principal than its giver', () => {
    expect(reason({}, { fourEyes: true, runner: 'alice' })).toBe('four eyes: it was given by alice, who is running it');
    expect(reason({}, { fourEyes: true, runner: 'bob' })).toBeUndefined();
  });

  it('does not stand in when the policy asks a person for each write after taint', () => {
    expect(reason({}, { tainted: true })).toMatch(/taint\.writes asks a person/);
  });

  it('findStanding returns the first covering approval, else every reason', () => {
    const other = { ...approval, id: 'fedcba9876543210', targets: { pools: ['production'] } };
    expect(
      findStanding([approval, other], {
        ...use,
        writes: [{ seq: 1, risk: 'write', needsApproval: true, targets: [{ vmid: 7, pool: 'production', tags: [] }] }],
        args: { pool: 'development', keep: 1 },
      }),
    ).toEqual({
      approval: expect.objectContaining({ id: 'fedcba9876543210' }),
    });
    expect('reasons' in findStanding([approval], { ...use, runbook: 'other' })).toBe(true);
  });
});
