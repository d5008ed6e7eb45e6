/**
 * The console's pages, as escaped HTML: the plans waiting for a decision, one plan with its steps
 * (what each changes, its blast radius when the plan has one, why it needs approval, the guests it
 * reaches), what the plan cannot undo, and the approve/decline forms, and the recent runs from the audit.
 */
import type { DescribeResult } from '../../describe/index.js';
import { VERDICT_TEXT } from '../../describe/verdict.js';
import type { StoredPlanStatus } from '../../safety/approval.js';
import type { SearchHit } from '../../search/hit.js';
import type { RunScriptOutput } from '../tools/run-script.js';
import type { BlastRadius } from '../../safety/blast-radius.js';
import type { PlannedWrite } from '../../safety/plan.js';
import { html, type Html } from './html.js';
import type { RecentRun } from './runs.js';

export function loginView(options: { provider?: string; next: string; error?: string }): Html {
  const how = options.provider
    ? html`<p><a class="button" href="/console/login?next=${encodeURIComponent(options.next)}">Sign in with ${options.provider}</a></p>`
    : html`<p>This console signs in with a one-time link: run <code>pve-code-mcp console</code> on the server host and open the link it prints.</p>`;
  return html`${options.error ? html`<p class="error">${options.error}</p>` : ''}<h2>Sign in</h2>${how}`;
}

export interface PlanRow {
  status: StoredPlanStatus;
  waiting: boolean;
}

export function plansView(rows: PlanRow[], notice?: string): Html {
  const body =
    rows.length === 0
      ? html`<p>No plan is waiting for approval.</p>`
      : html`<table><thead><tr><th>Plan</th><th>Asked by</th><th>Created</th><th>Status</th><th>What it does</th></tr></thead><tbody>${rows.map((r) => planRow(r))}</tbody></table>`;
  return html`${notice ? html`<p class="notice">${notice}</p>` : ''}<h2>Plans waiting for a decision</h2>${body}`;
}

function planRow({ status, waiting }: PlanRow): Html {
  const p = status.plan;
  const first = p.writes.slice(0, 3);
  const more = p.writes.length - first.length;
  return html`<tr><td><a href="/console/plans/${p.planId}"><code>${p.planId.slice(0, 12)}</code></a></td><td>${status.requestedBy.join(', ') || 'local'}</td><td>${p.createdAt}</td><td class="status">${status.status}${waiting ? ' · a client is waiting' : ''}</td><td>${first.map((w) => html`<div>${w.change?.summary ?? `${w.method} ${w.path}`}${w.blastRadius ? radiusMark(w.blastRadius) : ''}</div>`)}${more > 0 ? html`<div>and ${more} more</div>` : ''}</td></tr>`;
}

/** In the list: that a step reaches further, and whether severely or unreadably, so it is opened first. */
function radiusMark(r: BlastRadius): Html {
  const severe = r.items.some((i) => i.severe);
  return html`<div class="${severe || !r.complete ? 'bad' : ''}">blast radius: ${r.summary}${severe ? ' (severe)' : ''}${r.complete ? '' : ' (could not be read: counts as the worst case)'}</div>`;
}

export interface PlanPageState {
  status: StoredPlanStatus;
  waiting: boolean;
  /** Four eyes for the asker(s): who must approve. */
  requirement?: string;
  csrf: string;
  canDecide: boolean;
  notice?: string;
  error?: string;
}

