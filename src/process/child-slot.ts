/**
 * `ChildSlot`: the place one child process serves from (the words are supervisor.ts's), where it
 * is counted, recycled, replaced and, when idle, stopped. Apart from the supervisor because it
 * knows nothing of processes: it holds whatever starts, is ready, counts its uses and can be
 * killed, which is also how its tests drive it.
 */

/** What a ChildSlot needs of the children it holds (a SupervisedChild, or a handle around one). */
export interface SlotChild {
  readonly ready: Promise<void>;
  readonly isAlive: boolean;
  readonly uses: number;
  kill(): void;
}

export interface ChildSlotOptions<C extends SlotChild> {
  /** Spawns a child process for the slot. */
  start(): C;
  /**
   * What a replacement started by `replace()` does after its ready message and before it serves
   * (warm-up). Throwing means it cannot serve: it is killed.
   */
  prepare?(child: C): Promise<void>;
  /** Replace a child after this many uses (default: never). */
  recycleAfterUses?: number;
  /** Once per `replace()` start: without an error when the replacement is ready, else with why not. */
  started?(error?: unknown): void;
}

/**
 * Where one child process serves from, and how it is replaced (and, when idle, stopped: `stop`).
 * Two ways, one per kind of child:
 * - at once (`acquire`, `retire`): the sandbox worker. A retired child is killed and the next
 *   `acquire` starts a new one, which its user awaits (`ready`).
 * - overlapped (`replace`, `promote`): the type-check process. A replacement is started and
 *   prepared in the background while the old one keeps serving, becomes the standby, and takes
 *   over at the next `promote` while the slot is not `busy`; the old one gets SIGKILL.
 */
export class ChildSlot<C extends SlotChild> {
  /** Children started, and serving children replaced on purpose (not lost). */
  started = 0;
  recycled = 0;
  /** While set, `promote` waits (a request is in flight on the serving child). */
  busy = false;
  private serving: C | undefined;
  private standby: C | undefined;
  private spawning: C | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: ChildSlotOptions<C>) {}

  /** The serving child while it is alive. */
  get current(): C | undefined {
    return this.serving?.isAlive ? this.serving : undefined;
  }

  /** Whether a replacement is on its way or waiting to take over. */
  get replacing(): boolean {
    return this.starting !== undefined || this.standby !== undefined;
  }

  /** Whether `child` has served its number of uses. */
  due(child: C): boolean {
    return child.uses >= (this.options.recycleAfterUses ?? Number.POSITIVE_INFINITY);
  }

  /** The serving child, or a new one started now (ready or not: await its `ready`). */
  acquire(): C {
    const current = this.current;
    if (current) return current;
    this.started++;
    const child = this.options.start();
    this.serving = child;
    return child;
  }

  /** Kills the serving child on purpose; the next `acquire` starts a new one. */
  retire(): void {
    if (!this.serving) return;
    this.serving.kill();
    this.serving = undefined;
    this.recycled++;
  }

  /**
   * Kills the serving child and a waiting standby because nothing needs them now (idle), without
   * counting them recycled; the next `acquire` or `replace` starts anew. A replacement on its way
   * still arrives.
   */
  stop(): void {
    const gone = [this.serving, this.standby];
    this.serving = undefined;
    this.standby = undefined;
    for (const child of gone) child?.kill();
  }

  /**
   * Starts and prepares a replacement in the background, unless one is on its way; it becomes the
   * standby and takes over at `promote`. Rejects when it could not start.
   */
  replace(): Promise<void> {
    if (this.starting) return this.starting;
    const starting = this.startPrepared()
      .then((child) => {
        if (this.closed) return child.kill();
        this.options.started?.();
        this.standby?.kill();
        this.standby = child;
        this.promote();
      })
      .catch((err: unknown) => {
        if (!this.closed) this.options.started?.(err);
        throw err;
      })
      .finally(() => {
        if (this.starting === starting) this.starting = undefined;
      });
    // Background starts have no one awaiting them; `started` hears of the failure.
    starting.catch(() => undefined);
    this.starting = starting;
    return starting;
  }

  /** Lets a waiting standby take over unless the slot is busy; the old child gets SIGKILL. */
  promote(): void {
    if (this.busy || !this.standby) return;
    if (!this.standby.isAlive) {
      this.standby = undefined;
      return;
    }
    const old = this.serving;
    this.serving = this.standby;
    this.standby = undefined;
    if (old) {
      if (old.isAlive) this.recycled++;
      old.kill();
    }
  }

  /** Forgets a child that is gone; says whether it was serving or the standby (else it was not this slot's). */
  drop(child: C): 'serving' | 'standby' | undefined {
    if (child === this.serving) {
      this.serving = undefined;
      return 'serving';
    }
    if (child === this.standby) {
      this.standby = undefined;
      return 'standby';
    }
    return undefined;
  }

  /** Kills every child of the slot, one being started included; `replace` starts nothing after. */
  close(): void {
    this.closed = true;
    for (const child of [this.serving, this.standby, this.spawning]) child?.kill();
    this.serving = undefined;
    this.standby = undefined;
  }

  private async startPrepared(): Promise<C> {
    this.started++;
    const child = this.options.start();
    this.spawning = child;
    try {
      await child.ready;
      await this.options.prepare?.(child);
      return child;
    } catch (err) {
      child.kill();
      throw err;
    } finally {
      this.spawning = undefined;
    }
  }
}
