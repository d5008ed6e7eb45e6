/**
 * Policy lint: every rule of a policy checked against what it is meant to act on, so a typo
 * cannot leave a guest unprotected while the configuration looks valid.
 *
 * - `allow`, `deny` and `privileged` patterns against the cluster's schema. A concrete glob
 *   (`* /nodes/*\/qemu/100/**`) is matched against the path templates it can reach: segment by
 *   segment, a template's `{param}` accepts any literal the parameter's type allows, `**` takes any
 *   number of template segments. A pattern that reaches no operation is an error, with a
 *   did-you-mean built by editing the pattern (a misspelled segment, a missing or extra segment,
 *   another method) until it matches.
 * - `privileged` entries: without `+param` the entry must reach a privileged operation; each
 *   `+param` must name a parameter (`script`), an indexed family (`scsi[n]`), a concrete member of
 *   one (`scsi1`), or an escalation rule id (`qemu-disk-host-path`) that raises one of the entry's
 *   operations to privileged.
 * - target rules and scopes against the cluster's inventory (`GET /cluster/resources`): VMIDs,
 *   nodes, pools, tags and storages that do not exist. A VMID range with no guest in it is only a
 *   warning (ranges reserve room for guests to come).
 * - warnings for rules that can never apply under the policy: a target rule whose risk classes the
 *   policy allows no operation of, a per-class token for a class the policy never uses.
 * - deny rules that pin a whole target act as target rules (path-rule-targets.ts): their targets
 *   are checked against the inventory like a target rule's; a deny rule that names targets by a
 *   glob (`/nodes/pve*\/**`) pins nothing and is a warning, with the target rule to write.
 * - `describeRules`: what each deny and target rule protects, for `config check`.
 *
 * Pure: no I/O. The caller fetches the inventory and decides what an error means (`config check`
 * fails, `serve` logs a warning).
 */
import type { ApiModel, HttpMethod, Operation, RiskClass } from '../schema/model.js';
import { closestMatch, editDistance } from '../script/suggest.js';
import { ESCALATION_RULES } from './escalations.js';
import { pathDecision } from './decide.js';
import { compileOpPattern, compileSegment } from './glob.js';
import { describePin, describeProtection, formatTargetRule, readPathRule, type PinKind } from './path-rule-targets.js';
import { parseVmidRanges, splitPrivilegedEntry, type PolicyConfig } from './policy-config.js';
import { Policy } from './policy.js';
import { listOf } from '../pve/list-value.js';

export interface LintFinding {
  severity: 'error' | 'warning';
  /** Where in the configuration: `policies.prod-ops.deny[0]`. */
  key: string;
  message: string;
  /** The corrected value, when one is likely. */
  suggestion?: string;
}

/** What the cluster holds, from `GET /cluster/resources`. */
export interface Inventory {
  guests: Map<number, { name?: string; node?: string; type: string }>;
  nodes: Set<string>;
  pools: Set<string>;
  /** Lower-cased: PVE treats tags case-insensitively. */
  tags: Set<string>;
  storages: Set<string>;
}

export interface LintOptions {
  /** Prefix of every finding's key (`policies.prod-ops`). */
  key: string;
  inventory?: Inventory;
  /** Classes that have a token of their own (`clusters.X.tokens`), and the key to report them under. */
  tokenClasses?: { key: string; classes: readonly RiskClass[] };
}

/** The inventory from a `/cluster/resources` answer (unknown entries are skipped). */
export function inventoryFromResources(resources: unknown): Inventory {
  const inv: Inventory = { guests: new Map(), nodes: new Set(), pools: new Set(), tags: new Set(), storages: new Set() };
  if (!Array.isArray(resources)) return inv;
  for (const r of resources as Array<Record<string, unknown>>) {
    if (r === null || typeof r !== 'object') continue;
    const str = (k: string): string | undefined => (typeof r[k] === 'string' && r[k] !== '' ? (r[k] as string) : undefined);
    const node = str('node');
    if (node) inv.nodes.add(node);
    // A storage's `pool` is its Ceph/ZFS pool, not a PVE pool.
    const pool = str('pool');
    if (pool && r.type !== 'storage') inv.pools.add(pool);
    if (r.type === 'storage' && str('storage')) inv.storages.add(str('storage') as string);
    if (r.type === 'qemu' || r.type === 'lxc' || r.type === 'openvz') {
      const vmid = Number(r.vmid);
      if (Number.isInteger(vmid) && vmid > 0) {
        inv.guests.set(vmid, { type: r.type, ...(str('name') ? { name: str('name') as string } : {}), ...(node ? { node } : {}) });
      }
      for (const tag of listOf(str('tags'))) inv.tags.add(tag.toLowerCase());
    }
  }
  return inv;
}

