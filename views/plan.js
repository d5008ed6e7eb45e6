// A dry-run or approval-pending plan: its steps in order, what each changes, its verdict (runs,
// needs approval and why, refused), its blast radius when the plan carries one, what the plan
// cannot undo (its notes), and where a human approves it. There is no approve button here, by design: a view's requests go through the
// client, so they are no more trustworthy than the model (docs/security.md).

const RISK_CLASSES = ['read', 'write', 'destructive', 'privileged'];

function renderPlan(output, config, openLink) {
  const plan = output.plan;
  const approval = output.approval;
  const planId = plan?.planId ?? approval?.planId;
  const writes = plan?.writes ?? [];
  const refused = (plan?.summary ?? '').split('\n').filter((line) => line.startsWith('refused, not sent:'));
  const state = planState(output);
  return el(
    'section',
    { class: 'plan', 'data-plan-id': planId },
    el('h2', {}, `Plan ${planId ? planId.slice(0, 12) : ''}`, el('span', { class: `badge state-${state.kind}` }, state.label)),
    approval?.message ? el('p', { class: 'approval-message' }, approval.message) : undefined,
    writes.length === 0
      ? el('p', {}, 'No writes.')
      : el(
          'ol',
          { class: 'steps' },
          writes.map((write) => renderStep(write)),
        ),
    refused.length > 0
      ? el(
          'ul',
          { class: 'refused' },
          refused.map((line) => el('li', { class: 'verdict-refused' }, line)),
        )
      : undefined,
    renderNotes(plan?.notes),
    planId && writes.some((w) => w.needsApproval) ? approvalPlace(planId, config, openLink, state) : undefined,
    plan?.summary ? el('details', { class: 'summary-text' }, el('summary', {}, 'As the model reads it'), el('pre', {}, plan.summary)) : undefined,
  );
}

/** Where the run stands: planned only, waiting for a human, or run. */
function planState(output) {
  const approval = output.approval;
  if (output.stats?.mode === 'dry-run' && !approval?.required) return { kind: 'dry-run', label: 'dry run: nothing was sent' };
  if (approval?.answer === 'approved') return { kind: 'approved', label: `approved by ${approval.approvedBy ?? 'a human'}` };
  if (approval?.answer === 'four-eyes') return { kind: 'pending', label: "needs another person's approval" };
  if (approval?.required) return { kind: 'pending', label: approval.answer === 'decline' ? 'declined: nothing was sent' : 'waiting for approval: nothing was sent' };
  return { kind: 'dry-run', label: 'planned' };
}

function renderStep(write) {
  const verdict = write.needsApproval ? 'approval' : 'allowed';
  const targets = (write.targets ?? []).map((t) => `${t.name ?? '?'} (${t.type === 'lxc' ? 'CT' : 'VM'} ${t.vmid}${t.node ? ` on ${t.node}` : ''}${t.exists === false ? ', does not exist yet' : ''})`);
  const params = write.params && Object.keys(write.params).length > 0 ? JSON.stringify(write.params) : '';
  return el(
    'li',
    { class: `step risk-${RISK_CLASSES.includes(write.risk) ? write.risk : 'other'}`, 'data-seq': write.seq },
    el(
      'div',
      { class: 'step-head' },
      el('span', { class: 'method' }, write.method),
      el('code', { class: 'path' }, write.path),
      el('span', { class: `badge risk` }, write.risk),
      el('span', { class: `badge verdict-${verdict}` }, write.needsApproval ? 'needs approval' : 'allowed'),
      write.cluster ? el('span', { class: 'cluster' }, write.cluster) : undefined,
    ),
    write.why ? el('div', { class: 'why' }, write.why) : undefined,
    targets.length > 0 ? el('div', { class: 'targets' }, `on ${targets.join(', ')}`) : undefined,
    write.change
      ? el(
          'div',
          { class: 'change' },
          el('div', { class: 'change-summary' }, write.change.summary),
          el(
            'ul',
            {},
            (write.change.lines ?? []).map((line) => el('li', {}, line)),
          ),
        )
      : params
        ? el('div', { class: 'change params' }, el('code', {}, params))
        : undefined,
    write.blastRadius !== undefined ? renderBlastRadius(write.blastRadius) : undefined,
  );
}

/**
 * The blast radius of a step (src/safety/blast-radius.ts): its summary, each thing it reaches and
 * what happens to it (severe effects marked), and, when a read failed, that it counts as the worst
 * case and which reads failed. Any other shape shows as text.
 */
function renderBlastRadius(radius) {
  if (!isPlainObject(radius)) return el('div', { class: 'blast-radius' }, el('strong', {}, 'Blast radius: '), typeof radius === 'string' ? radius : JSON.stringify(radius));
  const items = Array.isArray(radius.items) ? radius.items.filter(isPlainObject) : [];
  const failed = Array.isArray(radius.failed) ? radius.failed.map(String) : [];
  return el(
    'div',
    { class: 'blast-radius', 'data-family': radius.family },
    el('strong', {}, 'Blast radius: '),
    el('span', { class: 'blast-summary' }, typeof radius.summary === 'string' ? radius.summary : ''),
    radius.complete === false
      ? el(
          'div',
          { class: 'blast-incomplete' },
          `Could not be read: counts as the worst case. ${failed.length > 0 ? `Failed: ${failed.join('; ')}` : 'A bound was hit, so it may reach more than listed.'}`,
        )
      : undefined,
    items.length > 0
      ? el(
          'ul',
          {},
          items.map((item) => el('li', { class: item.severe ? 'severe' : undefined, 'data-kind': item.kind }, `${item.severe ? '!! ' : ''}${item.what ?? ''}: ${item.effect ?? ''}`)),
        )
      : undefined,
  );
}

/** The plan's notes (src/safety/plan.ts `Plan.notes`): what an undo cannot reverse, safety snapshots. */
function renderNotes(notes) {
  const lines = Array.isArray(notes) ? notes.map(String) : [];
  if (lines.length === 0) return undefined;
  return el(
    'ul',
    { class: 'notes' },
    lines.map((line) => {
      const notUndone = /^not undone: ([\s\S]*)$/.exec(line);
      return notUndone ? el('li', { class: 'not-undone' }, el('strong', {}, 'Not undone: '), notUndone[1]) : el('li', {}, line);
    }),
  );
}

/**
 * Where this plan is approved: the console's plan page when this server serves the console
 * (opened by the host, which may ask the user first), else how to reach the console or the CLI.
 */
function approvalPlace(planId, config, openLink, state) {
  const note = 'Approval happens in the console or with pve-code-mcp approve, never in this view.';
  if (state.kind === 'approved') return undefined;
  if (config.consoleUrl) {
    const url = `${config.consoleUrl.replace(/\/+$/, '')}/plans/${encodeURIComponent(planId)}`;
    const link = el('a', { class: 'console-link', href: url, target: '_blank', rel: 'noopener noreferrer' }, 'Open in the console to approve');
    link.addEventListener('click', (event) => {
      // Sandboxed views cannot navigate: the host opens the link (and may ask the user).
      event.preventDefault();
      openLink(url);
    });
    return el('div', { class: 'approve-where' }, link, el('p', { class: 'note' }, note));
  }
  return el(
    'div',
    { class: 'approve-where' },
    el(
      'p',
      { class: 'console-hint' },
      `Open plan ${planId} in the console (`,
      el('code', {}, 'pve-code-mcp console'),
      " on the server's host starts it), or run ",
      el('code', {}, `pve-code-mcp approve ${planId}`),
      ' there.',
    ),
    el('p', { class: 'note' }, note),
  );
}
