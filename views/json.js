// Anything that is neither rows nor a series: collapsible JSON, the first two levels open.

function renderJson(value, depth = 0, label) {
  const key = label === undefined ? undefined : el('span', { class: 'key' }, `${label}: `);
  if (value === null || typeof value !== 'object') {
    const kind = value === null ? 'null' : typeof value;
    return el('div', { class: 'leaf' }, key, el('span', { class: `json-${kind}` }, typeof value === 'string' ? JSON.stringify(value) : String(value)));
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const shape = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  return el(
    'details',
    { class: 'json', open: depth < 2 },
    el('summary', {}, key, el('span', { class: 'shape' }, shape)),
    entries.map(([k, v]) => renderJson(v, depth + 1, k)),
  );
}
