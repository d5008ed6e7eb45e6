/**
 * `startSimulator`: a stateful HTTPS stand-in for a PVE cluster on loopback, for end-to-end tests,
 * benchmarks and the demo. It composes the simulated cluster's endpoints with the access-control
 * endpoints, serves its own schema (or an official one it then validates against), and exposes
 * an admin surface for tests: users, tokens, ACLs, faults, counters.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { loadSchemaFromFile, loadSchemaFromString } from '../schema/loader.js';
import type { ApiModel, Operation } from '../schema/model.js';
import { createCluster, type SimCluster } from './cluster/index.js';
import { unknownNode } from './cluster/errors.js';
import type { SimEndpoint } from './contract.js';
import { Authenticator, type AuthFailureStyle } from './access/authenticate.js';
import { AccessStore, newUser, type AclSubjectType, type ApiToken, type User } from './access/store.js';
import { generateSigningKeys, TicketAuthority } from './access/tickets.js';
import { seedDemoAccounts } from './access/demo-accounts.js';
import { accessFamilyEndpoints } from './families.js';
import { FaultController, faultSpecSchema, type FaultSpec } from './faults.js';
import { renderApidoc } from './own-schema.js';
import { applyScenarios, loadScenarioFile, normalizeScenario, ScenarioError, type Scenario, type ScenarioInput } from './scenarios.js';
import { tlsIdentity } from './server/certificate.js';
import { RequestCounters } from './server/counters.js';
import { listen } from './server/listener.js';
import { createRequestHandler, type PipelineSettings } from './server/pipeline.js';
import { StaticFiles } from './server/static-files.js';
import { validateValue } from './validate.js';
import { DEFAULT_PVE_VERSION, KNOWN_PVE_VERSIONS, pveRelease } from './versions.js';

export const startOptionsSchema = z.object({
  /** Cluster preset: `demo` (default), `small`, `scale-<N>`. */
  preset: z.string().min(1).optional(),
  seed: z.number().int().optional(),
  /** 0 (default) picks a free port. */
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().min(1).optional(),
  /** An official apidoc file to serve and validate against instead of the simulator's own schema. */
  schemaFile: z.string().min(1).optional(),
  /** Ticket lifetime in seconds (PVE: 7200). */
  ticketLifetimeSec: z.number().int().min(1).optional(),
  /** Delay of 401 answers in ms (PVE: 3000, the default; tests set 0). */
  authFailureDelayMs: z.number().int().min(0).optional(),
  /**
   * The PVE release to be (`/version`, node versions, version-dependent texts); default
   * `DEFAULT_PVE_VERSION`, a current 9.1. See versions.ts.
   */
  pveVersion: z.enum(KNOWN_PVE_VERSIONS as [string, ...string[]]).optional(),
  /** Reason text for bad credentials: `modern` (PVE ≥ 9.1.5 / 8.4.17) or `legacy`; default: what `pveVersion` says. */
  authFailureStyle: z.enum(['modern', 'legacy']).optional(),
  faults: faultSpecSchema.optional(),
  /** PEM certificate and key; a self-signed pair is generated when absent. */
  cert: z.object({ cert: z.string().min(1), key: z.string().min(1) }).optional(),
  /** root@pam's password (random when absent). */
  rootPassword: z.string().min(1).optional(),
  /** Worker task duration in ms (cluster default when absent). */
  taskDurationMs: z.number().min(0).optional(),
  /** Epoch-ms clock shared by cluster, tickets and accounts (tests step time with it). */
  clock: z.custom<() => number>((v) => typeof v === 'function').optional(),
  /** Check every handler result against the loaded schema's declared return type. */
  checkResponses: z.boolean().optional(),
  /** Fault scenarios (`offline-node:pve2`, `{kind: 'slow', ms: 200}`…), see docs/simulator.md. */
  scenarios: z.array(z.custom<ScenarioInput>((v) => typeof v === 'string' || (typeof v === 'object' && v !== null), 'a scenario text or object')).optional(),
  /** A JSON file `{"scenarios": [...]}` applied after `scenarios`. */
  scenarioFile: z.string().min(1).optional(),
});
export type StartSimulatorOptions = z.input<typeof startOptionsSchema>;

