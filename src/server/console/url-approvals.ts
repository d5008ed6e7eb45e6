/**
 * URL-mode elicitation (MCP 2025-11-25) for approvals: a run whose plan needs approval, from a
 * client that declares `elicitation.url`, ends at once with URLElicitationRequiredError (-32042)
 * naming the console's page of the plan. When a person decides there, the session that asked gets
 * `notifications/elicitation/complete` and the client retries the same call: an approval recorded
 * by the console is claimed by that retry like any operator approval; a decline is answered to it
 * once. Why the call ends instead of waiting: docs/console.md, "URL-mode elicitation".
 */
import { randomUUID } from 'node:crypto';

export interface UrlElicitationAsk {
  elicitationId: string;
  url: string;
  message: string;
}

interface Pending extends UrlElicitationAsk {
  planId: string;
  principal: string | undefined;
  expiresAt: number;
  notify: () => Promise<void>;
}

export class UrlApprovals {
  private origin?: string;
  private readonly pending = new Map<string, Pending>();
  /** Plans declined in the console, by plan id: answered once to the next run of each asker. */
  private readonly declines = new Map<string, { by: string; at: number }>();

  constructor(
    /** Whether the console can show a plan (it is in the store): a plan it cannot show is never sent to it. */
    private readonly shows: (planId: string) => boolean,
    /** How long an elicitation stays open: a retry after that asks again with a new one. */
    private readonly ttlMs = 15 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a person can decide on this plan in the console (the console is up and has the plan). */
  canAsk(planId: string): boolean {
    return this.origin !== undefined && this.shows(planId);
  }

  /** The console's origin, known once the listener is up (the port may be 0 until then). */
  bind(origin: string): void {
    this.origin = origin;
  }

  get available(): boolean {
    return this.origin !== undefined;
  }

  /** The console's page of a plan; the MCP Apps plan view links to the same address. */
  planUrl(planId: string): string {
    if (!this.origin) throw new Error('the console is not bound to an address yet');
    return `${this.origin}/console/plans/${planId}`;
  }

  /**
   * The elicitation for a principal's plan: the open one when there is one (a retry before anyone
   * decided gets the same id), else a new one whose completion `notifier(id)` sends.
   */
  ask(planId: string, principal: string | undefined, notifier: (elicitationId: string) => () => Promise<void>): UrlElicitationAsk {
    this.sweep();
    for (const p of this.pending.values()) {
      if (p.planId === planId && p.principal === principal) return { elicitationId: p.elicitationId, url: p.url, message: p.message };
    }
    const elicitationId = randomUUID();
    const url = this.planUrl(planId);
    const message = `Proxmox writes need your approval. Open the console, sign in, check plan ${planId.slice(0, 12)} and approve or decline it; then the call is retried.`;
    this.pending.set(elicitationId, { elicitationId, url, message, planId, principal, expiresAt: this.now() + this.ttlMs, notify: notifier(elicitationId) });
    return { elicitationId, url, message };
  }

  /** Whether the plan was declined in the console since it was last asked; answered once. */
  takeDecline(planId: string): { by: string } | undefined {
    const d = this.declines.get(planId);
    if (!d) return undefined;
    this.declines.delete(planId);
    return { by: d.by };
  }

  /** Whether someone is waiting for a decision on this plan (the console says so on its page). */
  waiting(planId: string): boolean {
    this.sweep();
    return [...this.pending.values()].some((p) => p.planId === planId);
  }

  /**
   * A person decided in the console: the sessions waiting on this plan (for `forPrincipal` when
   * the approval was for one asker; every asker for a decline) are told their elicitation is
   * complete. Answers how many were told.
   */
  async decided(planId: string, decision: 'approved' | 'declined', by: string, forPrincipal?: string): Promise<number> {
    if (decision === 'declined') this.declines.set(planId, { by, at: this.now() });
    const done = [...this.pending.values()].filter((p) => p.planId === planId && (decision === 'declined' || forPrincipal === undefined || p.principal === forPrincipal));
    for (const p of done) this.pending.delete(p.elicitationId);
    // A session that went away cannot be told; its client retries or gives up on its own clock.
    const sent = await Promise.all(
      done.map((p) =>
        p.notify().then(
          () => 1,
          () => 0,
        ),
      ),
    );
    return sent.reduce<number>((a, b) => a + b, 0);
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, p] of this.pending) if (p.expiresAt <= now) this.pending.delete(id);
    for (const [id, d] of this.declines) if (d.at + this.ttlMs <= now) this.declines.delete(id);
  }
}
