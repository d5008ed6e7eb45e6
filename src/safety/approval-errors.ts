/** The approvals store's typed errors, shared by the store and its backends (src/safety/approval-backend.ts). */
export type ApprovalErrorCode =
  /** Not 64 hex characters (nor a unique prefix of a stored plan's id). */
  | 'bad-plan-id'
  /** No stored plan with that id in the state directory. */
  | 'no-plan'
  /** The stored plan is unreadable or does not hash to its id. */
  | 'plan-modified'
  /** The plan already ran (through elicitation or an operator approval); approving it again needs `again`. */
  | 'already-run'
  /** `consume` of an approval that another run (maybe in another process) consumed first. */
  | 'already-consumed'
  /** The store's lock could not be taken. */
  | 'store-locked'
  /** The shared store (PostgreSQL) cannot be reached or did not answer in time: retry later. */
  | 'store-unavailable'
  /** A principal tried to approve a plan it asked for itself (an approval needs a second person). */
  | 'self-approval'
  /** The asker's policy wants an approver from a group the approving principal is not in. */
  | 'not-an-approver'
  /** `for` names a principal that never asked for this plan. */
  | 'not-requested'
  /** Several principals asked for this plan and the approval does not say for whom. */
  | 'ambiguous-requester';

export class ApprovalError extends Error {
  constructor(
    message: string,
    readonly code: ApprovalErrorCode = 'no-plan',
  ) {
    super(message);
    this.name = 'ApprovalError';
  }
}
