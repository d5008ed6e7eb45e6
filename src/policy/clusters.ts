/**
 * The clusters one run may reach, each resolved once into a handle: its name, its schema's model,
 * the policy the run's calls on it are decided by, and its clients. The pipeline, the preflight
 * and the bridge take these handles instead of asking the composition root again for each call.
 */
import type { PveClientLike } from '../client/client-like.js';
import type { ApiModel, RiskClass } from '../schema/model.js';
import type { Policy } from './policy.js';

export interface ClusterHandle {
  readonly name: string;
  readonly model: ApiModel;
  /** What this run's calls on the cluster are decided by (the principal's policy, after taint). */
  readonly policy: Policy;
  /**
   * The client a call of this class goes out with (per-class tokens: a bug in the policy cannot
   * turn a read into a write); the main credentials without a class, for the policy's own lookups.
   */
  client(risk?: RiskClass): PveClientLike;
}

export class RunClusters {
  private readonly handles = new Map<string, ClusterHandle>();

  /**
   * `home`: the run's own cluster, the one a call that names none goes to. `reach`: resolves
   * another cluster the first time a call names it, throwing for one that is unknown or not
   * serving; without it the run reaches its home cluster only.
   */
  constructor(
    readonly home: ClusterHandle,
    private readonly reach?: (name: string) => ClusterHandle,
  ) {
    this.handles.set(home.name, home);
  }

  /** The cluster's handle (the home cluster without a name); throws for a cluster this run cannot reach. */
  get(name: string = this.home.name): ClusterHandle {
    const known = this.handles.get(name);
    if (known) return known;
    if (!this.reach) throw new Error(`no cluster named '${name}' is configured (this run has '${this.home.name}')`);
    const handle = this.reach(name);
    this.handles.set(name, handle);
    return handle;
  }

  /** Other clusters may be reached: their policies can ask for approval where the home one does not. */
  get reachesOthers(): boolean {
    return this.reach !== undefined;
  }
}
