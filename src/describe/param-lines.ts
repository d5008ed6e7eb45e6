/** get_schema's parameter lines: one per parameter, the important ones first and the rest folded on huge operations. */
import { firstSentence } from '../schema/normalize.js';
import type { Operation, ParamSpec } from '../schema/model.js';
import { groupName, groupParams, groupSpec, type ParamGroup } from '../typegen/families.js';
import { formatKeyLines, paramFacts } from '../typegen/param-facts.js';
import { paramType } from '../typegen/param-type.js';
import { oneLine, textSyntax } from '../typegen/text-syntax.js';

/** Above this many parameters an operation is "huge": only the important ones get a line. */
export const MAX_PARAM_LINES = 24;
const MAX_DESCRIPTION = 80;
/** Enums longer than this show as their base type plus the first values (`disk` of move_volume lists 500+). */
const MAX_ENUM_IN_TYPE = 16;
const ENUM_SAMPLE = 6;

/**
 * Parameters people set most on the operations that have dozens (guest create/config, storage,
 * backup jobs, realms), in the order they usually think of them. Required ones always come first.
 */
const POPULAR = [
  'name',
  'hostname',
  'ostemplate',
  'memory',
  'cores',
  'sockets',
  'cpu',
  'ostype',
  'net[n]',
  'scsi[n]',
  'virtio[n]',
  'sata[n]',
  'ide[n]',
  'rootfs',
  'mp[n]',
  'storage',
  'boot',
  'onboot',
  'start',
  'agent',
  'scsihw',
  'unprivileged',
  'password',
  'ssh-public-keys',
  'archive',
  'pool',
  'tags',
  'description',
  'delete',
  'digest',
  'type',
  'content',
  'path',
  'server',
  'export',
  'schedule',
  'enabled',
  'vmid',
  'all',
  'mode',
  'compress',
  'comment',
];

export interface ParamSection {
  /** One line per shown parameter: `  vmid: number;  // 100..999999999 — The ID of the VM`. */
  lines: string[];
  /** Names (families as `net[n]`) of parameters left out of a huge operation. */
  omitted: string[];
  /** Requested names the operation does not have. */
  unknown: string[];
}

export function paramSection(op: Operation, requested: readonly string[] = []): ParamSection {
  const groups = groupParams(op.params);
  const wanted = new Set(requested.map(normalizeRequested));
  const unknown = requested.filter((r) => !groups.some((g) => matches(g, normalizeRequested(r))));
  const ordered = [...groups].sort((a, b) => rank(a) - rank(b));
  let shown = ordered;
  if (groups.length > MAX_PARAM_LINES) {
    const must = ordered.filter((g) => !groupSpec(g).optional || [...wanted].some((w) => matches(g, w)));
    const popular = POPULAR.flatMap((name) => ordered.filter((g) => groupName(g) === name && !must.includes(g)));
    const picked = new Set([...must, ...popular.slice(0, Math.max(0, MAX_PARAM_LINES - must.length))]);
    shown = ordered.filter((g) => picked.has(g));
  }
  const omitted = groups.filter((g) => !shown.includes(g)).map(groupName);
  const detailed = (g: ParamGroup) => [...wanted].some((w) => matches(g, w));
  return { lines: shown.map((g) => paramLine(g, detailed(g))), omitted, unknown };
}

/** Path params, then required, then optional; schema order within each. */
function rank(group: ParamGroup): number {
  const spec = groupSpec(group);
  return spec.inPath ? 0 : spec.optional ? 2 : 1;
}

function normalizeRequested(name: string): string {
  return name.trim().replace(/\[n\]$/, '');
}

function matches(group: ParamGroup, wanted: string): boolean {
  if (group.kind === 'single') return group.spec.name === wanted;
  return group.base === wanted || group.members.some((m) => m.name === wanted);
}

/** `detailed` (asked for by name): whole description and property-string syntax. */
function paramLine(group: ParamGroup, detailed: boolean): string {
  const spec = groupSpec(group);
  const name = groupName(group);
  const key = /^[A-Za-z_$][\w$]*$/.test(name) || group.kind === 'family' ? name : `'${name}'`;
  const longEnum = !detailed && spec.enum !== undefined && spec.enum.length > MAX_ENUM_IN_TYPE ? spec.enum : undefined;
  const typed: ParamSpec = longEnum ? { ...spec, enum: undefined } : spec;
  const facts = paramFacts(spec, detailed);
  if (longEnum) facts.unshift(`one of ${longEnum.slice(0, ENUM_SAMPLE).join(', ')}, … (${longEnum.length} values)`);
  if (group.kind === 'family') facts.unshift(`n 0..${group.maxIndex}`);
  const description = detailed ? (spec.description ?? '').replace(/\s+/g, ' ').trim() : shortDescription(spec);
  const comment = [facts.join(', '), description].filter(Boolean).join(' — ');
  const line = `  ${key}${spec.optional ? '?' : ''}: ${oneLine(paramType(typed, textSyntax))};${comment ? `  // ${comment}` : ''}`;
  // Asked for by name, a property string also says what each of its keys means.
  if (!detailed || typeof spec.format !== 'object' || spec.format === null) return line;
  return [line, ...formatKeyLines(spec.format).map((k) => `  //   ${k}`)].join('\n');
}

function shortDescription(spec: ParamSpec): string {
  const text = firstSentence(spec.description ?? '');
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1).trimEnd()}…` : text;
}