export function planView(s: PlanPageState): Html {
  const p = s.status.plan;
  const needing = p.writes.filter((w) => w.needsApproval).length;
  const requesters = s.status.requestedBy;
  const forField = requesters.length > 1 ? html`<label>For <select name="for">${requesters.map((r) => html`<option value="${r}">${r}</option>`)}</select></label>` : html``;
  const actions =
    s.canDecide && s.status.status === 'pending'
      ? html`<div class="actions">
<form method="post" action="/console/plans/${p.planId}/approve"><input type="hidden" name="csrf" value="${s.csrf}">${forField}<button class="approve" type="submit">${p.writes.length === 1 ? 'Approve this change' : `Approve these ${p.writes.length} changes`}</button></form>
<form method="post" action="/console/plans/${p.planId}/decline"><input type="hidden" name="csrf" value="${s.csrf}"><button class="decline" type="submit">Decline</button></form>
</div>`
      : html``;
  const approval = s.status.approval
    ? html`<p>Approved by <b>${s.status.approval.approvedBy}</b> at ${s.status.approval.approvedAt}, valid until ${s.status.approval.expiresAt}${s.status.approval.requestedBy ? html` for ${s.status.approval.requestedBy}` : ''}.</p>`
    : html``;
  const ran = s.status.lastRun ? html`<p>Last run ${s.status.lastRun.runId} at ${s.status.lastRun.at}.</p>` : html``;
  return html`${s.notice ? html`<p class="notice">${s.notice}</p>` : ''}${s.error ? html`<p class="error">${s.error}</p>` : ''}
<h2>Plan <code>${p.planId.slice(0, 12)}</code></h2>
<table><tbody>
<tr><th>Status</th><td class="status">${s.status.status}${s.waiting ? ' · a client is waiting for this decision' : ''}</td></tr>
<tr><th>Asked by</th><td>${requesters.join(', ') || 'a local run (no remote principal)'}</td></tr>
<tr><th>Created</th><td>${p.createdAt}</td></tr>
<tr><th>Policy</th><td>${p.policy}</td></tr>
<tr><th>Changes</th><td>${p.writes.length} planned, ${needing} need${needing === 1 ? 's' : ''} approval</td></tr>
${radiusRow(p.writes)}
${s.requirement ? html`<tr><th>Four eyes</th><td>${s.requirement}</td></tr>` : ''}
<tr><th>Plan id</th><td><code>${p.planId}</code></td></tr>
</tbody></table>
${approval}${ran}${notesView(p.notes)}${actions}
<h2>Steps</h2>
${p.writes.map((w) => stepView(w))}
${p.refused && p.refused.length > 0 ? html`<h2>Refused by the policy (never sent)</h2><ul>${p.refused.map((r) => html`<li><code>${r.method} ${r.path}</code>: ${r.message}</li>`)}</ul>` : ''}`;
}

/** The plan's blast radii in one line, so a severe or unreadable one is seen before the buttons. */
function radiusRow(writes: readonly PlannedWrite[]): Html {
  const radii = writes.flatMap((w) => (w.blastRadius ? [{ seq: w.seq, r: w.blastRadius }] : []));
  if (radii.length === 0) return html``;
  const severe = radii.reduce((n, x) => n + x.r.items.filter((i) => i.severe).length, 0);
  const partial = radii.filter((x) => !x.r.complete).map((x) => x.seq);
  return html`<tr><th>Blast radius</th><td>${radii.map((x) => html`<div><a href="#step-${x.seq}">step ${x.seq}</a>: ${x.r.summary}</div>`)}${severe > 0 ? html`<div class="bad">${severe} severe effect${severe === 1 ? '' : 's'} (marked below)</div>` : ''}${partial.length > 0 ? html`<div class="bad">step ${partial.join(', ')}: could not be read, counts as the worst case</div>` : ''}</td></tr>`;
}

function stepView(w: PlannedWrite): Html {
  const targets = w.targets.map((t) => `${t.name ?? t.type ?? 'guest'} ${t.vmid}${t.node ? ` on ${t.node}` : ''}${t.exists ? '' : ' (does not exist yet)'}`);
  const params = Object.keys(w.params).length > 0 ? JSON.stringify(w.params, null, 1) : '';
  return html`<section class="step" id="step-${w.seq}">
<div class="summary">${w.seq}. ${w.change?.summary ?? `${w.method} ${w.path}`}</div>
${w.change && w.change.lines.length > 0 ? html`<ul class="change">${w.change.lines.map((l) => html`<li>${l}</li>`)}</ul>` : ''}
${blastView(w.blastRadius)}
<div><span class="risk ${w.risk}">${w.risk}</span> ${w.needsApproval ? html`<span class="needs">needs approval</span>` : ''}${w.why ? html` — ${w.why}` : ''}</div>
<div><code>${w.method} ${w.path}</code>${w.cluster ? html` on cluster <b>${w.cluster}</b>` : ''}</div>
${targets.length > 0 ? html`<div>Guests: ${targets.join('; ')}</div>` : ''}
${params ? html`<pre>${params}</pre>` : ''}
</section>`;
}

