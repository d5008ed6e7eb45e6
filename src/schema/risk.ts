/**
 * Every operation gets exactly one risk class. Order of decision:
 *   1. the reviewed exception table (risk-exceptions.ts),
 *   2. the first matching rule below (privileged families first, then destructive ones),
 *   3. the method: GET → read, DELETE → destructive, POST/PUT → write.
 * Rules match the path template (`/nodes/{node}/qemu/{vmid}/...`). The meaning of each class and the
 * reasoning behind every rule are in docs/risk-classes.md; keep the two in step.
 */
import type { HttpMethod, OperationKey, RiskClass } from './model.js';
import { EGRESS_OPERATIONS } from './risk-egress.js';
import { RISK_EXCEPTIONS } from './risk-exceptions.js';

export interface RiskRule {
  id: string;
  risk: RiskClass;
  /** Methods the rule applies to; `mutating` = POST, PUT and DELETE. */
  methods: 'any' | 'mutating' | readonly HttpMethod[];
  path: RegExp;
  reason: string;
}

const GUEST = String.raw`/nodes/\{node\}/(?:qemu|lxc)/\{vmid\}`;
const QEMU = String.raw`/nodes/\{node\}/qemu/\{vmid\}`;
const NODE = String.raw`/nodes/\{node\}`;
const re = (source: string) => new RegExp(`^(?:${source})$`);

export const RISK_RULES: readonly RiskRule[] = [
  // --- privileged: code execution, consoles, credentials, host and cluster configuration ---
  {
    id: 'console',
    risk: 'privileged',
    methods: 'any',
    path: re(String.raw`(?:${GUEST}|${NODE})/(?:vncproxy|termproxy|spiceproxy|vncwebsocket|vncshell|spiceshell|mtunnel|mtunnelwebsocket)`),
    reason: 'opens an interactive console, shell or raw tunnel into a guest or the host',
  },
  {
    id: 'guest-agent-control',
    risk: 'privileged',
    methods: ['POST'],
    path: re(String.raw`${QEMU}/agent(?:/exec|/file-write|/set-user-password)?`),
    reason: 'runs commands, writes files or sets passwords inside the guest',
  },
  {
    id: 'guest-raw-input',
    risk: 'privileged',
    methods: ['POST', 'PUT'],
    path: re(String.raw`${QEMU}/(?:monitor|sendkey)`),
    reason: 'QEMU monitor commands and keystrokes bypass every API-level check',
  },
  {
    id: 'resource-mapping',
    risk: 'privileged',
    methods: 'mutating',
    path: re(String.raw`/cluster/mapping/(?:dir|pci|usb)(?:/\{id\})?`),
    reason: "defines which host directories and devices guests may be given: a guest's `mapping=` or `dirid=` then reaches what the mapping names (a directory mapping of `/` shares the host's root)",
  },
  {
    id: 'host-exec',
    risk: 'privileged',
    methods: ['POST'],
    path: re(String.raw`${NODE}/execute`),
    reason: 'executes a batch of arbitrary API calls on the node',
  },
  {
    id: 'node-power',
    risk: 'privileged',
    methods: ['POST'],
    path: re(String.raw`${NODE}/status`),
    reason: 'reboots or shuts down the host with everything on it',
  },
  {
    id: 'host-system',
    risk: 'privileged',
    methods: 'mutating',
    path: re(String.raw`${NODE}/(?:network(?:/.*)?|dns|hosts|time|apt/.*|certificates/.*|subscription|services/.*)`),
    reason: 'changes host OS configuration: network, DNS, /etc/hosts, time zone, packages, TLS certificates, subscription, system services',
  },
  {
    id: 'host-disks',
    risk: 'privileged',
    methods: ['POST'],
    path: re(String.raw`${NODE}/disks/(?:lvm|lvmthin|directory|zfs)`),
    reason: 'formats host disks and can register them as storage',
  },
  {
    id: 'access-control',
    risk: 'privileged',
    methods: 'mutating',
    path: re(String.raw`/access/.*`),
    reason: 'users, groups, roles, ACLs, realms, API tokens, TFA, passwords and tickets',
  },
  {
    id: 'realm-sync-jobs',
    risk: 'privileged',
    methods: 'mutating',
    path: re(String.raw`/cluster/jobs/realm-sync/.*`),
    reason: 'scheduled jobs that create and remove users',
  },
  {
    id: 'cluster-config',
    risk: 'privileged',
    methods: 'mutating',
    path: re(String.raw`/cluster/(?:config(?:/.*)?|options|ha/status/(?:arm|disarm)-ha)`),
    reason: 'cluster membership (create, join, add or remove nodes), datacenter-wide options, HA fencing arm/disarm',
  },
  {
    id: 'storage-definitions',
    risk: 'privileged',
    methods: 'mutating',
    path: re(String.raw`/storage(?:/.*)?`),
    reason: 'storage definitions carry credentials and can expose any host path to guests',
  },
  {
    id: 'host-firewall',
    risk: 'privileged',
    methods: 'mutating',
    path: re(String.raw`(?:/cluster|${NODE})/firewall/.*`),
    reason: 'datacenter and host firewall rules can cut off management access to every node',
  },
  {
    id: 'acme',
    risk: 'privileged',
    methods: 'mutating',
    path: re(String.raw`/cluster/acme/.*`),
    reason: 'ACME accounts and DNS plugins hold credentials and control certificate issuance',
  },
  {
    id: 'ceph-infrastructure',
    risk: 'privileged',
    methods: 'mutating',
    path: re(String.raw`${NODE}/ceph/(?:init|start|stop|restart|osd|mon/\{monid\}|mgr/\{id\}|mds/\{name\})|/cluster/ceph/flags(?:/.*)?`),
    reason: 'creates, stops or removes Ceph daemons and cluster-wide Ceph flags',
  },
  {
    id: 'sdn-apply',
    risk: 'privileged',
    methods: ['PUT'],
    path: re(String.raw`/cluster/sdn`),
    reason: 'applies the pending SDN configuration to the network of every node',
  },
  {
    id: 'remote-migration',
    risk: 'privileged',
    methods: ['POST'],
    path: re(String.raw`${GUEST}/remote_migrate`),
    reason: 'moves the guest and its disks to another cluster, outside every policy of this one',
  },
  {
    id: 'node-contacts-address',
    risk: 'privileged',
    methods: 'any',
    path: re(String.raw`${NODE}/(?:query-url-metadata|query-oci-repo-tags|scan/(?:nfs|cifs|pbs|iscsi)|storage/\{storage\}/(?:download-url|oci-registry-pull))`),
    reason: 'makes the node connect to an address the caller chooses (downloads, lookups, storage scans with credentials)',
  },
  // Notification endpoints and routing, metric servers, SDN IPAM and DNS plugins (risk-egress.ts).
  ...EGRESS_OPERATIONS.map((e): RiskRule => ({ id: e.id, risk: 'privileged', methods: e.methods, path: e.path, reason: e.reason })),
  // --- destructive: loses data or state, or stops guests hard ---
  {
    id: 'ct-reboot',
    risk: 'destructive',
    methods: ['POST'],
    path: re(String.raw`/nodes/\{node\}/lxc/\{vmid\}/status/reboot`),
    reason: 'pve-container reboots a container by a shutdown that kills it when it does not stop within the timeout',
  },
  {
    id: 'ha-relocate',
    risk: 'destructive',
    methods: ['POST'],
    path: re(String.raw`/cluster/ha/resources/\{sid\}/relocate`),
    reason: 'the HA manager shuts the guest down (with forceStop after its timeout) and starts it on the other node',
  },
  {
    id: 'guest-hard-stop',
    risk: 'destructive',
    methods: ['POST'],
    path: re(String.raw`${GUEST}/status/(?:stop|reset)`),
    reason: 'cuts power to the guest like pulling the plug',
  },
  {
    id: 'rollback',
    risk: 'destructive',
    methods: ['POST'],
    path: re(String.raw`/.*/rollback`),
    reason: 'discards the current state in favour of a snapshot or the last applied configuration',
  },
  {
    id: 'disk-wipe',
    risk: 'destructive',
    methods: ['POST', 'PUT'],
    path: re(String.raw`${NODE}/disks/(?:wipedisk|initgpt)`),
    reason: 'erases a disk or its partition table',
  },
];

