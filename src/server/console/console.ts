/**
 * The web console under `/console/`: pending plans with their changes and verdicts, approve or
 * decline as the logged-in person, recent runs from the audit. Served by `serve --http` (OpenID
 * Connect login in OAuth mode) and by `pve-code-mcp console` on 127.0.0.1 (one-time login link).
 *
 * Every decision goes through `ApprovalStore.approve`, the one decision function `POST /approvals`
 * and `pve-code-mcp approve` use: the same principals, approver groups and four eyes. Every POST
 * needs the session cookie, the session's CSRF token in the form and the console's own Origin.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditEntry } from '../../audit/entry.js';
import { type ApprovalStore, type StoredPlanStatus } from '../../safety/approval.js';
import { ApprovalError } from '../../safety/approval-errors.js';
import type { AuthOutcome } from '../auth/principal.js';
import { page, sendHtml, STYLESHEET, SECURITY_HEADERS } from './html.js';
import { exampleScript, type ExplorerBackend } from './explorer.js';
import { OidcLogin, OidcLoginError, type OidcClientSettings } from './oidc.js';
import { recentRuns } from './runs.js';
import { ConsoleSessions, sameSecret, type ConsoleSession, type ConsoleUser } from './sessions.js';
import type { UrlApprovals } from './url-approvals.js';
import { exploreView, loginView, messageView, operationView, plansView, planView, runsView } from './views.js';

export const CONSOLE_PATH = '/console';

export interface ConsoleOptions {
  /** The approvals store, not bound to a principal: the console shows every asker's plans. */
  store: ApprovalStore;
  /** The audit's newest entries (the current file's tail, or the database's newest rows): recent runs are read from them. */
  recentEntries(): AuditEntry[];
  /** Whether the audit's hash chain verifies, in a line. */
  verifyChain(): { ok: boolean; text: string };
  /** Sessions waiting on a plan through URL-mode elicitation (told when it is decided). */
  urls?: UrlApprovals;
  sessionMinutes: number;
  /** OpenID Connect login (OAuth mode); without it the console logs in with one-time links only. */
  oidc?: Omit<OidcClientSettings, 'resource'>;
  /** The API explorer (a server with clusters; not the local console). */
  explorer?: ExplorerBackend;
  /** A decision was recorded (for the audit). */
  onDecision?(event: { planId: string; decision: 'approve' | 'decline'; by: ConsoleUser; for?: string; expiresAt?: string }): void;
}

/** What the HTTP host tells the console once it listens. */
export interface ConsoleBinding {
  /** The console's origin as browsers reach it (the public URL's, else the listen address). */
  origin: string;
  tls: boolean;
  /** OAuth mode: checks an access token exactly as the MCP endpoint and /approvals do. */
  authenticate?(authorization: string): Promise<AuthOutcome>;
  /** OAuth mode: the MCP resource (the access token's audience). */
  resource?: string;
}

const PLAN_PATH = /^\/console\/plans\/([0-9a-f]{64})(?:\/(approve|decline))?$/;
const MAX_FORM_BYTES = 8 * 1024;

export class WebConsole {
  private binding?: ConsoleBinding;
  private oidc?: OidcLogin;
  readonly sessions: ConsoleSessions;

  constructor(private readonly options: ConsoleOptions) {
    this.sessions = new ConsoleSessions(options.sessionMinutes * 60_000);
  }

  bind(binding: ConsoleBinding): void {
    this.binding = binding;
    this.sessions.setTls(binding.tls);
    this.options.urls?.bind(binding.origin);
    if (this.options.oidc && binding.authenticate && binding.resource) {
      this.oidc = new OidcLogin({ ...this.options.oidc, resource: binding.resource });
    }
  }

  /** A one-time login link for the host operator (the local console prints it). */
  loginLink(user: ConsoleUser): string {
    return `${this.origin()}${CONSOLE_PATH}/auth/${this.sessions.oneTimeLink(user)}`;
  }