/**
 * A step's blast radius: the summary first, then each thing reached and what happens to it, severe
 * effects marked; a radius whose reads failed says it counts as the worst case and which reads.
 */
function blastView(radius: BlastRadius | undefined): Html {
  if (!radius) return html``;
  const incomplete = !radius.complete
    ? html`<div class="incomplete"><b>Could not be read: counts as the worst case.</b>${radius.failed.length > 0 ? html` Failed reads:<ul>${radius.failed.map((f) => html`<li><code>${f}</code></li>`)}</ul>` : ' A bound was hit, so it may reach more than listed.'}</div>`
    : html``;
  const items =
    radius.items.length > 0
      ? html`<ul class="items">${radius.items.map((i) => html`<li class="${i.severe ? 'severe' : ''}" data-kind="${i.kind}">${i.severe ? html`<span class="sev">severe</span> ` : ''}<b>${i.what}</b>: ${i.effect}</li>`)}</ul>`
      : html``;
  const reads =
    radius.reads.length > 0
      ? html`<details><summary>Read from ${radius.reads.length} call${radius.reads.length === 1 ? '' : 's'}</summary><ul>${radius.reads.map((r) => html`<li><code>${r}</code></li>`)}</ul></details>`
      : html``;
  return html`<div class="blast${radius.complete ? '' : ' partial'}" data-family="${radius.family}"><div><b>Blast radius</b> <span class="family">${radius.family}</span>: <span class="blast-summary">${radius.summary}</span></div>${incomplete}${items}${reads}</div>`;
}

/** What the plan says besides its steps: what an undo cannot reverse, safety snapshots. */
function notesView(notes: readonly string[] | undefined): Html {
  if (!notes || notes.length === 0) return html``;
  return html`<section class="notes"><h2>Before you approve</h2><ul>${notes.map((n) => {
    const m = /^not undone: ([\s\S]*)$/.exec(n);
    return m ? html`<li class="not-undone"><b>Not undone:</b> ${m[1] ?? ''}</li>` : html`<li>${n}</li>`;
  })}</ul></section>`;
}

export function runsView(runs: RecentRun[], chain: { ok: boolean; text: string }): Html {
  return html`<h2>Recent runs</h2>
<p>Audit chain: <span class="${chain.ok ? 'ok' : 'bad'}">${chain.text}</span></p>
${runs.length === 0 ? html`<p>No run in the audit yet.</p>` : html`<table><thead><tr><th>Started</th><th>Who</th><th>Mode</th><th>Changes sent</th><th>Approval</th><th>Outcome</th></tr></thead><tbody>${runs.map((r) => runRow(r))}</tbody></table>`}`;
}

function runRow(r: RecentRun): Html {
  const changes = r.changes.filter((c) => c.phase !== 'probe' && c.phase !== 'dry-run');
  const outcome = r.ended ? (r.ended.ok ? html`<span class="ok">ok</span>` : html`<span class="bad">${r.ended.blocked ?? r.ended.error ?? 'failed'}</span>`) : html`running`;
  return html`<tr><td>${r.startedAt}</td><td>${r.principal}</td><td>${r.mode ?? (r.dryRun ? 'dry-run' : '')}${r.planId ? html`<br><a href="/console/plans/${r.planId}"><code>${r.planId.slice(0, 12)}</code></a>` : ''}</td>
<td>${changes.length === 0 ? html`none (${r.reads} read${r.reads === 1 ? '' : 's'})` : changes.map((c) => html`<div><code>${c.method} ${c.path}</code> → ${c.outcome ?? c.status ?? '?'}</div>`)}</td><td>${r.approval ?? ''}</td><td>${outcome}</td></tr>`;
}

export function messageView(title: string, text: string, link?: { href: string; label: string }): Html {
  return html`<h2>${title}</h2><p>${text}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}`;
}

