/**
 * The facts a policy decision is made from, resolved once per call before anything is decided:
 * the operation, its risk raised by the concrete parameters (escalations.ts), the targets read
 * from the schema and the values (targets.ts), and what the cluster knows of those targets (the
 * guests' nodes, pools and tags; every guest for calls that address all of them; the node
 * `localhost` stands for). The preflight and the bridge both build facts here and hand them to
 * the same pure `decideCall`, so they cannot disagree.
 */
import { parseUpid } from '../pve/upid.js';
import type { HttpMethod, Operation, RiskClass } from '../schema/model.js';
import { callRisk, guestEscalations, higherRisk, needsContainerPrivilege, type Escalation } from './escalations.js';
import type { GuestDirectory, GuestInfo } from './guests.js';
import type { Policy } from './policy.js';
import { callTargets, type CallTargets } from './targets.js';

export interface GuestFact {
  vmid: number;
  /** `acts-on`: named by the call; `data`: a volume of it is named; `every`: the call addresses every guest in reach. */
  via: 'acts-on' | 'data' | 'every';
  /** What the cluster knows of it; absent for a guest that does not exist (yet) or when not looked up. */
  info?: GuestInfo;
}

export interface CallFacts {
  cluster: string;
  method: HttpMethod;
  template: string;
  concretePath?: string;
  /** The operation's class. */
  baseRisk: RiskClass;
  /** The class of this call: the operation's raised by its escalations. */
  risk: RiskClass;
  escalations: Escalation[];
  targets: CallTargets;
  /** The call's parameters (pool/tags of a guest being created count for pool and tag scopes). */
  params: Readonly<Record<string, unknown>>;
  /** Every guest the call reaches. */
  guests: GuestFact[];
  /** Every node the call reaches: named ones (`localhost` resolved) and the nodes of its guests. */
  nodes: string[];
  /** The call addresses every guest of the cluster, of its nodes or of a pool (`guests` lists those there now). */
  everyGuest: boolean;
  /** Why the targets are not fully known; non-empty means the call is treated as touching everything. */
  unresolved: string[];
  /** Whether `guests` carry what the cluster knows (looked up in the guest directory). */
  lookedUp: boolean;
}

export interface FactsInput {
  cluster: string;
  operation: Operation;
  pathValues: Readonly<Record<string, string>>;
  params: Readonly<Record<string, unknown>>;
  concretePath?: string;
}

const VMID = /^[1-9][0-9]{0,8}$/;

/** What is known from the call alone: no lookups. */
export function describeCall(input: FactsInput): CallFacts {
  const op = input.operation;
  const { risk, escalations } = callRisk(op, input.params);
  let targets = callTargets(op, input.pathValues as Record<string, string>, input.params as Record<string, unknown>);
  // A task's UPID names the guest it works on (`qmstart:100`): reading its status or log is a read of that guest.
  const upid = input.pathValues.upid;
  // parseUpid accepts what PVE accepts: a task ID it refuses names no task PVE would read.
  const taskGuest = upid !== undefined ? parseUpid(upid)?.id : undefined;
  if (taskGuest !== undefined && VMID.test(taskGuest) && !targets.vmids.includes(Number(taskGuest))) {
    targets = { ...targets, vmids: [...targets.vmids, Number(taskGuest)] };
  }
  const guests: GuestFact[] = [...targets.vmids.map((vmid): GuestFact => ({ vmid, via: 'acts-on' })), ...targets.dataOf.map((vmid): GuestFact => ({ vmid, via: 'data' }))];
  return {
    cluster: input.cluster,
    method: op.method,
    template: op.path,
    ...(input.concretePath !== undefined ? { concretePath: input.concretePath } : {}),
    baseRisk: op.risk,
    risk,
    escalations,
    targets,
    params: input.params,
    guests,
    nodes: [...targets.nodes],
    everyGuest: targets.allGuests !== undefined || targets.poolGuests.length > 0,
    unresolved: [...targets.unresolved],
    lookedUp: false,
  };
}

/**
 * Whether deciding this call needs what the cluster knows: writes always (guest budget, node of
 * each guest), reads only when the policy has scopes or target rules and the call reaches guests.
 */