  private origin(): string {
    if (!this.binding) throw new Error('the console is not bound to an address yet');
    return this.binding.origin;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (method === 'POST') return this.post(req, res, path);
    if (method !== 'GET' && method !== 'HEAD') {
      res.writeHead(405, { ...SECURITY_HEADERS, Allow: 'GET, POST' }).end();
      return;
    }
    if (path === `${CONSOLE_PATH}/style.css`) {
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'max-age=300' }).end(STYLESHEET);
      return;
    }
    if (path === `${CONSOLE_PATH}/login`) return this.login(res, safeNext(url.searchParams.get('next')));
    if (path === `${CONSOLE_PATH}/callback`) return this.callback(req, res, url);
    if (path.startsWith(`${CONSOLE_PATH}/auth/`)) return this.redeem(res, path.slice(`${CONSOLE_PATH}/auth/`.length));
    const session = this.sessions.of(req);
    if (!session) {
      sendHtml(res, 401, page({ title: 'Sign in' }, loginView({ ...(this.oidc ? { provider: this.options.oidc?.issuer ?? '' } : {}), next: safeNext(path) })));
      return;
    }
    if (path === CONSOLE_PATH || path === `${CONSOLE_PATH}/`) return this.plans(res, session, url.searchParams.get('notice') ?? undefined);
    if (path === `${CONSOLE_PATH}/runs`) return this.runs(res, session);
    if (this.options.explorer && path === `${CONSOLE_PATH}/explore`) return this.explore(res, session, (url.searchParams.get('q') ?? '').slice(0, 200));
    if (this.options.explorer && path === `${CONSOLE_PATH}/explore/op`) return this.operation(res, session, (url.searchParams.get('spec') ?? '').slice(0, 300));
    const m = PLAN_PATH.exec(path);
    if (m?.[1] && !m[2]) return this.plan(res, session, m[1], { ...(url.searchParams.get('done') ? { notice: doneNotice(url.searchParams.get('done') ?? '') } : {}) });
    sendHtml(res, 404, page({ title: 'Not found', ...this.chrome(session) }, messageView('Not found', 'There is no such page in the console.', { href: '/console/', label: 'Plans' })));
  }

  /** The header's signed-in line and links. */
  private chrome(session: ConsoleSession): { user: { id: string; csrf: string }; explorer: boolean } {
    return { user: { id: session.user.id, csrf: session.csrf }, explorer: this.options.explorer !== undefined };
  }

  private plans(res: ServerResponse, session: ConsoleSession, notice?: string): void {
    const rows = this.options.store
      .list()
      .filter((s) => s.status !== 'ran' && s.plan.writes.some((w) => w.needsApproval) && this.mayView(session.user, s))
      .map((status) => ({ status, waiting: this.options.urls?.waiting(status.plan.planId) ?? false }));
    sendHtml(res, 200, page({ title: 'Plans', ...this.chrome(session) }, plansView(rows, notice)));
  }

  private runs(res: ServerResponse, session: ConsoleSession): void {
    const runs = recentRuns(this.options.recentEntries(), { limit: 30, ...(session.user.canApprove ? {} : { principal: session.user.id }) });
    sendHtml(res, 200, page({ title: 'Runs', ...this.chrome(session) }, runsView(runs, this.options.verifyChain())));
  }

  private plan(res: ServerResponse, session: ConsoleSession, planId: string, extra: { notice?: string; error?: string }, status = 200): void {
    let plan: StoredPlanStatus | undefined;
    try {
      plan = this.options.store.status(planId);
    } catch (err) {
      return sendHtml(res, 409, page({ title: 'Plan', ...this.chrome(session) }, messageView('This plan cannot be shown', err instanceof Error ? err.message : String(err))));
    }
    if (!plan || !this.mayView(session.user, plan)) {
      return sendHtml(
        res,
        404,
        page(
          { title: 'No such plan', ...this.chrome(session) },
          messageView('No such plan', `There is no stored plan ${planId} you may see. The agent runs its script with dryRun: true to store one.`, { href: '/console/', label: 'Plans' }),
        ),
      );
    }
    const requirement = plan.requestedBy
      .map((r) => ({ r, req: this.options.store.approversFor(planId, r) }))
      .filter((x) => x.req !== undefined)
      .map((x) => `${x.r}'s plan needs another person's approval${x.req?.group !== undefined ? ` (a member of group '${x.req.group}')` : ''}`)
      .join('; ');
    sendHtml(
      res,
      status,
      page(
        { title: `Plan ${planId.slice(0, 12)}`, ...this.chrome(session) },
        planView({
          status: plan,
          waiting: this.options.urls?.waiting(planId) ?? false,
          ...(requirement ? { requirement } : {}),
          csrf: session.csrf,
          canDecide: this.mayDecide(session.user, plan),
          ...extra,
        }),
      ),
    );
  }

  private async explore(res: ServerResponse, session: ConsoleSession, query: string): Promise<void> {
    const hits = query.trim() === '' ? [] : ((await this.options.explorer?.search(query, session.user)) ?? []);
    sendHtml(res, 200, page({ title: 'Explorer', ...this.chrome(session) }, exploreView(query, hits)));
  }

  /** An operation's page; with `code`, after trying it as a dry-run. */
  private async operation(res: ServerResponse, session: ConsoleSession, spec: string, code?: string): Promise<void> {
    const explorer = this.options.explorer as ExplorerBackend;
    const described = explorer.describe(spec, session.user);
    const example = described.operations[0] ? exampleScript(described.operations[0].signature) : '';
    const tried = code !== undefined && code.trim() !== '' ? await explorer.tryScript(code, session.user) : undefined;
    sendHtml(res, 200, page({ title: spec, ...this.chrome(session) }, operationView({ spec, described, code: code ?? example, csrf: session.csrf, ...(tried ? { tried } : {}) })));
  }

  /** Approvers see every plan; others see the plans they asked for. */
  private mayView(user: ConsoleUser, s: StoredPlanStatus): boolean {
    return user.canApprove || s.requestedBy.includes(user.id);
  }

  /** Approvers decide on any plan, others on their own (the store then applies four eyes). */
  private mayDecide(user: ConsoleUser, s: StoredPlanStatus): boolean {
    return this.mayView(user, s);
  }

  private async post(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    // CSRF, first line: a form on another site carries its own Origin (browsers always send one on POST).
    const origin = req.headers.origin;
    if (!this.sameOrigin(req, origin)) return forbidden(res, `this form was not sent from the console's own page (Origin ${origin ?? 'missing'})`);
    const session = this.sessions.of(req);
    if (!session) return forbidden(res, 'your console session ended: sign in again');
    const form = await readForm(req);
    if (!form) return forbidden(res, 'the form is too large or unreadable');
    // Second line: the session's synchronizer token, which another site cannot read.
    if (!sameSecret(form.get('csrf') ?? undefined, session.csrf)) return forbidden(res, 'the form is stale or forged (CSRF token mismatch): reload the page and try again');
    if (path === `${CONSOLE_PATH}/logout`) {
      res.writeHead(303, { ...SECURITY_HEADERS, Location: `${CONSOLE_PATH}/`, 'Set-Cookie': this.sessions.close(req) }).end();
      return;
    }
    if (this.options.explorer && path === `${CONSOLE_PATH}/explore/try`) return this.operation(res, session, (form.get('spec') ?? '').slice(0, 300), (form.get('code') ?? '').slice(0, 20_000));
    const m = PLAN_PATH.exec(path);
    if (!m?.[1] || !m[2]) return forbidden(res, 'no such action');
    const planId = m[1];
    const forWhom = form.get('for') ?? undefined;
    if (m[2] === 'approve') return this.approve(res, session, planId, forWhom);
    return this.decline(res, session, planId);
  }

  private async approve(res: ServerResponse, session: ConsoleSession, planId: string, forWhom: string | undefined): Promise<void> {
    const user = session.user;
    try {
      const status = this.options.store.status(planId);
      if (!status || !this.mayDecide(user, status)) throw new ApprovalError(`principal '${user.id}' has no approve scope and did not ask for plan ${planId}`, 'not-an-approver');
      // The one decision function of every approval channel: principals, groups, four eyes.
      const record = this.options.store.approve(
        planId,
        user.via === 'oidc'
          ? { approver: user.id, approverGroups: user.groups, interactive: true, via: 'console', ...(forWhom ? { for: forWhom } : {}) }
          : { approvedBy: user.id, via: 'console', ...(forWhom ? { for: forWhom } : {}) },
      );
      this.options.onDecision?.({ planId, decision: 'approve', by: user, ...(record.requestedBy ? { for: record.requestedBy } : {}), expiresAt: record.expiresAt });
      await this.options.urls?.decided(planId, 'approved', user.id, record.requestedBy);
      res.writeHead(303, { ...SECURITY_HEADERS, Location: `${CONSOLE_PATH}/plans/${planId}?done=approved` }).end();
    } catch (err) {
      const code = err instanceof ApprovalError ? err.code : 'internal';
      const status = code === 'self-approval' || code === 'not-an-approver' ? 403 : code === 'no-plan' ? 404 : code === 'store-locked' || code === 'store-unavailable' ? 503 : 409;
      this.plan(res, session, planId, { error: `Not approved: ${err instanceof Error ? err.message : String(err)}` }, status);
    }
  }

  private async decline(res: ServerResponse, session: ConsoleSession, planId: string): Promise<void> {
    const status = this.options.store.status(planId);
    if (!status || !this.mayDecide(session.user, status)) return this.plan(res, session, planId, { error: 'Not declined: you may not decide on this plan' }, 403);
    this.options.onDecision?.({ planId, decision: 'decline', by: session.user });
    await this.options.urls?.decided(planId, 'declined', session.user.id);
    res.writeHead(303, { ...SECURITY_HEADERS, Location: `${CONSOLE_PATH}/plans/${planId}?done=declined` }).end();
  }

  private sameOrigin(req: IncomingMessage, origin: string | undefined): boolean {
    if (origin === undefined || !this.binding) return false;
    if (origin === this.binding.origin) return true;
    // The same server under another accepted Host name (the HTTP host already checked the Host header).
    try {
      const o = new URL(origin);
      return o.host === req.headers.host && o.protocol === (this.binding.tls ? 'https:' : 'http:');
    } catch {
      return false;
    }
  }

  private async login(res: ServerResponse, next: string): Promise<void> {
    if (!this.oidc || !this.binding) {
      return sendHtml(res, 200, page({ title: 'Sign in' }, loginView({ next })));
    }
    const login = this.sessions.beginLogin(next);
    try {
      const location = await this.oidc.authorizationUrl(`${this.binding.origin}${CONSOLE_PATH}/callback`, login);
      res.writeHead(302, { ...SECURITY_HEADERS, Location: location, 'Set-Cookie': login.cookie }).end();
    } catch (err) {
      sendHtml(res, 503, page({ title: 'Sign in' }, loginView({ provider: this.options.oidc?.issuer ?? '', next, error: err instanceof Error ? err.message : String(err) })));
    }
  }

  private async callback(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const fail = (status: number, text: string): void =>
      sendHtml(res, status, page({ title: 'Sign in failed' }, loginView({ provider: this.options.oidc?.issuer ?? '', next: `${CONSOLE_PATH}/`, error: text })), {
        'Set-Cookie': this.sessions.clearLoginCookie(),
      });
    if (!this.oidc || !this.binding?.authenticate) return fail(404, 'this console does not sign in with an identity provider');
    const state = url.searchParams.get('state') ?? '';
    const login = this.sessions.finishLogin(req, state);
    if (!login) return fail(400, 'this sign-in was not started in this browser, or it took too long: sign in again');
    const error = url.searchParams.get('error');
    if (error) return fail(401, `the identity provider refused the sign-in (${error})`);
    const code = url.searchParams.get('code');
    if (!code) return fail(400, 'the identity provider sent no authorization code');
    let user: ConsoleUser;
    let until: number | undefined;
    try {
      const { accessToken } = await this.oidc.finish(code, `${this.binding.origin}${CONSOLE_PATH}/callback`, login);
      const outcome = await this.binding.authenticate(`Bearer ${accessToken}`);
      if (!outcome.ok) return fail(outcome.status === 503 ? 503 : 403, `the access token from the sign-in is not accepted here: ${outcome.description}`);
      const p = outcome.principal;
      user = { id: p.id, via: 'oidc', groups: p.groups, canApprove: p.capabilities.has('approve'), principal: p };
      if (p.expiresAt !== undefined) until = p.expiresAt * 1000;
    } catch (err) {
      return fail(err instanceof OidcLoginError ? 401 : 500, err instanceof Error ? err.message : String(err));
    }
    const { cookie } = this.sessions.open(user, until);
    // The session cookie is SameSite=Strict, so it is not sent on this cross-site redirect chain;
    // a page of our own then navigates same-site to where the person was going.
    sendHtml(res, 200, page({ title: 'Signed in', refreshTo: login.next }, messageView('Signed in', `Signed in as ${user.id}.`, { href: login.next, label: 'Continue' })), {
      'Set-Cookie': [cookie, this.sessions.clearLoginCookie()],
    });
  }

  private redeem(res: ServerResponse, secret: string): void {
    const user = /^[A-Za-z0-9_-]{43}$/.test(secret) ? this.sessions.redeem(secret) : undefined;
    if (!user) {
      return sendHtml(
        res,
        401,
        page({ title: 'Sign in' }, messageView('This link is used up or expired', 'Each login link works once and for ten minutes: run pve-code-mcp console again for a new one.')),
      );
    }
    const { cookie } = this.sessions.open(user);
    sendHtml(res, 200, page({ title: 'Signed in', refreshTo: `${CONSOLE_PATH}/` }, messageView('Signed in', `Signed in as ${user.id}.`, { href: `${CONSOLE_PATH}/`, label: 'Continue' })), {
      'Set-Cookie': cookie,
    });
  }
}