export interface ResponseProblem {
  operation: string;
  problems: string[];
}

export interface AddUserOptions {
  password?: string;
  groups?: string[];
  enable?: boolean;
  /** Epoch seconds, 0 = never. */
  expire?: number;
  comment?: string;
  /** Base32 TOTP secret: the user then logs in with a second factor. */
  totpSecret?: string;
  recoveryCodes?: string[];
}

export interface AddTokenOptions {
  privsep?: boolean;
  expire?: number;
  comment?: string;
  /** Fixed secret (default: a random UUID). */
  secret?: string;
}

export interface AclGrant {
  path: string;
  roles: string[];
  users?: string[];
  groups?: string[];
  tokens?: string[];
  propagate?: boolean;
}

/** Test-side administration of users, groups, roles, tokens and ACLs (no HTTP, no permission checks). */
export interface AccessAdmin {
  readonly store: AccessStore;
  addUser(userid: string, opts?: AddUserOptions): User;
  addGroup(groupid: string, members?: string[]): void;
  addRole(roleid: string, privs: string[]): void;
  addToken(userid: string, tokenName: string, opts?: AddTokenOptions): { tokenid: string; secret: string; header: string };
  grant(acl: AclGrant): void;
  revoke(acl: AclGrant): void;
  /** Issue a ticket + CSRF token without an HTTP login. */
  ticketFor(userid: string): { ticket: string; CSRFPreventionToken: string };
}

export interface RunningSimulator {
  /** `https://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** SHA-256 of the certificate, `AB:CD:…` as the PVE GUI shows it. */
  fingerprint: string;
  /** The certificate PEM (for CA pinning in clients). */
  certificate: string;
  /** A non-privilege-separated token of root@pam. */
  token: { id: string; secret: string; header: string };
  rootPassword: string;
  /** The schema served and validated against. */
  model: ApiModel;
  /** `simulator` (own schema) or `file` (an official schema given with `schemaFile`). */
  schemaKind: 'simulator' | 'file';
  apidocText: string;
  /** `METHOD template` of every operation with a handler. */
  implemented: string[];
  cluster: SimCluster;
  faults: FaultController;
  counters: RequestCounters;
  access: AccessAdmin;
  /** Mutable at run time: 401 delay. */
  settings: PipelineSettings;
  /** Handler results that did not match their declared return schema (with `checkResponses`), and handler crashes. */
  responseProblems: ResponseProblem[];
  /** The fault scenarios applied at start (from `scenarios` and `scenarioFile`). */
  scenarios: Scenario[];
  /** The PVE release the simulator reports (`pveVersion`). */
  pveVersion: string;
  /** Reason text style for bad credentials, changeable at run time. */
  setAuthFailureStyle(style: AuthFailureStyle): void;
  close(): Promise<void>;
}

export class SimulatorStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SimulatorStartError';
  }
}

