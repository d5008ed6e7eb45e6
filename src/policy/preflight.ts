/**
 * Permission preflight: before a script runs, list the operations it references (from the typed
 * SDK calls in its AST) and check each against the policy and against the token's effective
 * privileges, using the schema's `permissions`. Only what is certain from the source is reported
 * as an error; what depends on run-time values is checked again, call by call, by the bridge.
 *
 * Example error: "POST /nodes/pve1/qemu/101/status/start needs VM.PowerMgmt on /vms/101; token
 * has VM.Audit only".
 */
import type { PveClientLike } from '../client/client-like.js';
import { InvalidCallError, resolveRequest } from './request.js';
import { evaluatePermission, type MissingPrivilege } from '../permissions/index.js';
import type { ApiModel, HttpMethod, Operation, OperationKey, RiskClass } from '../schema/model.js';
import type { SdkCall } from '../script/calls.js';
import type { GuestDirectory } from './guests.js';
import type { Policy } from './policy.js';
import { PermissionCache, UNKNOWN_SEGMENT, type TokenPrivileges } from './privileges.js';
import { decideCall } from './decide.js';
import { escalatingParams, paramMatches, rulesFor } from './escalations.js';
import { describeCall, resolveFacts } from './facts.js';

export interface PreflightDeps {
  defaultCluster: string;
  model(cluster: string): ApiModel;
  /** The client a call of this class goes out with: the permission check reads that token's privileges. */
  client(cluster: string, risk?: RiskClass): PveClientLike;
  policy: Policy;
  /** Per-cluster policies (as in the bridge); `policy` when absent. */
  policyFor?(cluster: string): Policy;
  /** Shared across runs (one per server); a fresh one is used when absent. */
  permissions?: PermissionCache;
  guests?: GuestDirectory;
  signal?: AbortSignal;
}

export interface PreflightOperation {
  line: number;
  col: number;
  method: HttpMethod;
  /** The path as written (`{?}` marks run-time values); null when not statically readable. */
  path: string | null;
  cluster: string;
  operation?: OperationKey;
  risk?: RiskClass;
  needsApproval?: boolean;
  /** Path values and params are all known before the run. */
  static: boolean;
}

export type PreflightProblemKind = 'unknown-operation' | 'invalid' | 'denied' | 'privilege' | 'dynamic' | 'permissions-unavailable';

export interface PreflightProblem {
  line: number;
  col: number;
  severity: 'error' | 'warning';
  kind: PreflightProblemKind;
  message: string;
}

export interface PreflightReport {
  /** No errors: nothing certain stands in the way of the script. */
  ok: boolean;
  operations: PreflightOperation[];
  problems: PreflightProblem[];
  /** Some referenced operation needs approval under the policy. */
  needsApproval: boolean;
  /**
   * Some call's operation (or, for a write, its param names) is only known at run time and it
   * might need approval. A GET on a known cluster counts only when some GET of that cluster's
   * schema could need approval under its policy (`getMayNeedApproval`).
   */
  hasDynamicCalls: boolean;
}

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_-]*)\}/g;

