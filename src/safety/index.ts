/** Public surface of the safety layer (policy, budgets, preflight, plans, approvals, redaction, sessions). */
export { Policy, type OperationRef, type PolicyDecision, type ScopeSpec } from './policy.js';
export { parsePolicyConfig, PolicyConfigError, PolicyConfigSchema, type PolicyConfig, type PolicyConfigInput } from './policy-config.js';
export { PRESETS, PRESET_NAMES, type PresetName } from './presets.js';
export { Budget, DEFAULT_BUDGET, resolveBudgetLimits, type BudgetLimits, type BudgetUsage } from './budget.js';
export { preflight, type PreflightDeps, type PreflightReport, type PreflightOperation, type PreflightProblem } from './preflight.js';
export { PermissionCache, TokenPrivileges } from './privileges.js';
export { PlanBinding, PlanRecorder, summarizePlan, hashCode, isPlannedUpid, type Plan, type PlannedWrite } from './plan.js';
export {
  ApprovalError,
  ApprovalStore,
  approvePlan,
  approvalNextStep,
  DEFAULT_APPROVAL_TTL_MS,
  type ApprovalRecord,
  type ApprovalRequest,
  type Approver,
  type ElicitationAnswer,
} from './approval.js';
export { IdentityGuard, type GuestIdentity } from './identity.js';
export { GuestDirectory, type GuestInfo } from './guests.js';
export { REDACTED, SecretScrubber, isSensitiveKey, redactData } from './redact.js';
export { RunSession, type Execute, type ExecutePhase, type RunRequest, type SessionDeps, type SessionResult, type ApprovalInfo, type RunStats } from './session.js';
