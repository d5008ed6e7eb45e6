/**
 * Deny path rules that name a concrete guest, node, pool or storage, read as the target rules
 * they mean. A path rule matches paths; the same guest is reached through other paths too (HA
 * resources `vm:100`, bulk actions, `startall`/`stopall`/`migrateall` with `vms`, backups of a
 * pool, another guest's config naming `vm-100-disk-0`). An operator who writes
 * `deny * /nodes/*\/qemu/100/**` means "leave VM 100 alone", so such a rule also acts as the target
 * rule that says so, which the decision checks over every target of every call.
 *
 * Which paths pin which target (a pinned segment is a literal or a list of literals `{100,101}`):
 *   /nodes/<node>/{qemu,lxc}/<vmid>…   VMID (the node segment only says where the guest runs)
 *   /nodes/<node>/storage/<storage>…   storage (on every node: a target rule names a storage ID)
 *   /nodes/<node>…                     node (when no guest or storage is pinned below it)
 *   /pools/<pool>…                     pool (its guests included, as for a `pools` target rule)
 *   /storage/<storage>…                storage
 * A glob in the pinned segment (`pve*`, `10*`) pins nothing: target rules take names, VMIDs and
 * VMID ranges, not globs. Such a rule stays a path rule and the lint warns about it.
 *
 * Compiled (in addition to the path rule) when the rule covers the whole target — the path ends
 * at the pinned segment followed by `/**` (for pools and `/storage/<id>`, which have no sub-paths,
 * the bare object path too) — and its methods have a risk-class equivalent:
 *   `*` (or GET,POST,PUT,DELETE)  → read, write, destructive, privileged
 *   POST,PUT,DELETE               → write, destructive, privileged (the target rules' default)
 *   GET                           → read
 * Anything else that pins a target — a part of its API (`POST …/100/status/stop`, `…/100/snapshot/**`,
 * `DELETE /nodes/*\/lxc/200`) or some of the changing methods (`POST …/100/**`) — has no target-rule
 * equivalent: classes are not methods (a stop is a POST and destructive, HA's `state: stopped` is a
 * write), so compiling it would refuse calls the operator did not mean to refuse, and ignoring it
 * would let the other paths through as before. The configuration is refused, naming the target
 * rule to write; once a target rule of the policy names that target, the operator has said how it
 * is protected from other paths, and the path rule is kept as a rule for its own path.
 */
import type { HttpMethod, RiskClass } from '../schema/model.js';
import { compileOpPattern, compileSegment } from './glob.js';

export type PinKind = 'vmids' | 'nodes' | 'pools' | 'storages';

export interface Pin {
  kind: PinKind;
  /** VMIDs as decimal strings, or names. */
  values: string[];
}

/** A target rule as it would be written in `policy.targets` (risk absent: every changing class). */
export interface PinnedTargetRule {
  action: 'deny';
  vmids?: number[];
  nodes?: string[];
  pools?: string[];
  storages?: string[];
  risk?: RiskClass[];
}

/** What a deny path rule says about the targets it names. */
export type PathRuleReading =
  /** Names no concrete target (`DELETE /nodes/*\/qemu/*`): a rule for paths. */
  | { kind: 'path-only' }
  /** Names targets by a glob (`/nodes/pve*\/**`): a rule for paths, which the lint warns about. */
  | { kind: 'unpinned'; what: PinKind; segment: string }
  /** Covers the whole target: also acts as `target`. */
  | { kind: 'compiled'; pin: Pin; target: PinnedTargetRule }
  /** Pins a target for part of its API or some methods: refused unless a target rule names the target. */
  | { kind: 'partial'; pin: Pin; why: string; suggestion: PinnedTargetRule };

const CHANGING: readonly RiskClass[] = ['write', 'destructive', 'privileged'];
const CHANGING_METHODS: readonly HttpMethod[] = ['POST', 'PUT', 'DELETE'];
const VMID = /^[1-9][0-9]{0,8}$/;

const NOUN: Record<PinKind, string> = { vmids: 'VMID', nodes: 'node', pools: 'pool', storages: 'storage' };