export const METHOD_DEFAULT_RISK: Readonly<Record<HttpMethod, RiskClass>> = {
  GET: 'read',
  POST: 'write',
  PUT: 'write',
  DELETE: 'destructive',
};

export interface RiskDecision {
  risk: RiskClass;
  /** `exception`, `rule:<id>` or `method`. */
  source: 'exception' | `rule:${string}` | 'method';
  reason: string;
}

export function explainRisk(op: { method: HttpMethod; path: string }): RiskDecision {
  const key: OperationKey = `${op.method} ${op.path}`;
  const exception = RISK_EXCEPTIONS[key];
  if (exception) return { risk: exception.risk, source: 'exception', reason: exception.reason };
  const rule = matchRule(op);
  if (rule) return { risk: rule.risk, source: `rule:${rule.id}`, reason: rule.reason };
  return { risk: METHOD_DEFAULT_RISK[op.method], source: 'method', reason: METHOD_REASON[op.method] };
}

export function classifyRisk(op: { method: HttpMethod; path: string }): RiskClass {
  return explainRisk(op).risk;
}

/** The rule that would decide this operation without the exception table. */
export function matchRule(op: { method: HttpMethod; path: string }): RiskRule | undefined {
  return RISK_RULES.find((rule) => appliesTo(rule, op.method) && rule.path.test(op.path));
}

function appliesTo(rule: RiskRule, method: HttpMethod): boolean {
  if (rule.methods === 'any') return true;
  if (rule.methods === 'mutating') return method !== 'GET';
  return rule.methods.includes(method);
}

const METHOD_REASON: Readonly<Record<HttpMethod, string>> = {
  GET: 'reads state without changing it',
  POST: 'creates or changes something',
  PUT: 'changes something',
  DELETE: 'removes something',
};
