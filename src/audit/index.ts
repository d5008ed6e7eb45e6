/** Public surface of the hash-chained audit log. */
export { AuditLog, DEFAULT_AUDIT_MAX_BYTES, type AuditOptions } from './log.js';
export { verifyAudit, formatVerification, type AuditVerification, type AuditProblem, type AuditProblemKind, type VerifyOptions } from './verify.js';
export type { AuditEntry, AuditEntryType } from './entry.js';
