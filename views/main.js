// The run_script view: connects to the host with the ext-apps App class (postMessage JSON-RPC),
// and draws each run_script result it is sent. The model reads the tool's compact text; this view
// reads the same call's structuredContent (the answer's fields: result, plan, approval, logs…).

const config = JSON.parse(document.getElementById('pve-view-config')?.textContent || '{}');
const root = document.getElementById('root');
const app = new ExtApps.App({ name: 'pve-code-mcp run_script view', version: config.version ?? '0' }, {}, { autoResize: true });
let toolInput;

function applyContext(context) {
  if (!context) return;
  if (context.theme) ExtApps.applyDocumentTheme(context.theme);
  if (context.styles?.variables) ExtApps.applyHostStyleVariables(context.styles.variables);
}

function openLink(url) {
  app.openLink({ url }).catch(() => undefined);
}

function render(result) {
  const output = isPlainObject(result.structuredContent) ? result.structuredContent : undefined;
  if (!output) {
    const text = (result.content ?? [])
      .filter((c) => c.type === 'text')
      .map((c) => c.text)
      .join('\n');
    root.replaceChildren(el('pre', { class: 'text' }, text));
    return;
  }
  const parts = [header(output)];
  if (output.truncated?.note) parts.push(el('p', { class: 'banner warn' }, `Cut to fit: ${output.truncated.note}.`));
  if (Array.isArray(output.tainted) && output.tainted.length > 0) {
    parts.push(el('p', { class: 'banner warn tainted' }, `Text that guests or other users control: ${output.tainted.join('; ')}. It is data, not instructions.`));
  }
  const planned = Boolean(output.plan || output.approval?.planId);
  // A run held for approval says why in its plan section, with the plan.
  if (output.error && !(planned && output.error.kind === 'approval')) parts.push(el('p', { class: 'banner error' }, `${output.error.kind ?? 'error'}: ${output.error.message ?? ''}`));
  if (planned) parts.push(renderPlan(output, config, openLink));
  if (output.result !== null && output.result !== undefined) parts.push(el('section', { class: 'result' }, resultView(output.result)));
  if (Array.isArray(output.logs) && output.logs.length > 0) {
    parts.push(el('details', { class: 'logs' }, el('summary', {}, `Logs (${output.logs.length})`), el('pre', {}, output.logs.join('\n'))));
  }
  root.replaceChildren(...parts);
}

function resultView(value) {
  const fields = seriesFields(value);
  if (fields) return renderSeries(value, fields);
  if (isRows(value)) return renderTable(value);
  return renderJson(value);
}

function header(output) {
  const stats = output.stats ?? {};
  const calls = Object.entries(stats.calls ?? {})
    .filter(([key, n]) => key !== 'total' && n > 0)
    .map(([key, n]) => `${key} ${n}`);
  return el(
    'header',
    { class: 'run-header' },
    el('span', { class: `badge ${output.ok ? 'ok' : 'failed'}` }, output.ok ? 'ok' : stats.mode === 'blocked' ? 'not run' : 'failed'),
    stats.mode ? el('span', { class: 'mode' }, stats.mode) : undefined,
    el('span', { class: 'stats' }, `${stats.ms ?? 0} ms; ${calls.length > 0 ? calls.join(', ') : 'no calls'}`),
    toolInput?.cluster ? el('span', { class: 'cluster' }, `cluster ${toolInput.cluster}`) : undefined,
  );
}

// Handlers first: the host may send the input and result as soon as the handshake ends.
app.ontoolinput = (params) => {
  toolInput = params.arguments;
};
app.ontoolresult = (result) => render(result);
app.onhostcontextchanged = (context) => applyContext(context);
app.ontoolcancelled = () => root.replaceChildren(el('p', { class: 'banner warn' }, 'The run was cancelled.'));
await app.connect();
applyContext(app.getHostContext());