// --- patterns against the schema -------------------------------------------------------------

type GlobSeg = { kind: 'any' } | { kind: 'seg'; text: string; re: RegExp; literal: boolean };

interface ParsedPattern {
  methods: ReadonlySet<HttpMethod>;
  methodText: string;
  segs: GlobSeg[];
}

function parsePattern(source: string): ParsedPattern {
  const compiled = compileOpPattern(source); // validated by the config schema already; throws otherwise
  const m = /^\s*([A-Za-z*,]+)\s+(\/\S*)\s*$/.exec(source) as RegExpExecArray;
  return { methods: compiled.methods, methodText: m[1] as string, segs: globSegments(m[2] as string) };
}

function globSegments(path: string): GlobSeg[] {
  return path
    .split('/')
    .slice(1)
    .filter((s) => s !== '')
    .map((text): GlobSeg => (text === '**' ? { kind: 'any' } : { kind: 'seg', text, re: new RegExp(`^${compileSegment(text)}$`), literal: !/[*{]/.test(text) }));
}

interface TemplateSeg {
  text: string;
  param?: string;
  /** The last parameter takes the rest of the path (volume IDs, CIDRs). */
  rest: boolean;
  /** A path parameter that only takes digits (`{vmid}`). */
  numeric: boolean;
}

/** Path templates prepared once per model. */
class TemplateIndex {
  readonly byPath = new Map<string, { segs: TemplateSeg[]; ops: Operation[] }>();
  /** Every literal segment of every template, for suggestions. */
  readonly literals = new Set<string>();

  constructor(model: ApiModel) {
    for (const op of model.operations) {
      let entry = this.byPath.get(op.path);
      if (!entry) {
        const parts = op.path.split('/').filter((s) => s !== '');
        const segs = parts.map((text, i): TemplateSeg => {
          const param = /^\{([^}]+)\}$/.exec(text)?.[1];
          if (!param) {
            this.literals.add(text);
            return { text, rest: false, numeric: false };
          }
          const spec = op.params.find((p) => p.name === param);
          return { text, param, rest: i === parts.length - 1 && (param === 'volume' || param === 'cidr'), numeric: spec?.type === 'integer' || param === 'vmid' };
        });
        entry = { segs, ops: [] };
        this.byPath.set(op.path, entry);
      }
      entry.ops.push(op);
    }
  }

  /** Operations a pattern can reach; `strict`: API words never stand for parameter values. */
  match(p: ParsedPattern, strict = false): Operation[] {
    const out: Operation[] = [];
    for (const { segs, ops } of this.byPath.values()) {
      const hits = ops.filter((op) => p.methods.has(op.method));
      if (hits.length > 0 && globFits(p.segs, segs, strict ? this.literals : undefined)) out.push(...hits);
    }
    return out;
  }

  /** Templates the pattern's path reaches, whatever the method. */
  pathMatches(p: ParsedPattern): Operation[] {
    const out: Operation[] = [];
    for (const { segs, ops } of this.byPath.values()) if (globFits(p.segs, segs)) out.push(...ops);
    return out;
  }
}

function segFits(g: Extract<GlobSeg, { kind: 'seg' }>, t: TemplateSeg, apiWords?: ReadonlySet<string>): boolean {
  if (g.re.test(t.text)) return true; // literal segment, or the placeholder written as-is
  if (!t.param) return false;
  if (!g.literal) return true; // a wildcard can always be filled with a value the parameter takes
  // Strict (for suggestions): a word of the API itself (`qemu`, `nodes`) is not taken as a value.
  if (apiWords?.has(g.text)) return false;
  return t.numeric ? /^[1-9]\d*$/.test(g.text) : true;
}

