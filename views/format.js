// Shared by the run_script views: building DOM nodes (text only: data from PVE and from guests is
// never parsed as HTML) and humanising PVE's units. PVE names its fields consistently across the
// API, so a field's name says its unit: `maxmem` is bytes, `uptime` seconds, `cpu` a fraction.

/** An element with properties/attributes and children (strings become text nodes). */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
  return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs ?? {})) if (value !== undefined) node.setAttribute(key, String(value));
  for (const child of children.flat(Infinity)) if (child !== undefined && child !== null) node.append(child);
  return node;
}

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const BYTE_FIELDS = new Set([
  'mem',
  'maxmem',
  'disk',
  'maxdisk',
  'swap',
  'maxswap',
  'balloon',
  'freemem',
  'shared',
  'memused',
  'memtotal',
  'memavailable',
  'memfree',
  'swapused',
  'swaptotal',
  'swapfree',
  'rootused',
  'roottotal',
  'rootfree',
  'used',
  'avail',
  'total',
  'free',
  'size',
  'netin',
  'netout',
  'diskread',
  'diskwrite',
  'arcsize',
]);
/** Counters that PVE's time series report per second, and /cluster/resources as totals. */
const RATE_FIELDS = new Set(['netin', 'netout', 'diskread', 'diskwrite']);
const FRACTION_FIELDS = new Set(['cpu', 'iowait', 'used_fraction']);
const DURATION_FIELDS = new Set(['uptime']);
const TIME_FIELDS = new Set(['time', 'starttime', 'endtime', 'ctime', 'snaptime', 'mtime']);

/**
 * The unit of a field: 'bytes', 'rate' (bytes per second, in a time series), 'percent' (a
 * fraction shown as %), 'duration' (seconds), 'time' (epoch seconds) or 'plain'.
 */
function unitOf(field, inSeries) {
  const key = String(field).toLowerCase();
  if (inSeries && RATE_FIELDS.has(key)) return 'rate';
  if (BYTE_FIELDS.has(key)) return 'bytes';
  if (FRACTION_FIELDS.has(key)) return 'percent';
  if (DURATION_FIELDS.has(key)) return 'duration';
  if (TIME_FIELDS.has(key)) return 'time';
  return 'plain';
}

function humanBytes(n) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = Math.abs(n);
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i += 1;
  }
  const shown = i === 0 ? String(Math.round(value)) : value.toFixed(value < 10 ? 1 : 0);
  return `${n < 0 ? '-' : ''}${shown} ${units[i]}`;
}

function humanDuration(seconds) {
  let s = Math.max(0, Math.round(seconds));
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

function humanTime(epochSeconds) {
  const date = new Date(epochSeconds * 1000);
  if (Number.isNaN(date.getTime())) return String(epochSeconds);
  return date
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

/** A value as a person reads it; numbers in their field's unit, everything else as compact text. */
function humanise(field, value, inSeries) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' && Number.isFinite(value)) {
    switch (unitOf(field, inSeries)) {
      case 'bytes':
        return humanBytes(value);
      case 'rate':
        return `${humanBytes(value)}/s`;
      case 'percent':
        return `${(value * 100).toFixed(value < 0.1 ? 2 : 1)}%`;
      case 'duration':
        return humanDuration(value);
      case 'time':
        return humanTime(value);
      default:
        return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
    }
  }
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
