/**
 * What an operator task is in the token benchmark: the request, what code mode does for it
 * (searches, schemas, one script), the fewest calls a tool-per-operation agent needs, and an
 * answer check computed independently from the simulator's state.
 */
import type { z } from 'zod';
import type { HttpMethod } from '../../src/schema/model.js';
import type { GuestRuntime, NodeRuntime } from '../../src/simulator/cluster/metrics.js';
import type { ClusterState } from '../../src/simulator/cluster/state.js';
import type { Guest } from '../../src/simulator/cluster/types.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { ScenarioFacts } from './scenario.js';

export interface CodeModeSteps {
  /** search_api calls, in order. */
  searches: Array<{ query: string; limit?: number }>;
  /** get_schema operations (`METHOD /path`), asked in one call. */
  schemas: string[];
  /** The run_script code. */
  script: string;
}

/** One API call as a tool-per-operation agent makes it; the call and its result enter the context. */
export interface ApiCaller {
  call(method: HttpMethod, path: string, params?: Record<string, unknown>): Promise<any>;
}

export type AnswerCheck = (answer: unknown) => string[];

export interface TokenTask {
  id: string;
  /** The operator's request as typed into the chat. */
  request(facts: ScenarioFacts): string;
  codeMode(facts: ScenarioFacts): CodeModeSteps;
  /** The ideal tool-per-operation sequence, made for real; returns the answer it leads to. */
  toolPerOperation(api: ApiCaller, facts: ScenarioFacts): Promise<unknown>;
  /**
   * Called before the task runs (writes change the state), returns the check for the answer;
   * the check may also look at the state afterwards. An empty list means the answer is right.
   */
  expect(truth: Truth): AnswerCheck;
}

/** Read access to the simulator's own state: the ground truth answers are checked against. */
export class Truth {
  constructor(
    readonly sim: RunningSimulator,
    readonly facts: ScenarioFacts,
  ) {}

  get state(): ClusterState {
    return this.sim.cluster.state;
  }

  guests(): Guest[] {
    return this.sim.cluster.guests();
  }

  runtime(): { guests: Map<number, GuestRuntime>; nodes: Map<string, NodeRuntime> } {
    return this.state.runtimeSnapshot();
  }

  nowSec(): number {
    return this.state.nowSec();
  }
}

/** Validates an answer's shape; a wrong shape is reported as the only problem. */
export function checked<S extends z.ZodType>(schema: S, answer: unknown, check: (value: z.output<S>) => string[]): string[] {
  const parsed = schema.safeParse(answer);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return [`answer has the wrong shape at ${first?.path.join('.') || '(root)'}: ${first?.message ?? 'invalid'} (got ${preview(answer)})`];
  }
  return check(parsed.data);
}

/** Differences between two sets of IDs, named by what they are. */
export function sameIds(what: string, actual: Iterable<number | string>, expected: Iterable<number | string>): string[] {
  const a = new Set(actual);
  const e = new Set(expected);
  const missing = [...e].filter((x) => !a.has(x));
  const extra = [...a].filter((x) => !e.has(x));
  const out: string[] = [];
  if (missing.length > 0) out.push(`${what}: missing ${list(missing)}`);
  if (extra.length > 0) out.push(`${what}: unexpected ${list(extra)}`);
  return out;
}

export function sameValue(what: string, actual: unknown, expected: unknown): string[] {
  return JSON.stringify(actual) === JSON.stringify(expected) ? [] : [`${what}: got ${preview(actual)}, expected ${preview(expected)}`];
}

/** An `asOf` (epoch seconds) a script took from its own clock must lie within the benchmark run. */
export function plausibleAsOf(asOf: number, truth: Truth): string[] {
  const now = Math.floor(Date.now() / 1000);
  return asOf >= truth.nowSec() - 5 && asOf <= now + 5 ? [] : [`asOf ${asOf} is outside the run (${truth.nowSec()}..${now})`];
}

function list(values: Array<number | string>): string {
  const shown = values.slice(0, 8).join(', ');
  return values.length > 8 ? `${shown} … (${values.length})` : shown;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}