export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const parsed = startOptionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new SimulatorStartError(`Invalid simulator options: ${z.prettifyError(parsed.error)}`);
  }
  const opts = parsed.data;
  const clock = opts.clock ?? Date.now;
  const clockSec = () => Math.floor(clock() / 1000);

  // Key generation runs in the thread pool: start it before the (synchronous) cluster generation.
  const keysReady = Promise.all([generateSigningKeys(), tlsIdentity(opts.cert)]);
  keysReady.catch(() => undefined);
  let cluster: SimCluster;
  try {
    cluster = createCluster({
      preset: opts.preset ?? 'demo',
      clock,
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      ...(opts.taskDurationMs !== undefined ? { taskDurationMs: opts.taskDurationMs } : {}),
    });
  } catch (error) {
    throw new SimulatorStartError(`Cannot build the simulated cluster: ${(error as Error).message}`, { cause: error });
  }

  // The release the cluster claims to run; its version-dependent texts follow unless overridden.
  const release = pveRelease(opts.pveVersion ?? DEFAULT_PVE_VERSION);
  Object.assign(cluster.state.version, { version: release.version, release: release.release, repoid: release.repoid });
  for (const n of cluster.state.nodes.values()) n.kernel = release.kernel;

  const store = new AccessStore(clockSec);
  store.poolsFor = (path) => cluster.poolsFor(path);
  const rootPassword = opts.rootPassword ?? randomBytes(9).toString('base64url');
  (store.user('root@pam') as User).password = rootPassword;
  if (cluster.preset === 'demo') seedDemoAccounts(store);
  let keys: Awaited<ReturnType<typeof generateSigningKeys>>;
  let tls: Awaited<ReturnType<typeof tlsIdentity>>;
  try {
    [keys, tls] = await keysReady;
  } catch (error) {
    throw new SimulatorStartError(`Cannot set up TLS and ticket keys: ${(error as Error).message}`, { cause: error });
  }
  const tickets = new TicketAuthority(keys, opts.ticketLifetimeSec ?? 7200, clockSec);
  const authenticator = new Authenticator(store, tickets, opts.authFailureStyle ?? release.authFailureStyle);

  const endpoints: SimEndpoint[] = [...cluster.endpoints(), ...accessFamilyEndpoints({ store, tickets, clusterName: () => cluster.clusterName })];
  const ownApidoc = renderApidoc(endpoints);
  let apidocText = ownApidoc;
  let model: ApiModel;
  try {
    if (opts.schemaFile) {
      model = await loadSchemaFromFile(opts.schemaFile);
      apidocText = await readFile(opts.schemaFile, 'utf8');
    } else {
      model = loadSchemaFromString(ownApidoc, { kind: 'simulator' });
    }
  } catch (error) {
    throw new SimulatorStartError(`Cannot load the simulator's schema: ${(error as Error).message}`, { cause: error });
  }
  const byKey = new Map(endpoints.map((e) => [`${e.method} ${e.path}`, e]));

  let faults: FaultController;
  try {
    faults = new FaultController(
      opts.seed ?? cluster.seed,
      { setNodeOnline: (node, online) => cluster.setNodeOnline(node, online), expireTickets: () => tickets.rotate() },
      opts.faults as FaultSpec | undefined,
    );
  } catch (error) {
    throw new SimulatorStartError(`Invalid start-time faults: ${(error as Error).message}`, { cause: error });
  }

  const localNode = cluster.nodeNames[0] ?? 'localhost';
  let scenarios: Scenario[];
  try {
    scenarios = (opts.scenarios ?? []).map(normalizeScenario);
    if (opts.scenarioFile) scenarios.push(...(await loadScenarioFile(opts.scenarioFile)));
    applyScenarios(scenarios, { cluster, faults, localNode });
  } catch (error) {
    const message = error instanceof ScenarioError ? error.message : `Invalid scenario: ${(error as Error).message}`;
    throw new SimulatorStartError(message, { cause: error });
  }

  const counters = new RequestCounters();
  const settings: PipelineSettings = { authFailureDelayMs: opts.authFailureDelayMs ?? 3000 };
  const responseProblems: ResponseProblem[] = [];
  const checkResponse = opts.checkResponses
    ? (op: Operation, data: unknown) => {
        const problems = validateValue(op.returns, data);
        if (problems.length > 0) responseProblems.push({ operation: op.key, problems });
      }
    : undefined;

  const handler = createRequestHandler({
    model,
    endpoints: byKey,
    authenticator,
    store,
    faults,
    counters,
    nodes: {
      local: localNode,
      has: (n) => cluster.hasNode(n),
      isOnline: (n) => cluster.isNodeOnline(n),
      unknownNodeError: unknownNode,
    },
    files: new StaticFiles(apidocText),
    settings,
    ...(checkResponse ? { checkResponse } : {}),
    onInternalError: (error, key) => {
      responseProblems.push({ operation: key, problems: [`handler crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`] });
    },
  });

  const access = accessAdmin(store, tickets);
  const token = access.addToken('root@pam', 'mcp', { privsep: false, comment: 'created by the simulator at start' });

  const host = opts.host ?? '127.0.0.1';
  let listener: Awaited<ReturnType<typeof listen>>;
  try {
    listener = await listen({ host, port: opts.port ?? 0, cert: tls.cert, key: tls.key, handler });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const hint = code === 'EADDRINUSE' ? ' The port is taken; pick another or 0 for a free one.' : '';
    throw new SimulatorStartError(`Cannot listen on ${host}:${opts.port ?? 0}: ${(error as Error).message}.${hint}`, { cause: error });
  }

  return {
    url: `https://${host.includes(':') ? `[${host}]` : host}:${listener.port}`,
    port: listener.port,
    fingerprint: tls.fingerprint,
    certificate: tls.cert,
    token: { id: token.tokenid, secret: token.secret, header: token.header },
    rootPassword,
    model,
    schemaKind: opts.schemaFile ? 'file' : 'simulator',
    apidocText,
    implemented: model.operations.map((op) => op.key).filter((k) => byKey.has(k)),
    cluster,
    faults,
    counters,
    access,
    settings,
    responseProblems,
    scenarios,
    pveVersion: release.version,
    setAuthFailureStyle: (style) => {
      authenticator.failureStyle = style;
    },
    close: () => listener.close(),
  };
}

