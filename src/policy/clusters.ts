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
  /** The main credentials: the policy's own lookups (guests, identity, previews). */
  readonly client: PveClientLike;
  /**
   * The client a call of each class goes out with (per-class tokens: a bug in the policy cannot
   * turn a read into a write), the main one for a class without a token of its own. Resolved when
   * the handle is made, so a call reads a field.
   */
  readonly byClass: Readonly<Record<RiskClass, PveClientLike>>;
}

/** Every class's client: its own token's where it has one, else `main`. */
export function classClients<C>(main: C, own: Partial<Record<RiskClass, C>> = {}): Record<RiskClass, C> {
  return { read: own.read ?? main, write: own.write ?? main, destructive: own.destructive ?? main, privileged: own.privileged ?? main };
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