/** Read one deny rule (already validated by the config schema). */
export function readPathRule(source: string): PathRuleReading {
  const pattern = compileOpPattern(source);
  const path = /^\s*[A-Za-z*,]+\s+(\/\S*)\s*$/.exec(source)?.[1] ?? '/';
  const segs = path
    .split('/')
    .slice(1)
    .filter((s) => s !== '');
  const found = findPin(segs);
  if (found.kind !== 'pin') return found;
  const { pin, rest } = found;
  const whole = (rest.length === 1 && rest[0] === '**') || (rest.length === 0 && found.flat);
  const classes = classesOf(pattern.methods);
  if (whole && classes.exact) return { kind: 'compiled', pin, target: targetRule(pin, classes.risk) };
  const suggestion = targetRule(pin, classes.risk);
  const part = whole ? '' : rest.length === 0 ? ' itself (only the operations at that exact path)' : ` under '/${rest.join('/')}' only`;
  const methods = classes.exact ? '' : ` for ${[...pattern.methods].join(',')} only`;
  return {
    kind: 'partial',
    pin,
    suggestion,
    why: `it names ${describePin(pin)}${part}${methods}, so it protects that path, not ${pin.values.length > 1 ? 'those targets' : 'that target'}: other paths still reach ${pin.values.length > 1 ? 'them' : 'it'}${HOW[pin.kind]}`,
  };
}

const HOW: Record<PinKind, string> = {
  vmids: " (HA resources, bulk actions, startall/stopall/migrateall with vms, backups, another guest's disks)",
  nodes: ' (bulk actions, HA, migrations to and from it, cluster-wide backups)',
  pools: ' (PUT /pools with poolid, backups of the pool, its guests by their own paths)',
  storages: ' (disks, backups, moves and restores that name it, /storage/<id> and /nodes/<node>/storage/<id>)',
};

type Found = { kind: 'pin'; pin: Pin; rest: string[]; flat: boolean } | Exclude<PathRuleReading, { kind: 'compiled' | 'partial' }>;

/** The deepest target the path names, and the segments after it. */
function findPin(segs: readonly string[]): Found {
  const admits = (i: number, word: string): boolean => segs[i] !== undefined && segs[i] !== '**' && new RegExp(`^${compileSegment(segs[i] as string)}$`).test(word);
  // A `**` before a pinned position lets the segments shift: no position can be trusted.
  const shifted = (i: number): boolean => segs.slice(0, i).includes('**');
  const at = (i: number, kind: PinKind, flat: boolean): Found | undefined => {
    if (shifted(i)) return undefined;
    const v = valueOf(segs[i]);
    if (v.kind === 'any') return undefined;
    if (v.kind === 'glob') return { kind: 'unpinned', what: kind, segment: segs[i] as string };
    // A VMID is digits; a storage ID starts with a letter (pve-storage-id), so `…/storage/100` is no storage.
    const values = v.values.filter((x) => (kind === 'vmids' ? VMID.test(x) : kind === 'storages' ? /^[a-z]/i.test(x) : true));
    if (values.length === 0) return undefined;
    return { kind: 'pin', pin: { kind, values }, rest: segs.slice(i + 1), flat };
  };
  const candidates: Array<Found | undefined> = [];
  if (admits(0, 'nodes')) {
    if (admits(2, 'qemu') || admits(2, 'lxc')) candidates.push(at(3, 'vmids', false));
    // Only a written `storage` segment: under `*` a word (`/nodes/x/*/status`) is no storage ID.
    if (admits(2, 'storage') && !(segs[2] as string).includes('*')) candidates.push(at(3, 'storages', false));
    candidates.push(at(1, 'nodes', false));
  }
  if (admits(0, 'pools')) candidates.push(at(1, 'pools', true));
  if (admits(0, 'storage')) candidates.push(at(1, 'storages', true));
  const pins = candidates.filter((c): c is Found => c !== undefined);
  return pins.find((c) => c.kind === 'pin') ?? pins.find((c) => c.kind === 'unpinned') ?? { kind: 'path-only' };
}

type SegValue = { kind: 'any' } | { kind: 'glob' } | { kind: 'literal'; values: string[] };