function accessAdmin(store: AccessStore, tickets: TicketAuthority): AccessAdmin {
  const requireUser = (userid: string): User => {
    const u = store.user(userid);
    if (!u) throw new Error(`No user ${userid}; create it with addUser first.`);
    return u;
  };
  const subjects = (acl: AclGrant): Array<[AclSubjectType, string]> => [
    ...(acl.users ?? []).map((u): [AclSubjectType, string] => ['user', u]),
    ...(acl.groups ?? []).map((g): [AclSubjectType, string] => ['group', g]),
    ...(acl.tokens ?? []).map((t): [AclSubjectType, string] => ['token', t]),
  ];
  return {
    store,
    addUser(userid, opts = {}) {
      const realm = userid.split('@')[1] ?? '';
      if (!store.realms.has(realm)) throw new Error(`Realm '${realm}' does not exist (pam and pve do).`);
      const u = newUser(userid, {
        enable: opts.enable ?? true,
        expire: opts.expire ?? 0,
        ...(opts.password !== undefined ? { password: opts.password } : {}),
        ...(opts.comment !== undefined ? { comment: opts.comment } : {}),
        ...(opts.totpSecret !== undefined ? { totpSecret: opts.totpSecret } : {}),
      });
      u.recoveryCodes = [...(opts.recoveryCodes ?? [])];
      store.users.set(userid, u);
      for (const g of opts.groups ?? []) {
        if (!store.groups.has(g)) this.addGroup(g);
        store.groups.get(g)?.members.add(userid);
        u.groups.add(g);
      }
      return u;
    },
    addGroup(groupid, members = []) {
      const group = store.groups.get(groupid) ?? { groupid, members: new Set<string>() };
      store.groups.set(groupid, group);
      for (const m of members) {
        requireUser(m).groups.add(groupid);
        group.members.add(m);
      }
    },
    addRole(roleid, privs) {
      store.roles.set(roleid, { roleid, privs: new Set(privs), special: false });
    },
    addToken(userid, tokenName, opts = {}) {
      const user = requireUser(userid);
      const token: ApiToken = {
        privsep: opts.privsep ?? true,
        expire: opts.expire ?? user.expire,
        secret: opts.secret ?? randomUUID(),
        ...(opts.comment !== undefined ? { comment: opts.comment } : {}),
      };
      user.tokens.set(tokenName, token);
      const tokenid = `${userid}!${tokenName}`;
      return { tokenid, secret: token.secret, header: `PVEAPIToken=${tokenid}=${token.secret}` };
    },
    grant(acl) {
      for (const [type, ugid] of subjects(acl)) {
        for (const roleid of acl.roles) store.setAcl({ path: acl.path, type, ugid, roleid, propagate: acl.propagate ?? true });
      }
    },
    revoke(acl) {
      for (const [type, ugid] of subjects(acl)) for (const roleid of acl.roles) store.deleteAcl({ path: acl.path, type, ugid, roleid });
    },
    ticketFor(userid) {
      requireUser(userid);
      return { ticket: tickets.issue(userid), CSRFPreventionToken: tickets.csrfToken(userid) };
    },
  };
}
