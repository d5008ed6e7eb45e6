// A numeric series (PVE's rrddata: one object per time step, `time` in epoch seconds) as inline
// SVG line charts, one per unit (CPU %, bytes, bytes/s, the rest), since one axis cannot carry a
// fraction and gibibytes at once. Steps with no value (RRD's gaps) break the line.

const PALETTE = ['#2f6fde', '#d9480f', '#2b8a3e', '#9c36b5', '#c2255c', '#0b7285', '#e67700', '#495057'];
const CHART = { width: 640, height: 180, left: 64, right: 12, top: 12, bottom: 24 };
const GROUP_TITLES = { percent: 'CPU', bytes: 'Memory and disk', rate: 'Network and disk I/O', duration: 'Duration', plain: 'Other' };

/**
 * The fields of a series, or undefined when the value is not one: steps with a numeric `time` and
 * nothing but numbers (an RRD step). A list with text in it (the cluster log, tasks) is a table.
 */
function seriesFields(value) {
  const numeric = (p) => Object.values(p).every((v) => v === null || (typeof v === 'number' && !Number.isNaN(v)));
  if (!Array.isArray(value) || value.length < 2 || !value.every((p) => isPlainObject(p) && typeof p.time === 'number' && numeric(p))) return undefined;
  const fields = columnsOf(value).filter((key) => key !== 'time' && value.some((p) => typeof p[key] === 'number'));
  return fields.length > 0 ? fields : undefined;
}

function renderSeries(points, fields) {
  const sorted = points.slice().sort((a, b) => a.time - b.time);
  const groups = new Map();
  for (const field of fields) {
    const unit = unitOf(field, true);
    const group = unit === 'time' ? 'plain' : unit;
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group).push(field);
  }
  const charts = [...groups].map(([unit, members]) => renderChart(sorted, unit, members));
  return el('div', { class: 'series-view' }, charts, el('details', { class: 'as-table' }, el('summary', {}, 'As a table'), renderTable(sorted, { inSeries: true })));
}

/**
 * One chart. A field that never changes (a capacity: memtotal, maxcpu) is named with its value
 * under the chart rather than drawn, so the axis fits the fields that move.
 */
function renderChart(points, unit, members) {
  const values = (field) => points.map((p) => p[field]).filter((v) => typeof v === 'number' && Number.isFinite(v));
  const constant = members.filter((field) => new Set(values(field)).size <= 1);
  const fields = constant.length < members.length ? members.filter((field) => !constant.includes(field)) : members;
  const fixed = constant.length < members.length ? constant : [];
  const { width, height, left, right, top, bottom } = CHART;
  const t0 = points[0].time;
  const t1 = points[points.length - 1].time;
  let max = 0;
  let min = 0;
  for (const p of points) {
    for (const f of fields) {
      if (typeof p[f] !== 'number' || !Number.isFinite(p[f])) continue;
      max = Math.max(max, p[f]);
      min = Math.min(min, p[f]);
    }
  }
  if (max === min) max = min + 1;
  const x = (t) => left + ((t - t0) / Math.max(1, t1 - t0)) * (width - left - right);
  const y = (v) => top + (1 - (v - min) / (max - min)) * (height - top - bottom);
  const label = (v) => (unit === 'plain' ? humanise('', v, true) : humanise(sampleField(unit), v, true));

  const lines = fields.map((field, i) => {
    let d = '';
    let pen = 'M';
    for (const p of points) {
      const v = p[field];
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        pen = 'M';
        continue;
      }
      d += `${pen}${x(p.time).toFixed(1)},${y(v).toFixed(1)} `;
      pen = 'L';
    }
    return svg('path', { class: 'series', 'data-field': field, d: d.trim(), fill: 'none', stroke: PALETTE[i % PALETTE.length], 'stroke-width': 1.5 });
  });
  const axis = [
    svg('line', { class: 'axis', x1: left, y1: top, x2: left, y2: height - bottom }),
    svg('line', { class: 'axis', x1: left, y1: height - bottom, x2: width - right, y2: height - bottom }),
    svg('text', { class: 'tick', x: left - 6, y: top + 4, 'text-anchor': 'end' }, label(max)),
    svg('text', { class: 'tick', x: left - 6, y: height - bottom, 'text-anchor': 'end' }, label(min)),
    svg('text', { class: 'tick', x: left, y: height - 6 }, humanTime(t0)),
    svg('text', { class: 'tick', x: width - right, y: height - 6, 'text-anchor': 'end' }, humanTime(t1)),
  ];
  const legend = el(
    'div',
    { class: 'legend' },
    fields.map((field, i) => el('span', { class: 'legend-item' }, el('span', { class: 'swatch', 'data-color': PALETTE[i % PALETTE.length] }), field)),
    fixed.map((field) => el('span', { class: 'legend-item constant', 'data-field': field }, `${field} ${humanise(field, values(field)[0], true)} (constant)`)),
  );
  // Swatch colours through the CSSOM: the view's CSP allows no inline style attributes.
  for (const swatch of legend.querySelectorAll('.swatch')) swatch.style.background = swatch.dataset.color;
  return el(
    'figure',
    { class: 'chart', 'data-unit': unit },
    el('figcaption', {}, GROUP_TITLES[unit] ?? 'Values'),
    svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${fields.join(', ')} over time` }, axis, lines),
    legend,
  );
}

/** A field name of the unit, to label an axis in it. */
function sampleField(unit) {
  return { bytes: 'mem', rate: 'netin', percent: 'cpu', duration: 'uptime' }[unit] ?? '';
}
