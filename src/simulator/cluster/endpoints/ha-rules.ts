/**
 * HA rules (`/cluster/ha/rules`, PVE 9): node-affinity rules (where HA resources may or should
 * run, with node priorities) and resource-affinity rules (which resources run together or apart).
 * All rules share one config file, whose SHA1 is every rule's `digest`. A rule must name HA
 * resources that exist and nodes of the cluster; rules that contradict others are refused with
 * PVE's `Rule '<id>' is invalid.` and per-option errors, and when read back carry `errors`.
 */
import { createHash } from 'node:crypto';
import { PveHttpError, type SimEndpoint, type SimRequestContext } from '../../contract.js';
import { assertUnmodified, fail, paramError } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { HaRule } from '../types.js';
import { flag, list, optStr, reqStr } from './params.js';
import { arr, bool, NULL, obj, opt, perm, str } from './schema.js';

const TYPES = ['node-affinity', 'resource-affinity'] as const;
const RULE_ID = str('HA rule identifier.', { format: 'pve-configid' });

/** The editable options of a rule. */
const OPTIONS = {
  resources: str('HA resources the rule is about, e.g. vm:101,ct:102.', { format: 'pve-ha-resource-id-list' }),
  nodes: opt(str('node-affinity: nodes with optional priority, e.g. pve1:2,pve2.', { format: 'pve-ha-node-list' })),
  strict: opt(bool('node-affinity: run only on the listed nodes (otherwise they are merely preferred).', { default: 0 })),
  affinity: opt(str('resource-affinity: keep the resources on one node (positive) or on different nodes (negative).', { enum: ['positive', 'negative'] })),
  disable: opt(bool('Keep the rule but do not apply it.')),
  comment: opt(str('Description.', { maxLength: 4096 })),
};

/** rules.cfg as PVE writes it, in rule order. */
function rulesCfg(state: ClusterState): string {
  let text = '';
  for (const r of [...state.haRules.values()].sort((a, b) => a.order - b.order)) {
    text += `${r.type}: ${r.rule}\n\tresources ${r.resources.join(',')}\n`;
    if (r.nodes) text += `\tnodes ${r.nodes.join(',')}\n`;
    if (r.affinity) text += `\taffinity ${r.affinity}\n`;
    if (r.strict !== undefined) text += `\tstrict ${r.strict}\n`;
    if (r.disable) text += '\tdisable 1\n';
    if (r.comment !== undefined) text += `\tcomment ${r.comment}\n`;
    text += '\n';
  }
  return text;
}

export function rulesDigest(state: ClusterState): string {
  return createHash('sha1').update(rulesCfg(state)).digest('hex');
}

/** Taking a resource out of HA with `purge` also takes it out of every rule (emptied rules go). */
export function purgeFromRules(state: ClusterState, sid: string): void {
  for (const [id, rule] of state.haRules) {
    rule.resources = rule.resources.filter((r) => r !== sid);
    if (rule.resources.length === 0) state.haRules.delete(id);
  }
}

/** Per-rule problems, as PVE's feasibility check reports them (option → messages). */
function ruleErrors(state: ClusterState): Map<string, Record<string, string[]>> {
  const errors = new Map<string, Record<string, string[]>>();
  const add = (id: string, opt: string, msg: string): void => {
    const e = errors.get(id) ?? {};
    (e[opt] ??= []).push(msg);
    errors.set(id, e);
  };
  const rules = [...state.haRules.values()].filter((r) => !r.disable).sort((a, b) => a.order - b.order);
  // A resource may be in one node-affinity rule only.
  const byResource = new Map<string, string[]>();
  for (const r of rules.filter((x) => x.type === 'node-affinity')) {
    for (const sid of r.resources) byResource.set(sid, [...(byResource.get(sid) ?? []), r.rule]);
  }
  for (const [sid, ids] of byResource) if (ids.length > 1) for (const id of ids) add(id, 'resources', `resource '${sid}' is already used in another node affinity rule`);
  const nodeCount = state.nodes.size;
  const affinity = rules.filter((x) => x.type === 'resource-affinity');
  for (const r of affinity) {
    if (r.resources.length < 2) add(r.rule, 'resources', 'rule is ineffective as there are less than two resources');
    if (r.affinity === 'negative' && r.resources.length > nodeCount) add(r.rule, 'resources', 'rule defines more resources than available nodes');
  }
  for (const neg of affinity.filter((x) => x.affinity === 'negative')) {
    for (const pos of affinity.filter((x) => x.affinity === 'positive')) {
      const shared = neg.resources.filter((sid) => pos.resources.includes(sid));
      if (shared.length < 2) continue;
      add(neg.rule, 'resources', 'rule shares two or more resources with a positive resource affinity rule');
      add(pos.rule, 'resources', 'rule shares two or more resources with a negative resource affinity rule');
    }
  }
  return errors;
}