/** A segment as the literals it matches: `100`, `{100,101}`, `pve{1,2}`; `*` and globs match open sets. */
function valueOf(seg: string | undefined): SegValue {
  if (seg === undefined || seg === '*' || seg === '**') return { kind: 'any' };
  if (seg.includes('*')) return { kind: 'glob' };
  let values = [''];
  let i = 0;
  while (i < seg.length) {
    const close = seg[i] === '{' ? seg.indexOf('}', i) : -1;
    const body = close > i ? seg.slice(i + 1, close) : '';
    // `{name}` without a comma is the template placeholder, which names no target.
    if (close > i && !body.includes(',')) return { kind: 'any' };
    const alts = close > i ? body.split(',') : [seg[i] as string];
    values = values.flatMap((v) => alts.map((a) => v + a));
    i = close > i ? close + 1 : i + 1;
  }
  return { kind: 'literal', values: [...new Set(values.filter((v) => v !== ''))] };
}

/** The risk classes a rule's methods stand for, and whether that is exact (see the module comment). */
function classesOf(methods: ReadonlySet<HttpMethod>): { risk: RiskClass[] | undefined; exact: boolean } {
  const get = methods.has('GET');
  const changing = CHANGING_METHODS.filter((m) => methods.has(m));
  if (changing.length === CHANGING_METHODS.length) return { risk: get ? ['read', ...CHANGING] : undefined, exact: true };
  if (changing.length === 0) return { risk: ['read'], exact: true };
  // The nearest classes, for the target rule the refusal suggests: a DELETE removes (destructive);
  // POST and PUT start, stop, configure and execute (every changing class).
  const near: RiskClass[] = changing.length === 1 && changing[0] === 'DELETE' ? ['destructive'] : [...CHANGING];
  return { risk: get ? ['read', ...near] : near.length === CHANGING.length ? undefined : near, exact: false };
}

function targetRule(pin: Pin, risk: RiskClass[] | undefined): PinnedTargetRule {
  return {
    action: 'deny',
    ...(pin.kind === 'vmids' ? { vmids: pin.values.map(Number) } : { [pin.kind]: pin.values }),
    ...(risk ? { risk } : {}),
  };
}

export function describePin(pin: Pin): string {
  const noun = NOUN[pin.kind];
  return pin.values.length === 1 ? `${noun} ${pin.values[0]}` : `${noun}s ${pin.values.join(', ')}`;
}

/** `{action: 'deny', vmids: [100]}`, as the operator would write it (JSON with single quotes). */
export function formatTargetRule(rule: PinnedTargetRule): string {
  const parts = Object.entries(rule).map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${v.map((x) => (typeof x === 'number' ? String(x) : `'${x}'`)).join(', ')}]` : `'${String(v)}'`}`);
  return `{${parts.join(', ')}}`;
}

/** Whether a target rule of the policy names a pinned target (any action, any classes). */
export function pinCovered(
  pin: Pin,
  targets: ReadonlyArray<{ vmids?: ReadonlyArray<readonly [number, number]>; nodes?: readonly string[]; pools?: readonly string[]; storages?: readonly string[] }>,
): boolean {
  return pin.values.every((value) =>
    targets.some((t) => {
      if (pin.kind === 'vmids') return t.vmids?.some(([lo, hi]) => Number(value) >= lo && Number(value) <= hi) ?? false;
      return t[pin.kind]?.includes(value) ?? false;
    }),
  );
}

/** What a compiled rule protects, in words: `VMID 100 from every call of every class, by any path`. */
export function describeProtection(pin: Pin, risk: readonly RiskClass[] | undefined): string {
  const classes = risk ?? CHANGING;
  const what = classes.length === 4 ? 'every call' : classes.length === 1 && classes[0] === 'read' ? 'every read' : `every ${classes.join(', ')} call`;
  const extra = pin.kind === 'pools' ? ' (its guests included)' : pin.kind === 'storages' ? ' (on every node)' : pin.kind === 'nodes' ? ' (its guests included)' : '';
  return `${describePin(pin)}${extra} from ${what}, by any path`;
}
