/**
 * Each corpus case is contained by the rule it names, and by nothing else: with that escalation
 * rule, risk rule or policy part removed, the same call (the same facts, looked up on the same
 * simulator) is allowed. The decision is the pure `decideCall` the bridge and the preflight use.
 *
 * And each is the same call however its values are spelled: a value the client sends as one
 * comma-joined string may be given as an array (as a list, or one item), and must meet the same
 * rules.
 */
import { describe, expect, it } from 'vitest';
import { decideCall } from '../../src/policy/decide.js';
import { higherRisk } from '../../src/policy/escalations.js';
import type { CallFacts } from '../../src/policy/facts.js';
import { Policy } from '../../src/policy/policy.js';
import { hasOfficialSchema } from '../../src/schema/official-schemas.js';
import { METHOD_DEFAULT_RISK, RISK_RULES, explainRisk } from '../../src/schema/risk.js';
import { CORPUS as MAIN_CORPUS, CORPUS_POLICIES as MAIN_POLICIES, type CorpusCase } from './corpus.js';
import { PATH_RULE_CORPUS, PATH_RULE_POLICIES } from './corpus-path-rules.js';
import { useSimFacts } from './helpers/sim-facts.js';

const CORPUS = [...MAIN_CORPUS, ...PATH_RULE_CORPUS];
const CORPUS_POLICIES = { ...MAIN_POLICIES, ...PATH_RULE_POLICIES };

const sim = useSimFacts();

function policyOf(name: string, without?: string): Policy {
  const config: Record<string, unknown> = { name, ...CORPUS_POLICIES[name] };
  if (without === 'preset') config.preset = 'admin';
  else if (without) delete config[without];
  return Policy.fromConfig(config);
}

async function factsOf(c: CorpusCase, policy: Policy, params = c.call === 'waitTask' ? {} : (c.call.params ?? {})): Promise<CallFacts> {
  if (c.call === 'waitTask') throw new Error('waitTask cases are decided on the task GETs');
  return (await sim.factsOf(policy, c.call.method, c.call.path, params)).facts;
}

/** The facts as they would be without one escalation rule, or without the operation's own risk rule. */
function withoutGuard(facts: CallFacts, c: CorpusCase): CallFacts {
  const guard = c.guard;
  if ('escalation' in guard) {
    const escalations = facts.escalations.filter((e) => e.rule !== guard.escalation);
    return { ...facts, escalations, risk: escalations.reduce((r, e) => higherRisk(r, e.risk), facts.baseRisk) };
  }
  if ('risk' in guard) {
    const baseRisk = METHOD_DEFAULT_RISK[facts.method];
    return { ...facts, baseRisk, risk: facts.escalations.reduce((r, e) => higherRisk(r, e.risk), baseRisk) };
  }
  return facts;
}

const decided = CORPUS.filter((c) => c.call !== 'waitTask' && c.expect !== 'budget');

describe.skipIf(!hasOfficialSchema('9.1'))('every corpus case is contained by the rule it names', () => {
  it('covers every case but the task wait and the budget ones (checked end to end)', () => {
    expect(decided.length).toBeGreaterThanOrEqual(CORPUS.length - 4);
  });

  for (const c of decided) {
    it(`${c.id}: contained with ${JSON.stringify(c.guard)}, allowed without it`, async () => {
      const name = c.via ?? c.cluster;
      const policy = policyOf(name);
      const facts = await factsOf(c, policy);
      const guard = c.guard;
      if ('risk' in guard && RISK_RULES.some((r) => r.id === guard.risk)) {
        // A risk guard must be the rule that decides the operation, or removing it proves nothing.
        expect(explainRisk({ method: facts.method, path: facts.template }).source, c.id).toBe(`rule:${guard.risk}`);
      }
      const contained = decideCall(facts, policy);
      expect(contained.outcome, JSON.stringify(contained)).toBe(c.expect === 'denied' ? 'deny' : 'approval');

      const part = 'policy' in c.guard ? c.guard.policy : undefined;
      const mutatedPolicy = part ? policyOf(name, part) : policy;
      const mutatedFacts = part ? await factsOf(c, mutatedPolicy) : withoutGuard(facts, c);
      const without = decideCall(mutatedFacts, mutatedPolicy);
      expect(without.outcome, `${c.id} without its guard: ${JSON.stringify(without)}`).toBe('allow');
    });
  }
});

/** The case's params with every string value given as an array: split at its commas, or as one item. */
function spelledAsArrays(params: Record<string, unknown>, split: boolean): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? (split ? v.split(',') : [v]) : v]));
}

describe.skipIf(!hasOfficialSchema('9.1'))('every corpus case is the same call with its values given as arrays', () => {
  const withStrings = decided.filter((c) => c.call !== 'waitTask' && Object.values(c.call.params ?? {}).some((v) => typeof v === 'string'));

  it('covers the cases with string values', () => {
    expect(withStrings.length).toBeGreaterThan(50);
  });

  for (const c of withStrings) {
    it(`${c.id}: the same outcome and escalations as written`, async () => {
      const policy = policyOf(c.via ?? c.cluster);
      const written = await factsOf(c, policy);
      const expected = decideCall(written, policy).outcome;
      for (const split of [true, false]) {
        const params = spelledAsArrays(c.call === 'waitTask' ? {} : (c.call.params ?? {}), split);
        const facts = await factsOf(c, policy, params);
        expect(decideCall(facts, policy).outcome, `${c.id} with ${JSON.stringify(params)}`).toBe(expected);
        expect(facts.escalations.map((e) => e.rule)).toEqual(written.escalations.map((e) => e.rule));
      }
    });
  }
});
