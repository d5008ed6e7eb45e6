/**
 * What the approvals store keeps, as it is checked when read back: a stored plan (its shape; the
 * store also checks that it hashes to its id) and the records (a principal's request of a plan, an
 * operator's approval, a run's consume). Whatever a backend returns passes through these schemas:
 * a record of another shape is skipped, a plan of another shape is refused.
 */
import { z } from 'zod';
import { HTTP_METHODS, RISK_CLASSES } from '../schema/model.js';
import { BlastRadiusSchema } from './blast-radius.js';

export const PLAN_ID = /^[0-9a-f]{64}$/;

const GuestIdentitySchema = z.object({
  vmid: z.number().int(),
  exists: z.boolean(),
  type: z.enum(['qemu', 'lxc']).optional(),
  node: z.string().optional(),
  name: z.string().optional(),
  digest: z.string().optional(),
});

export const PlanSchema = z.object({
  version: z.literal(1),
  planId: z.string().regex(PLAN_ID),
  codeHash: z.string().regex(PLAN_ID),
  policy: z.string(),
  createdAt: z.string(),
  writes: z.array(
    z.object({
      seq: z.number().int().min(1),
      cluster: z.string(),
      method: z.enum(HTTP_METHODS),
      path: z.string(),
      template: z.string(),
      params: z.record(z.string(), z.unknown()),
      risk: z.enum(RISK_CLASSES),
      needsApproval: z.boolean(),
      targets: z.array(GuestIdentitySchema),
      fingerprint: z.string().regex(PLAN_ID),
      upid: z.string().optional(),
      change: z.object({ summary: z.string(), lines: z.array(z.string()) }).optional(),
      blastRadius: BlastRadiusSchema.optional(),
    }),
  ),
  notes: z.array(z.string()).optional(),
});

export const RecordSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('approve'),
    planId: z.string().regex(PLAN_ID),
    codeHash: z.string().regex(PLAN_ID),
    approvedAt: z.string(),
    expiresAt: z.string(),
    approvedBy: z.string(),
    /** Random id of this approval (records from before ids were added have none). */
    id: z.string().optional(),
    /** The principal the approval is for (who asked for the plan); absent for runs without a principal (stdio, CLI). */
    requestedBy: z.string().optional(),
    /** Where it was given: `http` (POST /approvals, approvedBy is a principal), `console` (the web console) or `cli` (approvedBy is the host's OS user). */
    via: z.enum(['http', 'cli', 'console']).optional(),
  }),
  z.object({
    type: z.literal('consume'),
    planId: z.string().regex(PLAN_ID),
    at: z.string(),
    runId: z.string(),
    /** How the run was approved: an operator approval (its id) or the human through elicitation. */
    via: z.enum(['operator', 'elicitation']).optional(),
    approvalId: z.string().optional(),
    /** The principal whose run consumed it; absent for runs without a principal. */
    principal: z.string().optional(),
  }),
  /** A principal asked for a plan (its dry-run stored it): who an approval of it can be for. */
  z.object({
    type: z.literal('request'),
    planId: z.string().regex(PLAN_ID),
    at: z.string(),
    principal: z.string(),
    /** Four eyes: the asker's policy wants another principal (in `group`, when set) to approve. */
    approvers: z.object({ group: z.string().optional() }).optional(),
  }),
]);

export type StoreRecord = z.infer<typeof RecordSchema>;
export type ApprovalRecord = Extract<StoreRecord, { type: 'approve' }>;
export type ConsumeRecord = Extract<StoreRecord, { type: 'consume' }>;
export type RequestRecord = Extract<StoreRecord, { type: 'request' }>;