export function exploreView(query: string, hits: SearchHit[]): Html {
  const form = html`<form method="get" action="/console/explore"><label>Search the API by intent <input name="q" value="${query}" size="50" placeholder="stop a virtual machine"></label> <button type="submit">Search</button></form>`;
  if (query === '') return html`<h2>API explorer</h2>${form}`;
  const rows = hits.map(
    (h) =>
      html`<tr><td><a href="/console/explore/op?spec=${encodeURIComponent(`${h.method} ${h.path}`)}"><code>${h.method} ${h.path}</code></a></td><td>${h.summary}</td><td><span class="risk ${h.risk}">${h.risk}</span></td><td>${h.verdict ?? ''}${h.raisedBy && h.raisedBy.length > 0 ? html`<br>raised by: ${h.raisedBy.join(', ')}` : ''}</td></tr>`,
  );
  return html`<h2>API explorer</h2>${form}${hits.length === 0 ? html`<p>Nothing matches.</p>` : html`<table><thead><tr><th>Operation</th><th>What it does</th><th>Risk</th><th>Your policy</th></tr></thead><tbody>${rows}</tbody></table>`}`;
}

export interface OperationPage {
  spec: string;
  described: DescribeResult;
  code: string;
  csrf: string;
  tried?: RunScriptOutput;
}

export function operationView(s: OperationPage): Html {
  const ops = s.described.operations;
  if (ops.length === 0) {
    const near = s.described.notFound.flatMap((n) => n.suggestions);
    return html`<h2>No operation ${s.spec}</h2>${near.length > 0 ? html`<p>Nearest: ${near.map((n) => html`<a href="/console/explore/op?spec=${encodeURIComponent(n)}"><code>${n}</code></a> `)}</p>` : ''}`;
  }
  return html`<p><a href="/console/explore">← Search</a></p>${ops.map(
    (op) => html`<section class="step">
<div class="summary"><code>${op.method} ${op.path}</code> <span class="risk ${op.risk}">${op.risk}</span></div>
<div>Permission: ${op.permission}</div>
${op.verdict ? html`<div>Your policy (${op.verdict.policy} on ${op.verdict.cluster}): <b>${VERDICT_TEXT[op.verdict.verdict]}</b> — ${op.verdict.rule}${op.verdict.why ? html`; ${op.verdict.why}` : ''}</div>${op.verdict.raisedBy.length > 0 ? html`<div>Raised by: ${op.verdict.raisedBy.map((r) => html`<div><code>${r.param}</code> → ${r.risk} (${VERDICT_TEXT[r.verdict]}): ${r.reason}</div>`)}</div>` : ''}` : ''}
<pre class="signature">${op.signature}</pre>
</section>`,
  )}
<h2>Try it</h2>
<p>A dry-run under your policy, through the same pipeline and audit as run_script: reads run live, writes are only planned.</p>
<form method="post" action="/console/explore/try"><input type="hidden" name="csrf" value="${s.csrf}"><input type="hidden" name="spec" value="${s.spec}">
<textarea name="code" rows="6" cols="100">${s.code}</textarea><br><button type="submit">Run as a dry-run</button></form>
${s.tried ? triedView(s.tried) : ''}`;
}

function triedView(t: RunScriptOutput): Html {
  return html`<h2>Result</h2><p class="${t.ok ? 'ok' : 'bad'}">${t.ok ? 'ok' : `${t.error?.kind ?? 'error'}: ${t.error?.message ?? ''}`} (${t.stats.mode}${t.stats.ms !== undefined ? `, ${t.stats.ms} ms` : ''})</p>
${t.result !== undefined ? html`<pre class="result">${JSON.stringify(t.result, null, 1)}</pre>` : ''}
${t.plan && t.plan.writes.length > 0 ? html`<h2>Planned writes (nothing was sent)</h2>${t.plan.writes.map((w) => html`<div class="step">${w.seq}. ${w.change?.summary ?? `${w.method} ${w.path}`} <span class="risk ${w.risk}">${w.risk}</span>${w.needsApproval ? html` <span class="needs">needs approval</span>` : ''}${blastView(w.blastRadius)}</div>`)}<p>Plan <a href="/console/plans/${t.plan.planId}"><code>${t.plan.planId.slice(0, 12)}</code></a></p>` : ''}`;
}
