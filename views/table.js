// An array of objects as a table: one column per key (in order of first appearance), sortable by
// any column (raw values: bytes sort as bytes, not as "1.2 GiB"), filtered by a text box over
// what each row shows.

/** Whether a result is rows: a non-empty array whose items are all plain objects. */
function isRows(value) {
  return Array.isArray(value) && value.length > 0 && value.every(isPlainObject);
}

function columnsOf(rows) {
  const seen = new Set();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

function compareValues(a, b) {
  const missingA = a === undefined || a === null;
  const missingB = b === undefined || b === null;
  if (missingA || missingB) return missingA === missingB ? 0 : missingA ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(typeof a === 'object' ? JSON.stringify(a) : a).localeCompare(String(typeof b === 'object' ? JSON.stringify(b) : b), undefined, { numeric: true });
}

function renderTable(rows, options) {
  const inSeries = options?.inSeries === true;
  const columns = columnsOf(rows);
  let sortKey;
  let descending = false;
  let query = '';
  const shown = rows.map((row) => ({ row, text: columns.map((c) => humanise(c, row[c], inSeries)) }));

  const count = el('span', { class: 'count' });
  const filter = el('input', { type: 'search', class: 'filter', placeholder: 'Filter rows', 'aria-label': 'Filter rows' });
  const headCells = columns.map((column) =>
    el(
      'th',
      {
        scope: 'col',
        'data-column': column,
        title: `sort by ${column}`,
        tabindex: 0,
        'aria-sort': 'none',
        onclick: () => sortBy(column),
        onkeydown: (event) => {
          if (event.key !== 'Enter' && event.key !== ' ') return;
          event.preventDefault();
          sortBy(column);
        },
      },
      column,
    ),
  );
  const body = el('tbody');
  const table = el('table', { class: 'rows' }, el('thead', {}, el('tr', {}, headCells)), body);

  function sortBy(column) {
    descending = sortKey === column ? !descending : false;
    sortKey = column;
    for (const th of headCells) {
      const active = th.dataset.column === column;
      th.classList.toggle('sorted', active);
      th.setAttribute('aria-sort', active ? (descending ? 'descending' : 'ascending') : 'none');
    }
    draw();
  }

  function draw() {
    const needle = query.toLowerCase();
    const visible = needle === '' ? shown.slice() : shown.filter((r) => r.text.some((t) => t.toLowerCase().includes(needle)));
    if (sortKey !== undefined) {
      const key = sortKey;
      visible.sort((a, b) => compareValues(a.row[key], b.row[key]) * (descending ? -1 : 1));
    }
    body.replaceChildren(
      ...visible.map(({ row, text }) =>
        el(
          'tr',
          {},
          columns.map((column, i) => {
            const raw = row[column];
            const numeric = typeof raw === 'number';
            const human = text[i];
            const exact = numeric && human !== String(raw) ? String(raw) : undefined;
            return el('td', { class: numeric ? 'num' : undefined, title: exact }, human);
          }),
        ),
      ),
    );
    count.textContent = visible.length === rows.length ? `${rows.length} rows` : `${visible.length} of ${rows.length} rows`;
  }

  filter.addEventListener('input', () => {
    query = filter.value;
    draw();
  });
  draw();
  return el('div', { class: 'table-view' }, el('div', { class: 'toolbar' }, filter, count), el('div', { class: 'scroll' }, table));
}
