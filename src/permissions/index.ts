/** PVE permission expressions as the policy preflight uses them: evaluated against a token's privileges, described for get_schema. */
export { evaluatePermission } from './evaluate.js';
export type { PermissionEnv, PermissionResult, MissingPrivilege } from './evaluate.js';
export { describePermission } from './describe.js';
export { fillAclPath, normalizeAclPath } from './acl-path.js';