function stringify(e: Record<string, string[]>): Record<string, string> {
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, v.join(', ')]));
}

export function haRuleEndpoints(state: ClusterState): SimEndpoint[] {
  const view = (r: HaRule, errors: Map<string, Record<string, string[]>>): Record<string, unknown> => {
    const out: Record<string, unknown> = { rule: r.rule, type: r.type, resources: r.resources.join(','), order: r.order, digest: rulesDigest(state) };
    if (r.nodes) out.nodes = r.nodes.join(',');
    if (r.type === 'node-affinity') out.strict = r.strict ?? 0;
    if (r.affinity) out.affinity = r.affinity;
    if (r.disable) out.disable = 1;
    if (r.comment !== undefined) out.comment = r.comment;
    const e = errors.get(r.rule);
    if (e) out.errors = e;
    return out;
  };
  const parseResources = (text: string | undefined): string[] => {
    const sids = list(text).map((s) => (/^\d+$/.test(s) ? `${state.guests.get(Number(s))?.type === 'lxc' ? 'ct' : 'vm'}:${s}` : s));
    if (sids.length === 0) throw fail('no resources were specified');
    const unmanaged = [...new Set(sids)].sort().filter((sid) => !state.haResources.has(sid));
    if (unmanaged.length > 0) throw fail(`cannot use unmanaged resource(s) ${unmanaged.join(', ')}.`);
    return [...new Set(sids)];
  };
  const parseNodes = (text: string | undefined): string[] => {
    const entries = list(text);
    if (entries.length === 0) throw fail('no nodes were specified');
    const missing = [...new Set(entries.map((e) => e.split(':')[0] as string))].sort().filter((n) => !state.nodes.has(n));
    if (missing.length > 0) throw fail(`cannot use non-existent node(s) ${missing.join(', ')}.`);
    return entries;
  };
  /** Refuses a rule the feasibility check flags, as PVE does before writing the file. */
  const assertFeasible = (id: string, undo: () => void): void => {
    const e = ruleErrors(state).get(id);
    if (!e) return;
    undo();
    throw new PveHttpError(400, `Rule '${id}' is invalid.\n`, stringify(e));
  };
  const rule = (ctx: SimRequestContext): HaRule => {
    const id = reqStr(ctx, 'rule');
    const r = state.haRules.get(id);
    if (!r) throw fail(`no such ha rule '${id}'`);
    return r;
  };
  const apply = (r: HaRule, ctx: SimRequestContext): void => {
    const p = ctx.params;
    if (p.resources !== undefined) r.resources = parseResources(optStr(ctx, 'resources'));
    if (p.nodes !== undefined) r.nodes = parseNodes(optStr(ctx, 'nodes'));
    if (p.strict !== undefined) r.strict = flag(ctx, 'strict') ? 1 : 0;
    if (p.affinity !== undefined) r.affinity = optStr(ctx, 'affinity') as HaRule['affinity'];
    // As PVE: disable=0 is dropped, not applied; re-enable with delete=disable.
    if (flag(ctx, 'disable')) r.disable = 1;
    const comment = optStr(ctx, 'comment');
    if (comment !== undefined) r.comment = comment;
  };
  /** Options the rule type does not have are refused, as PVE's section config does. */
  const checkOptions = (type: string, ctx: SimRequestContext): void => {
    const foreign = type === 'node-affinity' ? ['affinity'] : ['nodes', 'strict'];
    for (const key of foreign) if (ctx.params[key] !== undefined) throw paramError(key, `property is not defined in schema and the schema does not allow additional properties`);
  };

  return [
    {
      method: 'GET',
      path: '/cluster/ha/rules',
      description: 'HA rules in their order, optionally only of one type or only those naming one resource; rules in conflict with others carry `errors`.',
      parameters: {
        type: opt(str('Only rules of this type.', { enum: [...TYPES] })),
        resource: opt(str('Only rules that name this HA resource.')),
      },
      returns: arr(obj({ rule: str('Rule ID.') }, { additionalProperties: 1 }), { links: [{ rel: 'child', href: '{rule}' }] }),
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: (ctx) => {
        const type = optStr(ctx, 'type');
        const resource = optStr(ctx, 'resource');
        const errors = ruleErrors(state);
        return [...state.haRules.values()]
          .sort((a, b) => a.order - b.order)
          .filter((r) => (type === undefined || r.type === type) && (resource === undefined || r.resources.includes(resource)))
          .map((r) => view(r, errors));
      },
    },
    {
      method: 'POST',
      path: '/cluster/ha/rules',
      description:
        'Create an HA rule: node affinity keeps resources on the nodes it prefers (`nodes`), resource affinity keeps resources together or apart (`affinity`); the resources must be HA-managed.',
      parameters: { rule: RULE_ID, type: str('Rule type.', { enum: [...TYPES] }), ...OPTIONS },
      returns: NULL,
      permissions: { check: perm('/', ['Sys.Console']) },
      protected: true,
      handler: (ctx) => {
        const id = reqStr(ctx, 'rule');
        const type = reqStr(ctx, 'type') as HaRule['type'];
        checkOptions(type, ctx);
        if (type === 'node-affinity' && ctx.params.nodes === undefined) throw paramError('nodes', 'property is missing and it is not optional');
        if (type === 'resource-affinity' && ctx.params.affinity === undefined) throw paramError('affinity', 'property is missing and it is not optional');
        if (state.haRules.has(id)) throw fail(`HA rule '${id}' already defined`);
        const order = Math.max(0, ...[...state.haRules.values()].map((r) => r.order)) + 1;
        const r: HaRule = { rule: id, type, resources: [], order };
        apply(r, ctx);
        state.haRules.set(id, r);
        assertFeasible(id, () => state.haRules.delete(id));
        return null;
      },
    },
    {
      method: 'GET',
      path: '/cluster/ha/rules/{rule}',
      description: 'One HA rule with the digest of the rules configuration.',
      parameters: { rule: RULE_ID },
      // Besides rule and type: resources, nodes, strict, affinity, disable, comment, order, digest and errors.
      returns: obj({ rule: RULE_ID, type: str('Rule type.', { enum: [...TYPES] }) }, { additionalProperties: 1 }),
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: (ctx) => view(rule(ctx), ruleErrors(state)),
    },
    {
      method: 'PUT',
      path: '/cluster/ha/rules/{rule}',
      description: 'Change an HA rule; `digest` guards against concurrent edits, `delete` resets options.',
      parameters: {
        rule: RULE_ID,
        type: str('Rule type (the rule keeps its own).', { enum: [...TYPES] }),
        ...Object.fromEntries(Object.entries(OPTIONS).map(([k, v]) => [k, opt(v)])),
        delete: opt(str('Options to reset.', { format: 'pve-configid-list', maxLength: 4096 })),
        digest: opt(str('Refuse the change unless the rules configuration still has this digest.', { maxLength: 64 })),
      },
      returns: NULL,
      permissions: { check: perm('/', ['Sys.Console']) },
      protected: true,
      handler: (ctx) => {
        assertUnmodified(rulesDigest(state), optStr(ctx, 'digest'));
        const id = reqStr(ctx, 'rule');
        const r = state.haRules.get(id);
        if (!r) throw fail(`HA rule '${id}' does not exist`);
        // The rule keeps its own type; options of the other type are refused.
        checkOptions(r.type, ctx);
        const before = structuredClone(r);
        for (const key of list(ctx.params.delete)) {
          if (key === 'comment' || key === 'disable' || key === 'strict') delete r[key];
          else if (key === 'resources' || key === 'nodes' || key === 'affinity') throw fail(`unable to delete required option '${key}'`);
        }
        apply(r, ctx);
        assertFeasible(id, () => state.haRules.set(id, before));
        return null;
      },
    },
    {
      method: 'DELETE',
      path: '/cluster/ha/rules/{rule}',
      description: 'Remove an HA rule (removing one that does not exist is not an error).',
      parameters: { rule: RULE_ID },
      returns: NULL,
      permissions: { check: perm('/', ['Sys.Console']) },
      protected: true,
      handler: (ctx) => {
        state.haRules.delete(reqStr(ctx, 'rule'));
        return null;
      },
    },
  ];
}
