/**
 * Where standing approvals live: `standing-approvals.json` in the state directory, next to the
 * plan approvals, shared by the server and `pve-code-mcp runbook` (or a PostgreSQL table shared by
 * replicas: src/safety/standing-backend.ts). Every change (add, revoke, a use) is made under the
 * backend's lock on what it holds then, so two runs racing for the last writes of a budget cannot
 * both get them.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { FileStandingBackend, type StandingBackend } from './standing-backend.js';
import { findStanding, type StandingApproval, type StandingUse } from './standing.js';

const value = z.union([z.string(), z.number(), z.boolean()]);
const approvalSchema = z
  .object({
    id: z.string().regex(/^[0-9a-f]{16}$/),
    runbook: z.string().min(1),
    contentHash: z.string().min(1),
    cluster: z.string().optional(),
    args: z.record(z.string(), z.object({ values: z.array(value).optional(), min: z.number().optional(), max: z.number().optional() }).strict()),
    targets: z.object({ pools: z.array(z.string()).optional(), tags: z.array(z.string()).optional(), vmids: z.array(z.number().int()).optional() }).strict(),
    risks: z.array(z.enum(['read', 'write', 'destructive', 'privileged'])).min(1),
    maxWrites: z.number().int().nonnegative(),
    maxRuns: z.number().int().positive().optional(),
    approvedBy: z.string().min(1),
    approvedAt: z.string(),
    expiresAt: z.string(),
    used: z.object({ runs: z.number().int().nonnegative(), writes: z.number().int().nonnegative() }).strict(),
    revokedAt: z.string().optional(),
  })
  .strict();
const fileSchema = z.array(approvalSchema);

export class StandingStoreError extends Error {
  override name = 'StandingStoreError';
}

export type NewStanding = Omit<StandingApproval, 'id' | 'used' | 'approvedAt'>;

export class StandingStore {
  readonly backend: StandingBackend;

  /** A state directory (the file backend), or another backend. */
  constructor(store: string | StandingBackend) {
    this.backend = typeof store === 'string' ? new FileStandingBackend(store) : store;
  }

  list(): StandingApproval[] {
    const parsed = fileSchema.safeParse(this.backend.read());
    if (!parsed.success) throw new StandingStoreError(`${this.backend.where} is malformed (${parsed.error.issues[0]?.message ?? 'malformed'}): fix or remove it`);
    return parsed.data as StandingApproval[];
  }

  add(fields: NewStanding, now = new Date()): StandingApproval {
    return this.locked(() => {
      const approval: StandingApproval = { ...fields, id: randomBytes(8).toString('hex'), approvedAt: now.toISOString(), used: { runs: 0, writes: 0 } };
      this.backend.put(approval);
      return approval;
    });
  }

  revoke(id: string, now = new Date()): StandingApproval {
    return this.locked(() => {
      const found = this.list().find((a) => a.id === id);
      if (!found) throw new StandingStoreError(`no standing approval ${id} in ${this.backend.where} (\`pve-code-mcp runbook list\` shows them)`);
      found.revokedAt = now.toISOString();
      this.backend.put(found);
      return found;
    });
  }

  /**
   * The approval that covers this use, charged with it (one run, its writes) in the same locked
   * step; else why none does.
   */
  use(use: StandingUse): { approval: StandingApproval } | { reasons: string[] } {
    return this.locked(() => {
      const found = findStanding(this.list(), use);
      if ('approval' in found) {
        found.approval.used = { runs: found.approval.used.runs + 1, writes: found.approval.used.writes + use.writes.length };
        this.backend.put(found.approval);
      }
      return found;
    });
  }

  private locked<T>(fn: () => T): T {
    return this.backend.locked(fn);
  }
}