export async function preflight(calls: readonly SdkCall[], deps: PreflightDeps): Promise<PreflightReport> {
  const report: PreflightReport = { ok: true, operations: [], problems: [], needsApproval: false, hasDynamicCalls: false };
  const permissions = deps.permissions ?? new PermissionCache();
  const privilegeErrors = new Map<string, string>();

  for (const call of calls) {
    const cluster = call.cluster ?? deps.defaultCluster;
    const at = { line: call.line, col: call.col };
    const entry: PreflightOperation = { ...at, method: call.method, path: call.path, cluster, static: false };
    report.operations.push(entry);
    // What is known only at run time is decided then, by the bridge; the run is planned first
    // (the dry-run probe) only when that decision could be "approval".
    const markDynamic = (): void => {
      if (!report.hasDynamicCalls && !readsOnlyWithoutApproval(call, cluster, deps)) report.hasDynamicCalls = true;
    };
    if (call.path === null || call.clusterUnknown) {
      markDynamic();
      continue;
    }
    let model: ApiModel;
    try {
      model = deps.model(cluster);
      deps.client(cluster);
    } catch (err) {
      report.problems.push({ ...at, severity: 'error', kind: 'invalid', message: `unknown cluster '${cluster}': ${err instanceof Error ? err.message : String(err)}` });
      continue;
    }
    const resolved = resolveStatic(model, call);
    if (resolved.kind === 'error') {
      report.problems.push({ ...at, severity: resolved.certain ? 'error' : 'warning', kind: resolved.certain ? 'unknown-operation' : 'dynamic', message: resolved.message });
      if (!resolved.certain) markDynamic();
      continue;
    }
    const { op, pathValues, concretePath, params } = resolved;
    const policy = deps.policyFor ? deps.policyFor(cluster) : deps.policy;
    const input = { cluster, operation: op, pathValues, params, ...(concretePath ? { concretePath } : {}) };
    // Without a concrete path the targets are not known: decide on the operation and parameters alone.
    const facts = concretePath && deps.guests ? await resolveFacts(input, policy, deps.guests, deps.signal) : describeCall(input);
    const decision = decideCall(facts, policy);
    const risk = facts.risk;
    Object.assign(entry, { operation: op.key, risk, static: resolved.static, needsApproval: decision.outcome === 'approval' });
    if (entry.needsApproval) report.needsApproval = true;
    // Unknown param names or values could raise the risk class (a password makes a call privileged).
    if (call.params === null && op.risk !== 'read') markDynamic();
    const escalating = call.unknownParams.length > 0 ? escalatingParams(op) : [];
    if (call.unknownParams.some((name) => escalating.some((e) => paramMatches(e.param, name) || e.param === name))) markDynamic();
    // Targets known only at run time may meet a target rule that asks for approval.
    if (!resolved.static && op.risk !== 'read' && policy.targetRules.some((r) => r.action === 'approval')) markDynamic();
    const shown = `${call.method} ${concretePath ?? op.path}`;

    if (decision.outcome === 'deny') {
      // Scopes and target rules over values known only at run time are checked again then.
      const certain = resolved.static || /^(?:deny\[|preset|privileged|allow)/.test(decision.rule);
      if (certain && (concretePath || !/^(?:scopes|targets)/.test(decision.rule))) {
        report.problems.push({ ...at, severity: 'error', kind: 'denied', message: decision.message });
        continue;
      }
    }

    if (!op.permissions) continue;
    const client = deps.client(cluster, risk);
    let privs: TokenPrivileges;
    try {
      privs = await permissions.get(cluster, client, deps.signal);
    } catch (err) {
      const key = `unavailable\u0000${cluster}`;
      if (!privilegeErrors.has(key)) {
        privilegeErrors.set(key, '');
        report.problems.push({
          ...at,
          severity: 'warning',
          kind: 'permissions-unavailable',
          message: `could not read the token's permissions on cluster '${cluster}' (${err instanceof Error ? err.message : String(err)}); privileges are checked by Proxmox at run time`,
        });
      }
      continue;
    }
    const result = evaluatePermission(op.permissions, { params: { ...params, ...pathValues }, userid: client.authId ?? '', hasPriv: privs.hasPriv });
    if (!result.ok) {
      report.problems.push({ ...at, severity: 'error', kind: 'privilege', message: `${shown} ${describeMissing(result.missing, privs, result.message)}` });
    }
  }
  report.ok = !report.problems.some((p) => p.severity === 'error');
  return report;
}

/**
 * A GET on a known cluster whose every possible decision is "allow" or "deny", never "approval":
 * then its path, params and targets, whatever they are at run time, cannot make the run need a
 * human, and the run goes live without a dry-run probe (the bridge still decides every call).
 */
function readsOnlyWithoutApproval(call: SdkCall, cluster: string, deps: PreflightDeps): boolean {
  if (call.method !== 'GET' || call.clusterUnknown) return false;
  try {
    return !getMayNeedApproval(deps.model(cluster), deps.policyFor ? deps.policyFor(cluster) : deps.policy);
  } catch {
    return false;
  }
}

/** Per schema: every class a GET of it can have — its own, or one a parameter raises it to. */
const getClassesBySchema = new WeakMap<ApiModel, ReadonlySet<RiskClass>>();

/**
 * Whether some GET operation of the schema could need approval under the policy: one whose class
 * (its own, or any an escalation rule of it can raise it to) is not `read` and is an approval
 * class, or is covered by a target rule with action `approval`, or the session is tainted under
 * `taint.writes: 'approval'` — the cases in which `decideCall` can answer "approval" (step 6 asks
 * only for classes other than `read`, and only for calls steps 1–5 let through). Some GETs are privileged (egress, secrets), so a
 * GET whose path is known only at run time is not read-only by its method alone.
 */
export function getMayNeedApproval(model: ApiModel, policy: Policy): boolean {
  let classes = getClassesBySchema.get(model);
  if (!classes) {
    const found = new Set<RiskClass>();
    for (const op of model.operations) {
      if (op.method !== 'GET') continue;
      found.add(op.risk);
      for (const rule of rulesFor(op)) found.add(rule.risk);
    }
    classes = found;
    getClassesBySchema.set(model, classes);
  }
  for (const risk of classes) {
    if (risk === 'read') continue;
    // A privileged call passes only through an entry of `privileged` (the operation, or the
    // parameter that raises it); without any, every privileged GET is refused, never asked for.
    if (risk === 'privileged' && policy.config.privileged.length === 0) continue;
    if (policy.approvalClasses.has(risk)) return true;
    if (policy.targetRules.some((r) => r.action === 'approval' && r.risk.has(risk))) return true;
    if ((policy.taintedBy?.length ?? 0) > 0) return true;
  }
  return false;
}

type StaticResolution =
  | { kind: 'ok'; op: Operation; pathValues: Record<string, string>; params: Record<string, unknown>; concretePath?: string; static: boolean }
  | { kind: 'error'; certain: boolean; message: string };

/**
 * Resolve what is known: a fully literal call goes through the bridge's own validation
 * (`resolveRequest`), so the preflight and the run agree; a partly dynamic one is matched with
 * its unknown segments as wildcards.
 */
function resolveStatic(model: ApiModel, call: SdkCall): StaticResolution {
  const literal = call.params ?? {};
  const path = call.path as string;
  const placeholders = [...path.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
  const unknown = Object.fromEntries(call.unknownParams.map((name) => [name, UNKNOWN_SEGMENT]));
  const pathKnown = !call.pathIsTemplate && placeholders.every((n) => typeof literal[n] === 'string' || typeof literal[n] === 'number');
  if (pathKnown) {
    try {
      const r = resolveRequest(model, call.method, path, literal);
      return {
        kind: 'ok',
        op: r.operation,
        pathValues: { ...r.pathValues },
        params: { ...unknown, ...r.params },
        concretePath: r.concretePath,
        static: call.paramsComplete,
      };
    } catch (err) {
      if (err instanceof InvalidCallError) return { kind: 'error', certain: true, message: `${call.method} ${path}: ${err.message}` };
      throw err;
    }
  }
  // Substitute what is known; unknown values stay wildcards.
  const known = path.replace(PLACEHOLDER, (m, name: string) => {
    const v = literal[name];
    return typeof v === 'string' || typeof v === 'number' ? encodeURIComponent(String(v)) : m;
  });
  const match = model.matchPath(call.method, known.replaceAll('{?}', '%00'));
  if (!match?.operation) {
    return { kind: 'error', certain: false, message: `${call.method} ${path}: the operation depends on run-time values; it is checked when called` };
  }
  const pathValues: Record<string, string> = {};
  for (const [name, value] of Object.entries(match.pathValues)) {
    pathValues[name] = value === '\u0000' || /^\{.*\}$/.test(value) ? UNKNOWN_SEGMENT : value;
  }
  const params: Record<string, unknown> = { ...unknown, ...literal };
  for (const name of placeholders) delete params[name];
  return { kind: 'ok', op: match.operation, pathValues, params, static: false };
}

function describeMissing(missing: MissingPrivilege[], privs: TokenPrivileges, fallback: string): string {
  if (missing.length === 0) return `is refused by the permission check (${fallback})`;
  const shown = (p: string) => p.replaceAll(UNKNOWN_SEGMENT, '<?>');
  const needs = missing.map((m) => `${m.privs.join(' or ')} on ${shown(m.path)}`);
  const first = missing[0] as MissingPrivilege;
  let tokenHas: string;
  if (first.path.includes(UNKNOWN_SEGMENT)) {
    tokenHas = `the token has ${first.privs.length === 1 ? 'it' : 'them'} on no ${shown(first.path)} path`;
  } else {
    const has = privs.privsAt(first.path);
    tokenHas = has.length > 0 ? `token has ${has.join(', ')} only` : `token has no privileges on ${first.path}`;
  }
  return `needs ${needs.length === 1 ? needs[0] : `one of: ${needs.join('; ')}`}; ${tokenHas}`;
}
