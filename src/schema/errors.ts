/**
 * Typed failures of schema loading. Every message says what is wrong, where, and what to do, because
 * a schema can come from a user-named file or URL and the operator has to fix it there.
 */

export abstract class SchemaError extends Error {
  /** Where the schema came from (file path, URL, "string"), when known. */
  readonly location: string | undefined;

  constructor(message: string, location: string | undefined, options?: { cause?: unknown }) {
    super(location ? `${message} (in ${location})` : message, options);
    this.name = new.target.name;
    this.location = location;
  }
}

/** Position of a problem in the schema text. Lines and columns are 1-based. */
export interface TextPosition {
  offset: number;
  line: number;
  column: number;
}

/** The text is not an apidoc file: truncated, not JSON, or with code around or inside the array. */
export class SchemaParseError extends SchemaError {
  readonly position: TextPosition;
  /** The text around the problem, on one line, with `⟨here⟩` marking the offset. */
  readonly snippet: string;
  readonly reason: string;

  constructor(reason: string, text: string, offset: number, location?: string) {
    const position = positionOf(text, offset);
    const snippet = snippetAt(text, position.offset);
    super(
      `Invalid apidoc schema: ${reason} at line ${position.line}, column ${position.column} (offset ${position.offset}): ${snippet}. ` +
        'Expected `const apiSchema = [...];` or a bare JSON array, as served at /pve-docs/api-viewer/apidoc.js.',
      location,
    );
    this.position = position;
    this.snippet = snippet;
    this.reason = reason;
  }
}

/** One node of the parsed tree does not have the shape of an apidoc path node or method. */
export interface SchemaShapeIssue {
  /** JSON path of the bad node, e.g. `$[0].children[3].info.POST.parameters.properties.vmid.type`. */
  jsonPath: string;
  message: string;
}

export class SchemaShapeError extends SchemaError {
  readonly issues: SchemaShapeIssue[];

  constructor(issues: SchemaShapeIssue[], location?: string) {
    const shown = issues.slice(0, 5).map((i) => `${i.jsonPath}: ${i.message}`);
    const more = issues.length > shown.length ? ` (and ${issues.length - shown.length} more)` : '';
    super(`Invalid apidoc schema structure: ${shown.join('; ')}${more}. The file parses as JSON but is not a PVE API-viewer schema tree.`, location);
    this.issues = issues;
  }
}

/** The schema could not be read (missing file, HTTP error, network failure, too large). */
export class SchemaLoadError extends SchemaError {
  constructor(message: string, location: string, options?: { cause?: unknown }) {
    super(message, location, options);
  }
}

export function positionOf(text: string, offset: number): TextPosition {
  const clamped = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < clamped; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { offset: clamped, line, column: clamped - lineStart + 1 };
}

const SNIPPET_RADIUS = 30;

function snippetAt(text: string, offset: number): string {
  if (text.length === 0) return '⟨empty input⟩';
  const before = text.slice(Math.max(0, offset - SNIPPET_RADIUS), offset);
  const after = text.slice(offset, offset + SNIPPET_RADIUS);
  const flat = (s: string) => s.replace(/\s+/g, ' ');
  const tail = offset >= text.length ? '⟨end of input⟩' : '';
  return `"${flat(before)}⟨here⟩${flat(after)}${tail}"`;
}