function globFits(g: readonly GlobSeg[], t: readonly TemplateSeg[], apiWords?: ReadonlySet<string>): boolean {
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    const k = i * 1000 + j;
    const cached = memo.get(k);
    if (cached !== undefined) return cached;
    let r: boolean;
    const gs = g[i];
    const ts = t[j];
    if (gs === undefined) r = ts === undefined;
    else if (gs.kind === 'any') r = go(i + 1, j) || (ts !== undefined && go(i, j + 1));
    else if (ts === undefined) r = false;
    else if (!segFits(gs, ts, apiWords)) r = false;
    else r = go(i + 1, j + 1) || (ts.rest && go(i + 1, j));
    memo.set(k, r);
    return r;
  };
  return go(0, 0);
}

function formatPattern(methodText: string, segs: readonly GlobSeg[]): string {
  return `${methodText} /${segs.map((s) => (s.kind === 'any' ? '**' : s.text)).join('/')}`;
}

const lit = (text: string): GlobSeg => ({ kind: 'seg', text, re: new RegExp(`^${compileSegment(text)}$`), literal: !/[*{]/.test(text) });

/**
 * The closest pattern that reaches an operation: one or two segment edits (a literal replaced by a
 * close template literal, a `*` inserted, a segment dropped), or a method that exists on the path.
 */
function suggestPattern(p: ParsedPattern, index: TemplateIndex, accept: (ops: Operation[]) => boolean): string | undefined {
  const reached = (segs: GlobSeg[], methods = p.methods): Operation[] => index.match({ ...p, segs, methods }, true);
  // Another method on a path that exists.
  const onPath = index.pathMatches(p);
  if (onPath.length > 0) {
    const methods = [...new Set(onPath.filter((op) => accept([op])).map((op) => op.method))];
    if (methods.length > 0) return formatPattern(methods.join(','), p.segs);
  }
  type Candidate = { segs: GlobSeg[]; cost: number };
  const edits = (segs: GlobSeg[]): Candidate[] => {
    const out: Candidate[] = [];
    segs.forEach((s, i) => {
      if (s.kind === 'seg' && s.literal) {
        const limit = Math.max(1, Math.floor(s.text.length / 3));
        for (const l of index.literals) {
          const d = editDistance(s.text.toLowerCase(), l.toLowerCase());
          if (d > 0 && d <= limit) out.push({ segs: [...segs.slice(0, i), lit(l), ...segs.slice(i + 1)], cost: d });
        }
      }
      out.push({ segs: [...segs.slice(0, i), ...segs.slice(i + 1)], cost: 2 });
    });
    for (let i = 0; i <= segs.length; i++) out.push({ segs: [...segs.slice(0, i), lit('*'), ...segs.slice(i)], cost: 2 });
    return out;
  };
  let best: Candidate | undefined;
  const consider = (c: Candidate): void => {
    if (best && c.cost >= best.cost) return;
    if (c.segs.length > 0 && accept(reached(c.segs))) best = c;
  };
  const first = edits(p.segs);
  for (const c of first) consider(c);
  if (!best) {
    // Two edits: only from the cheapest first edits, so this stays small.
    for (const c of first.filter((e) => e.cost === 1).slice(0, 40)) for (const d of edits(c.segs)) consider({ segs: d.segs, cost: c.cost + d.cost });
  }
  return best ? formatPattern(p.methodText, best.segs) : undefined;
}

// --- privileged parameters -------------------------------------------------------------------

/** Names a `+param` may use on this operation, and the escalations to destructive (need no `+`). */
function escalationNames(op: Operation): { privileged: Set<string>; destructive: Set<string> } {
  const privileged = new Set<string>();
  const destructive = new Set<string>();
  for (const rule of ESCALATION_RULES) {
    if (!rule.methods.includes(op.method) || !rule.path.test(op.path)) continue;
    const into = rule.risk === 'privileged' ? privileged : destructive;
    into.add(rule.id);
    for (const name of rule.params) {
      into.add(name);
      const family = /^(.+)\[n\]$/.exec(name)?.[1];
      if (family) for (const p of op.params) if (p.family?.base === family || new RegExp(`^${family}\\d+$`).test(p.name)) into.add(p.name);
    }
  }
  return { privileged, destructive };
}

// --- the lint --------------------------------------------------------------------------------

export function lintPolicy(config: PolicyConfig, model: ApiModel, options: LintOptions): LintFinding[] {
  const findings: LintFinding[] = [];
  const index = new TemplateIndex(model);
  const error = (key: string, message: string, suggestion?: string): void => {
    findings.push({ severity: 'error', key, message: suggestion ? `${message}; did you mean '${suggestion}'?` : message, ...(suggestion ? { suggestion } : {}) });
  };
  const warn = (key: string, message: string): void => {
    findings.push({ severity: 'warning', key, message });
  };
  const describeOps = (ops: readonly Operation[]): string => {
    const shown = ops.slice(0, 3).map((o) => `${o.method} ${o.path} (${o.risk})`);
    return shown.join(', ') + (ops.length > 3 ? ` and ${ops.length - 3} more` : '');
  };

  for (const list of ['allow', 'deny'] as const) {
    config[list].forEach((source, i) => {
      const key = `${options.key}.${list}[${i}]`;
      const p = parsePattern(source);
      if (index.match(p).length > 0) return;
      error(
        key,
        `'${source}' matches no operation of this cluster's schema (${model.operations.length} operations), so it ${list === 'deny' ? 'protects nothing' : 'allows nothing'}`,
        suggestPattern(p, index, (ops) => ops.length > 0),
      );
    });
  }

  config.privileged.forEach((entry, i) => {
    const key = `${options.key}.privileged[${i}]`;
    const { pattern, params } = splitPrivilegedEntry(entry);
    const p = parsePattern(pattern);
    const ops = index.match(p);
    const plus = params.length > 0 ? ` +${params.join(',')}` : '';
    if (ops.length === 0) {
      const wanted = params.length > 0 ? (o: Operation[]) => o.length > 0 : (o: Operation[]) => o.some((op) => op.risk === 'privileged');
      const s = suggestPattern(p, index, wanted);
      error(key, `'${pattern}' matches no operation of this cluster's schema, so it enables nothing`, s ? `${s}${plus}` : undefined);
      return;
    }
    if (params.length === 0) {
      if (!ops.some((op) => op.risk === 'privileged')) {
        error(
          key,
          `'${entry}' matches only operations that are not privileged (${describeOps(ops)}): a privileged entry enables privileged operations, so it enables nothing; ` +
            `allow them with an allow rule or the preset, and name their privileged parameters with +param`,
        );
      }
      return;
    }
    const names = ops.map(escalationNames);
    const allowed = new Set(names.flatMap((n) => [...n.privileged]));
    const destructive = new Set(names.flatMap((n) => [...n.destructive]));
    for (const param of params) {
      if (allowed.has(param)) continue;
      if (destructive.has(param)) {
        error(key, `'+${param}' raises ${describeOps(ops)} to destructive, not privileged: destructive escalations follow the approval classes (approval.require) and are not enabled with +param`);
        continue;
      }
      const candidates = [...allowed].filter((n) => !/\d$/.test(n) || !allowed.has(n.replace(/\d+$/, '[n]')));
      const close = closestMatch(param, allowed);
      const known = candidates.length > 0 ? `; its privileged parameters are ${candidates.slice(0, 12).join(', ')}` : '; no parameter escalates them to privileged';
      error(
        key,
        `'+${param}' names no parameter or escalation rule that raises ${describeOps(ops)} to privileged, so it enables nothing${close ? '' : known}`,
        close ? `${pattern} +${params.map((x) => (x === param ? close : x)).join(',')}` : undefined,
      );
    }
  });

  const policy = new Policy(config);
  const allowedClasses = allowedRiskClasses(policy, model);
  config.targets.forEach((rule, i) => {
    const key = `${options.key}.targets[${i}]`;
    const classes = rule.risk ?? ['write', 'destructive', 'privileged'];
    if (!classes.some((c) => allowedClasses.has(c))) {
      warn(key, `applies to ${classes.join(', ')} calls, and policy '${policy.name}' allows none, so it never applies (harmless; it guards against a later change of the policy)`);
    }
    if (options.inventory) lintSelectors(rule, key, options.inventory, { error, warn });
  });
  if (options.inventory) lintSelectors(config.scopes, `${options.key}.scopes`, options.inventory, { error, warn });

  config.deny.forEach((source, i) => {
    const key = `${options.key}.deny[${i}]`;
    const reading = readPathRule(source);
    if (reading.kind === 'compiled' && options.inventory) lintSelectors(reading.target, key, options.inventory, { error, warn });
    if (reading.kind !== 'unpinned') return;
    const matching = options.inventory ? globMatches(reading.what, reading.segment, options.inventory) : [];
    const example = matching.length > 0 ? matching : [reading.what === 'vmids' ? '100-199' : 'name'];
    warn(
      key,
      `'${source}' names ${NOUNS[reading.what]} by the glob '${reading.segment}', so it protects these paths only, not the ${NOUNS[reading.what]} themselves from other paths ` +
        `(HA, bulk actions, migrations, backups); target rules take names and VMID ranges, not globs: to protect them from every path, list them in a target rule ` +
        `such as targets: [{action: 'deny', ${reading.what}: [${example.map((v) => (reading.what === 'vmids' && /^\d+$/.test(v) ? v : `'${v}'`)).join(', ')}]}]${matching.length > 0 ? ' (what the glob matches now)' : ''}`,
    );
  });

  if (options.tokenClasses) {
    for (const cls of options.tokenClasses.classes) {
      if (!allowedClasses.has(cls)) warn(`${options.tokenClasses.key}.${cls}`, `policy '${policy.name}' allows no ${cls} operation, so this token is never used`);
    }
  }
  return findings;
}

const NOUNS: Record<PinKind, string> = { vmids: 'guests', nodes: 'nodes', pools: 'pools', storages: 'storages' };

/** What of the inventory a glob segment matches now. */
function globMatches(kind: PinKind, segment: string, inv: Inventory): string[] {
  const re = new RegExp(`^${compileSegment(segment)}$`);
  const known = kind === 'vmids' ? [...inv.guests.keys()].map(String) : [...inv[kind]];
  return known.filter((v) => re.test(v)).sort((a, b) => (kind === 'vmids' ? Number(a) - Number(b) : a.localeCompare(b)));
}

/** One line per deny and target rule: what it protects, and from which paths. */
export interface RuleDescription {
  /** `deny[0]`, `targets[1]`. */
  key: string;
  text: string;
}

export function describeRules(config: PolicyConfig): RuleDescription[] {
  const out: RuleDescription[] = [];
  const policy = new Policy(config);
  config.deny.forEach((source, i) => {
    const reading = readPathRule(source);
    const head = `deny '${source}' → `;
    if (reading.kind === 'compiled') {
      out.push({ key: `deny[${i}]`, text: `${head}protects ${describeProtection(reading.pin, reading.target.risk)} (as target rule ${formatTargetRule(reading.target)})` });
    } else if (reading.kind === 'partial') {
      const by = policy.targetRules.filter((r) => r.from === 'targets' && reading.pin.values.some((v) => ruleNames(r, reading.pin.kind, v))).map((r) => `targets[${r.index}]`);
      out.push({ key: `deny[${i}]`, text: `${head}protects its own paths only; ${describePin(reading.pin)} is protected from other paths by ${by.join(', ')}` });
    } else if (reading.kind === 'unpinned') {
      out.push({ key: `deny[${i}]`, text: `${head}protects its own paths only ('${reading.segment}' is a glob, which a target rule cannot take; see the warning)` });
    } else {
      out.push({ key: `deny[${i}]`, text: `${head}protects its own paths (it names no single guest, node, pool or storage)` });
    }
  });
  for (const rule of policy.targetRules) {
    if (rule.from !== 'targets') continue;
    const t = config.targets[rule.index];
    if (!t) continue;
    const names = (['vmids', 'nodes', 'pools', 'tags', 'storages'] as const).filter((k) => t[k] !== undefined).map((k) => `${k === 'vmids' ? 'VMIDs' : k} ${(t[k] ?? []).join(', ')}`);
    const classes = [...rule.risk];
    const what = classes.length === 4 ? 'every call' : `every ${classes.join(', ')} call`;
    out.push({ key: `targets[${rule.index}]`, text: `${rule.action === 'deny' ? 'refuses' : 'asks approval for'} ${what} that reaches ${names.join('; ')}, by any path` });
  }
  return out;
}

function ruleNames(rule: Policy['targetRules'][number], kind: PinKind, value: string): boolean {
  if (kind === 'vmids') return rule.vmids?.some(([lo, hi]) => Number(value) >= lo && Number(value) <= hi) ?? false;
  return rule[kind]?.has(value) ?? false;
}

/** Classes of the operations this policy allows at default parameters (privileged also through +param). */
function allowedRiskClasses(policy: Policy, model: ApiModel): Set<RiskClass> {
  const out = new Set<RiskClass>();
  for (const op of model.operations) {
    if (out.has(op.risk)) continue;
    if (pathDecision(policy, { method: op.method, template: op.path, risk: op.risk }).allowed) out.add(op.risk);
  }
  if (policy.config.privileged.some((e) => splitPrivilegedEntry(e).params.length > 0)) out.add('privileged');
  // Escalations to destructive come with operations the policy allows at write.
  if (out.has('write')) out.add('destructive');
  return out;
}

interface Selectors {
  vmids?: ReadonlyArray<number | string>;
  nodes?: readonly string[];
  pools?: readonly string[];
  tags?: readonly string[];
  storages?: readonly string[];
}

function lintSelectors(
  sel: Selectors,
  key: string,
  inv: Inventory,
  report: { error: (key: string, message: string, suggestion?: string) => void; warn: (key: string, message: string) => void },
): void {
  (sel.vmids ?? []).forEach((entry, i) => {
    const [range] = parseVmidRanges([entry]);
    if (!range) return;
    const [lo, hi] = range;
    if (inv.guests.size === 0) {
      report.warn(`${key}.vmids[${i}]`, 'not checked: the token sees no guest in /cluster/resources (grant it VM.Audit, e.g. PVEAuditor on /)');
      return;
    }
    if (lo === hi) {
      if (inv.guests.has(lo)) return;
      const near = closestMatch(String(lo), [...inv.guests.keys()].map(String));
      const list = [...inv.guests.entries()].slice(0, 8).map(([id, g]) => `${id}${g.name ? ` ${g.name}` : ''}`);
      report.error(`${key}.vmids[${i}]`, `VMID ${lo} is not a guest of this cluster${near ? '' : ` (guests: ${list.join(', ')}${inv.guests.size > 8 ? ', …' : ''})`}`, near);
      return;
    }
    for (const id of inv.guests.keys()) if (id >= lo && id <= hi) return;
    report.warn(`${key}.vmids[${i}]`, `no guest of this cluster has a VMID in ${lo}-${hi} yet`);
  });
  const names = (kind: 'nodes' | 'pools' | 'tags' | 'storages', known: Set<string>, noun: string): void => {
    (sel[kind] ?? []).forEach((value, i) => {
      const v = kind === 'tags' ? value.toLowerCase() : value;
      if (known.has(v)) return;
      if (known.size === 0) {
        report.warn(`${key}.${kind}[${i}]`, `${noun} '${value}' not checked: the token sees no ${kind} in /cluster/resources (grant it the audit privileges, e.g. PVEAuditor on /)`);
        return;
      }
      const near = closestMatch(v, known);
      const list = [...known].slice(0, 10);
      report.error(`${key}.${kind}[${i}]`, `${noun} '${value}' does not exist in this cluster${near ? '' : ` (${kind}: ${list.join(', ') || 'none'}${known.size > 10 ? ', …' : ''})`}`, near);
    });
  };
  names('nodes', inv.nodes, 'node');
  names('pools', inv.pools, 'pool');
  names('tags', inv.tags, 'tag');
  names('storages', inv.storages, 'storage');
}
