export { evaluatePermission } from './evaluate.js';
export type { PermissionEnv, PermissionResult, MissingPrivilege } from './evaluate.js';
export { describePermission } from './describe.js';
export { fillAclPath, normalizeAclPath, aclPathChain } from './acl-path.js';
