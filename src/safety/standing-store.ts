/**
 * Where standing approvals live: `standing-approvals.json` in the state directory, next to the
 * plan approvals, shared by the server and `pve-code-mcp runbook`. Every change (add, revoke, a
 * use) is made under the store's inter-process lock on what the file holds then, so two runs
 * racing for the last writes of a budget cannot both get them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { withFileLock } from '../files/lock.js';
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
  constructor(readonly dir: string) {}

  get file(): string {
    return join(this.dir, 'standing-approvals.json');
  }

  list(): StandingApproval[] {
    if (!existsSync(this.file)) return [];
    const parsed = fileSchema.safeParse(JSON.parse(readFileSync(this.file, 'utf8')));
    if (!parsed.success) throw new StandingStoreError(`${this.file} is malformed (${parsed.error.issues[0]?.message ?? 'malformed'}): fix or remove it`);
    return parsed.data as StandingApproval[];
  }

  add(fields: NewStanding, now = new Date()): StandingApproval {
    return this.locked(() => {
      const approval: StandingApproval = { ...fields, id: randomBytes(8).toString('hex'), approvedAt: now.toISOString(), used: { runs: 0, writes: 0 } };
      this.write([...this.list(), approval]);
      return approval;
    });
  }

  revoke(id: string, now = new Date()): StandingApproval {
    return this.locked(() => {
      const all = this.list();
      const found = all.find((a) => a.id === id);
      if (!found) throw new StandingStoreError(`no standing approval ${id} in ${this.file} (\`pve-code-mcp runbook list\` shows them)`);
      found.revokedAt = now.toISOString();
      this.write(all);
      return found;
    });
  }

  /**
   * The approval that covers this use, charged with it (one run, its writes) in the same locked
   * step; else why none does.
   */
  use(use: StandingUse): { approval: StandingApproval } | { reasons: string[] } {
    return this.locked(() => {
      const all = this.list();
      const found = findStanding(all, use);
      if ('approval' in found) {
        found.approval.used = { runs: found.approval.used.runs + 1, writes: found.approval.used.writes + use.writes.length };
        this.write(all);
      }
      return found;
    });
  }

  private locked<T>(fn: () => T): T {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return withFileLock(this.file, fn);
  }

  private write(all: StandingApproval[]): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