export function needsLookup(facts: CallFacts, policy: Policy): boolean {
  const reaches = facts.guests.length > 0 || facts.everyGuest || facts.nodes.includes('localhost');
  if (!reaches) return false;
  if (facts.risk !== 'read') return true;
  return policy.targetRules.length > 0 || policy.hasGuestScope || policy.scope.nodes !== undefined;
}

/**
 * Complete the facts with the guest directory (cached per run). A failed lookup leaves the targets
 * unresolved, and the escalations it would decide count as raised (an HA-managed guest's shutdown,
 * a flag on a privileged container).
 */
export async function lookUpFacts(facts: CallFacts, directory: GuestDirectory, signal?: AbortSignal): Promise<CallFacts> {
  const out: CallFacts = { ...facts, guests: [...facts.guests], nodes: [...facts.nodes], unresolved: [...facts.unresolved], lookedUp: true };
  let listed = true;
  try {
    if (out.nodes.includes('localhost')) {
      const local = await directory.localNode(facts.cluster, signal);
      out.nodes = out.nodes.filter((n) => n !== 'localhost');
      if (local === undefined) out.unresolved.push("node 'localhost': the cluster does not say which node the connection lands on");
      else if (!out.nodes.includes(local)) out.nodes.push(local);
    }
    const all = await directory.all(facts.cluster, signal);
    const byId = new Map(all.map((g) => [g.vmid, g]));
    out.guests = out.guests.map((g) => {
      const info = byId.get(g.vmid);
      return info ? { ...g, info } : g;
    });
    const t = facts.targets;
    if (facts.everyGuest) {
      const named = new Set(out.guests.map((g) => g.vmid));
      const inReach = (g: GuestInfo): boolean => t.allGuests === 'cluster' || (t.allGuests === 'nodes' && out.nodes.includes(g.node)) || (g.pool !== undefined && t.poolGuests.includes(g.pool));
      for (const g of all) if (!named.has(g.vmid) && inReach(g)) out.guests.push({ vmid: g.vmid, via: 'every', info: g });
    }
    for (const g of out.guests) if (g.info && !out.nodes.includes(g.info.node)) out.nodes.push(g.info.node);
  } catch (err) {
    listed = false;
    out.unresolved.push(`the guest directory could not be read (${err instanceof Error ? err.message : String(err)})`);
  }
  // Escalations the cluster's answers decide; an answer that cannot be had counts as the riskier one.
  let privilegedContainer: boolean | undefined;
  const container = out.guests.find((g) => g.via === 'acts-on');
  if (container && needsContainerPrivilege(facts.method, facts.template, facts.params, facts.escalations)) {
    // A container created in this run is not in the run's listing yet: the path names its node.
    const node = container.info?.node ?? out.nodes[0];
    privilegedContainer = node === undefined ? true : await directory.containerPrivileged(facts.cluster, node, container.vmid, signal).catch(() => true);
  }
  const raised = guestEscalations(facts.method, facts.template, facts.params, {
    guests: listed ? out.guests.map((g) => g.info ?? {}) : undefined,
    ...(privilegedContainer !== undefined ? { privilegedContainer } : {}),
  });
  if (raised.length > 0 && facts.baseRisk !== 'privileged') {
    out.escalations = [...out.escalations, ...raised];
    out.risk = raised.reduce((r, e) => higherRisk(r, e.risk), out.risk);
  }
  return out;
}

/**
 * What is known from the call alone, and whether deciding it under `policy` needs the cluster's
 * knowledge too (`lookUpFacts`): one entry for the bridge, which charges the budget between the
 * two, so a call over its budget looks nothing up.
 */
export function describeFor(input: FactsInput, policy: Policy): { facts: CallFacts; lookup: boolean } {
  const facts = describeCall(input);
  return { facts, lookup: needsLookup(facts, policy) };
}

/** Build the facts of a call, looking up what the policy needs. */
export async function resolveFacts(input: FactsInput, policy: Policy, directory: GuestDirectory | undefined, signal?: AbortSignal): Promise<CallFacts> {
  const { facts, lookup } = describeFor(input, policy);
  if (!directory || !lookup) return facts;
  return lookUpFacts(facts, directory, signal);
}

/** VMIDs a write touches, for the guest budget. */
export function touchedGuests(facts: CallFacts): number[] {
  return [...new Set(facts.guests.map((g) => g.vmid))];
}
