/**
 * Fault injection for tests and benchmarks, deterministic from a seed: per-path latency, error
 * rates and connection resets, offline nodes (proxied calls get 595 like a node pveproxy cannot
 * reach), and ticket expiry. Settable at start (`FaultSpec`) and at run time through the
 * controller.
 */
import { z } from 'zod';
import type { HttpMethod } from '../schema/model.js';
import { createRng } from './cluster/prng.js';

export const faultRuleSchema = z.object({
  /** Glob on the request path below /api2/json (`*` = one segment, `**` = any depth), or on its template. */
  path: z.string().min(1),
  method: z.enum(['GET', 'POST', 'PUT', 'DELETE']).optional(),
  /** Added delay: a fixed number of ms or a [min, max] range. */
  latencyMs: z.union([z.number().min(0), z.tuple([z.number().min(0), z.number().min(0)])]).optional(),
  /** Probability (0..1) that the call fails with `errorStatus`/`errorMessage` instead of running. */
  errorRate: z.number().min(0).max(1).optional(),
  errorStatus: z.number().int().min(400).max(599).optional(),
  errorMessage: z.string().optional(),
  /**
   * `json` (default): PVE's error envelope; `none`: status and reason only, empty body, as
   * pveproxy answers when it cannot reach the daemon behind it (595/596).
   */
  errorBody: z.enum(['json', 'none']).optional(),
  /** Probability (0..1) that the connection is reset. */
  resetRate: z.number().min(0).max(1).optional(),
  /** `before`: the call never runs; `after`: it runs, but the client never sees the answer. */
  resetWhen: z.enum(['before', 'after']).optional(),
});
export type FaultRule = z.infer<typeof faultRuleSchema>;

export const offlineModeSchema = z.enum(['refused', 'timeout']);
export type OfflineMode = z.infer<typeof offlineModeSchema>;

export const faultSpecSchema = z.object({
  rules: z.array(faultRuleSchema).optional(),
  offlineNodes: z.record(z.string(), offlineModeSchema).optional(),
  /** How long a proxied call to a `timeout` node hangs before its 595 (ms). */
  offlineTimeoutMs: z.number().int().min(0).optional(),
  /** False: the node the simulator answers as has lost quorum (writes fail, see `quorate`). */
  quorate: z.boolean().optional(),
});
export type FaultSpec = z.infer<typeof faultSpecSchema>;

export interface FaultDecision {
  latencyMs: number;
  error?: { status: number; message: string; body: 'json' | 'none' };
  reset?: 'before' | 'after';
}

/** Hooks into the rest of the simulator that node and ticket faults act on. */
export interface FaultTargets {
  setNodeOnline(node: string, online: boolean): void;
  expireTickets(): Promise<void>;
}

export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') {
      re += '[^/]*';
    } else {
      re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

interface ActiveRule {
  id: number;
  rule: FaultRule;
  re: RegExp;
}

export class FaultController {
  private readonly rules: ActiveRule[] = [];
  private readonly offline = new Map<string, OfflineMode>();
  private nextId = 1;
  private readonly random: () => number;
  offlineTimeoutMs: number;
  /**
   * False while the answering node has no quorum: the cluster file system is read-only there, so
   * every call that writes cluster configuration fails with PVE's `cluster not ready - no quorum?`.
   */
  quorate = true;

  constructor(
    seed: number,
    private readonly targets: FaultTargets,
    spec: FaultSpec = {},
  ) {
    this.random = createRng(seed ^ 0x5eed).next;
    const parsed = faultSpecSchema.parse(spec);
    this.offlineTimeoutMs = parsed.offlineTimeoutMs ?? 3_000;
    for (const r of parsed.rules ?? []) this.add(r);
    for (const [node, mode] of Object.entries(parsed.offlineNodes ?? {})) this.setNodeOffline(node, mode);
    if (parsed.quorate === false) this.quorate = false;
  }

  /** Add a rule; returns its id for `remove`. */
  add(rule: FaultRule): number {
    const parsed = faultRuleSchema.parse(rule);
    const id = this.nextId++;
    this.rules.push({ id, rule: parsed, re: globToRegExp(parsed.path) });
    return id;
  }

  remove(id: number): boolean {
    const i = this.rules.findIndex((r) => r.id === id);
    if (i < 0) return false;
    this.rules.splice(i, 1);
    return true;
  }

  clear(): void {
    this.rules.length = 0;
    this.quorate = true;
    for (const node of [...this.offline.keys()]) this.setNodeOnline(node);
  }

  list(): Array<FaultRule & { id: number }> {
    return this.rules.map((r) => ({ id: r.id, ...r.rule }));
  }

  /** Proxied calls to the node fail with 595 (`refused` at once, `timeout` after offlineTimeoutMs). */
  setNodeOffline(node: string, mode: OfflineMode = 'refused'): void {
    offlineModeSchema.parse(mode);
    this.offline.set(node, mode);
    this.targets.setNodeOnline(node, false);
  }

  setNodeOnline(node: string): void {
    this.offline.delete(node);
    this.targets.setNodeOnline(node, true);
  }

  offlineMode(node: string): OfflineMode {
    return this.offline.get(node) ?? 'refused';
  }

  /** Invalidate every ticket issued so far (clients must log in again). */
  expireTickets(): Promise<void> {
    return this.targets.expireTickets();
  }

  /** What happens to one call; every matching rule contributes. */
  decide(method: HttpMethod, path: string, template: string | undefined): FaultDecision {
    const decision: FaultDecision = { latencyMs: 0 };
    for (const { rule, re } of this.rules) {
      if (rule.method && rule.method !== method) continue;
      if (!re.test(path) && !(template !== undefined && re.test(template))) continue;
      if (rule.latencyMs !== undefined) {
        const [min, max] = Array.isArray(rule.latencyMs) ? rule.latencyMs : [rule.latencyMs, rule.latencyMs];
        decision.latencyMs += min + this.random() * Math.max(0, max - min);
      }
      if (!decision.reset && rule.resetRate !== undefined && this.random() < rule.resetRate) {
        decision.reset = rule.resetWhen ?? 'before';
      }
      if (!decision.error && rule.errorRate !== undefined && this.random() < rule.errorRate) {
        decision.error = {
          status: rule.errorStatus ?? 500,
          message: rule.errorMessage ?? 'simulated failure (fault injection)',
          body: rule.errorBody ?? 'json',
        };
      }
    }
    return decision;
  }
}