function doneNotice(done: string): string {
  if (done === 'approved') return 'Approved. The run that asked continues when its client retries the call; otherwise the agent runs the same script again unchanged. The approval is used once.';
  if (done === 'declined') return 'Declined. Nothing was sent; the run that asked ends with this plan id.';
  return '';
}

/** Where to go after signing in: a console path only (no open redirect). */
function safeNext(next: string | null): string {
  if (next && next.startsWith(`${CONSOLE_PATH}/`) && !next.startsWith('//') && !/[\\\s]/.test(next)) return next;
  return `${CONSOLE_PATH}/`;
}

function forbidden(res: ServerResponse, why: string): void {
  sendHtml(res, 403, page({ title: 'Refused' }, messageView('Refused', why, { href: `${CONSOLE_PATH}/`, label: 'Back to the console' })));
}

/** An urlencoded form body of at most MAX_FORM_BYTES; undefined when larger or unreadable. */
function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  return new Promise((resolve) => {
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('application/x-www-form-urlencoded')) {
      req.resume();
      return resolve(undefined);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_FORM_BYTES) {
        if (!done) resolve(undefined);
        done = true;
        return;
      }
      chunks.push(c);
    });
    req.on('error', () => {
      if (!done) resolve(undefined);
      done = true;
    });
    req.on('end', () => {
      if (!done) resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      done = true;
    });
  });
}
