/**
 * Type-checks agent scripts against the SDK declarations with a persistent, warm LanguageService.
 *
 * Only provable mistakes block a run: syntax errors, SDK members that do not exist, literal paths
 * or methods the API does not have, and — inside `pve.*` calls — unknown params, missing required
 * params, wrong argument counts and wrong types of literal values. Everything else TypeScript says
 * is a warning: the declarations cannot know every run-time shape, and a false block costs the
 * agent a turn. Each diagnostic is `line:col message` in the agent's own source, with a hint.
 */
import path from 'node:path';
import type * as TS from 'typescript';
import { ts } from './typescript.js';
import type { ApiModel } from '../schema/model.js';
import { SDK_MEMBERS, scanSdkUsage, type SdkCall, type SdkScan } from './calls.js';
import type { Diagnostic } from './diagnostics.js';
import { PROGRAM_FILE } from './names.js';
import { programSource } from './file-form.js';
import { lineCount, userPositionOf, wrapProgram, type UserPosition } from './program.js';
import { closestMatch } from './suggest.js';
import { checkerKey, DEFAULT_CHECK_BUDGET_MS, type CheckOptions, type CheckResult, type DeclarationFile } from './checker.js';

export interface ScriptCheckerOptions {
  /** The SDK declarations (`sdkDeclarationFiles(model)`), plain `.d.ts` texts. */
  files: readonly DeclarationFile[];
  /** Lets literal paths be checked against the API; without it only TypeScript judges calls. */
  model?: ApiModel;
  /** Default budget for `check`. */
  budgetMs?: number;
}

/**
 * Each checker gets its own virtual directory. The document registry (shared, for the standard
 * library) keys source files by path and version, so two checkers using the same paths would be
 * handed each other's declarations and scripts.
 */
let checkerCount = 0;

/** What the prelude really provides besides `pve`; added unless the SDK files declare `console` themselves. */
const SANDBOX_GLOBALS = `interface SandboxConsole {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
}
declare var console: SandboxConsole;
`;

const COMPILER_OPTIONS: TS.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  module: ts.ModuleKind.None,
  strict: true,
  // On, so `const rows = []; rows.push(x)` infers `any[]` instead of `never[]`; the implicit-any
  // complaints it adds are dropped (IMPLICIT_ANY_CODES): untyped helpers are style, not mistakes.
  noImplicitAny: true,
  noEmit: true,
  noResolve: true,
  types: [],
  skipLibCheck: true,
};

/** "implicitly has an 'any' type" and kin: noise for short agent scripts. */
const IMPLICIT_ANY_CODES: ReadonlySet<number> = new Set([7005, 7006, 7008, 7010, 7011, 7015, 7018, 7019, 7023, 7024, 7031, 7034, 7053]);

/** Diagnostics that are provable inside a `pve.*` call, whatever the values. */
const UNKNOWN_PARAM_CODES = new Set([2353, 2561]);
const ARITY_CODES = new Set([2554, 2555]);
/** "is missing" diagnostics: provable when the params object literal has no spread. */
const MISSING_CODES = new Set([2741, 2739, 2740]);
/** Type mismatches: provable only when the offending value is a literal. */
const MISMATCH_CODES = new Set([2322, 2345, 2769, 2820]);
const UNKNOWN_MEMBER_CODES = new Set([2339, 2551]);
/** "No overload matches this call", whose chain holds each signature's own error. */
const NO_OVERLOAD_CODE = 2769;
const CANNOT_FIND_NAME_CODES = new Set([2304, 2552, 2580, 2591, 2592]);

const libCache = new Map<string, TS.IScriptSnapshot | undefined>();
/** Shared so the standard library is parsed once per process, not once per declaration set. */
const documentRegistry = ts.createDocumentRegistry();

export class ScriptChecker {
  readonly hash: string;
  private readonly service: TS.LanguageService;
  private readonly declarations = new Map<string, TS.IScriptSnapshot>();
  private readonly model: ApiModel | undefined;
  private readonly budgetMs: number;
  private agentText = wrapProgram('');
  private agentVersion = 0;
  private readonly root = `/pve-check/${++checkerCount}/`;
  private readonly agentPath = `${this.root}${PROGRAM_FILE}`;
  private deadline = Number.POSITIVE_INFINITY;

  constructor(options: ScriptCheckerOptions) {
    this.hash = checkerKey(options.files, options.model);
    this.model = options.model;
    this.budgetMs = options.budgetMs ?? DEFAULT_CHECK_BUDGET_MS;
    for (const f of options.files) {
      this.declarations.set(this.root + path.posix.basename(f.fileName), ts.ScriptSnapshot.fromString(f.text));
    }
    if (!options.files.some((f) => /declare\s+(?:var|let|const)\s+console\b/.test(f.text))) {
      this.declarations.set(`${this.root}sandbox-globals.d.ts`, ts.ScriptSnapshot.fromString(SANDBOX_GLOBALS));
    }
    this.service = ts.createLanguageService(this.host(), documentRegistry);
  }

  /** Builds the program and resolves the SDK types once, so the first real check is warm. */
  warm(): void {
    this.check('const warm = await pve.get("/version");\nreturn warm;', { budgetMs: Number.POSITIVE_INFINITY });
  }

  check(text: string, options: CheckOptions = {}): CheckResult {
    const started = performance.now();
    const budget = options.budgetMs ?? this.budgetMs;
    // The file form is checked as the body it runs as: its offsets, and so its positions, are kept.
    const converted = programSource(text);
    if ('diagnostics' in converted) return finish(converted.diagnostics, [], false, started);
    const source = converted.body;
    this.agentText = wrapProgram(source);
    this.agentVersion++;

    const errors: Diagnostic[] = [];
    const warnings: Diagnostic[] = [];
    const program = this.service.getProgram();
    const sf = program?.getSourceFile(this.agentPath);
    if (!program || !sf) throw new Error('type-check: the agent file is missing from the program (internal error)');
    const lines = lineCount(source);
    const at = (offset: number): UserPosition => userPositionOf(sf, offset, lines);

    const syntax = this.service.getSyntacticDiagnostics(this.agentPath);
    for (const d of syntax) errors.push(toDiagnostic(d, at, 'error'));
    if (errors.length > 0) return finish(errors, warnings, false, started);

    const scan = scanSdkUsage(sf, lines);
    for (const m of scan.unknownMembers) {
      const suggestion = closestMatch(m.name, SDK_MEMBERS);
      errors.push({
        line: m.line,
        col: m.col,
        severity: 'error',
        message: `'${m.name}' is not a member of the pve SDK`,
        hint: suggestion ? `did you mean '${suggestion}'?` : `the SDK has ${SDK_MEMBERS.join(', ')}`,
      });
    }
    if (this.model) {
      for (const { call } of scan.requests) {
        const d = checkPath(call, this.model);
        if (d) (d.severity === 'error' ? errors : warnings).push(d);
      }
    }

    this.deadline = started + budget;
    let semantic: readonly TS.Diagnostic[] | undefined;
    try {
      semantic = this.service.getSemanticDiagnostics(this.agentPath);
    } catch (err) {
      if (!(err instanceof ts.OperationCanceledException)) throw err;
    } finally {
      this.deadline = Number.POSITIVE_INFINITY;
    }
    if (!semantic) {
      warnings.push({
        line: 1,
        col: 1,
        severity: 'warning',
        message: `type-check skipped: it needed more than its ${budget} ms budget`,
        hint: 'syntax, SDK members and paths were still checked',
      });
      return finish(errors, warnings, true, started);
    }

    const classifier = new CallDiagnosticClassifier(scan);
    const reportedMembers = new Set(scan.unknownMembers.map((m) => m.node.getStart(sf)));
    for (const reported of semantic) {
      const start = reported.start ?? 0;
      if (UNKNOWN_MEMBER_CODES.has(reported.code) && reportedMembers.has(start)) continue;
      if (IMPLICIT_ANY_CODES.has(reported.code)) continue;
      const d = classifier.sdkCallError(reported, sf);
      const verdict = classifier.classify(d, sf);
      const diagnostic = toDiagnostic(d, at, verdict.block ? 'error' : 'warning');
      if (verdict.hint) diagnostic.hint = verdict.hint;
      else if (CANNOT_FIND_NAME_CODES.has(d.code)) {
        diagnostic.hint = 'the sandbox has only the JavaScript built-ins plus `pve` and `console` (no timers, fetch, require or process)';
      }
      (verdict.block ? errors : warnings).push(diagnostic);
    }
    return finish(errors, warnings, false, started);
  }

  dispose(): void {
    this.service.dispose();
  }

  private host(): TS.LanguageServiceHost {
    const libDir = path.dirname(ts.getDefaultLibFilePath(COMPILER_OPTIONS));
    const snapshot = (fileName: string): TS.IScriptSnapshot | undefined => {
      if (fileName === this.agentPath) return ts.ScriptSnapshot.fromString(this.agentText);
      const decl = this.declarations.get(fileName);
      if (decl) return decl;
      if (!libCache.has(fileName)) {
        const text = path.dirname(fileName) === libDir ? ts.sys.readFile(fileName) : undefined;
        libCache.set(fileName, text === undefined ? undefined : ts.ScriptSnapshot.fromString(text));
      }
      return libCache.get(fileName);
    };
    return {
      getScriptFileNames: () => [...this.declarations.keys(), this.agentPath],
      getScriptVersion: (fileName) => (fileName === this.agentPath ? String(this.agentVersion) : '1'),
      getScriptSnapshot: snapshot,
      getCurrentDirectory: () => this.root,
      getCompilationSettings: () => COMPILER_OPTIONS,
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: (fileName) => snapshot(fileName) !== undefined,
      readFile: (fileName) => {
        const s = snapshot(fileName);
        return s?.getText(0, s.getLength());
      },
      getCancellationToken: () => ({ isCancellationRequested: () => performance.now() > this.deadline }),
    };
  }
}

function finish(errors: Diagnostic[], warnings: Diagnostic[], timedOut: boolean, started: number): CheckResult {
  const byPosition = (a: Diagnostic, b: Diagnostic) => a.line - b.line || a.col - b.col;
  return {
    ok: errors.length === 0,
    errors: errors.sort(byPosition),
    warnings: warnings.sort(byPosition),
    timedOut,
    ms: performance.now() - started,
  };
}

function toDiagnostic(d: TS.Diagnostic, at: (offset: number) => UserPosition, severity: Diagnostic['severity']): Diagnostic {
  return { ...at(d.start ?? 0), message: ts.flattenDiagnosticMessageText(d.messageText, '\n'), severity, code: d.code };
}

/** Literal paths must exist in the API with that method; paths with run-time holes get a warning at most. */
function checkPath(call: SdkCall, model: ApiModel): Diagnostic | undefined {
  if (call.path === null) return undefined;
  const where = { line: call.line, col: call.col };
  const concrete = call.pathIsTemplate ? call.path.replaceAll('{?}', 'x') : call.path;
  const match = model.matchPath(call.method, concrete);
  if (match?.operation) return undefined;
  if (match) {
    const methods = model.byPath(match.path).map((op) => op.method);
    return {
      ...where,
      severity: call.pathIsTemplate ? 'warning' : 'error',
      message: `${call.method} is not available on ${match.path}`,
      hint: methods.length > 0 ? `it supports ${methods.join(', ')}` : 'that path only groups sub-paths; use search_api to find an operation',
    };
  }
  if (call.pathIsTemplate) {
    return {
      ...where,
      severity: 'warning',
      message: `no API path matches ${call.path}`,
      hint: 'use search_api to find the path',
    };
  }
  const suggestion = closestPath(call.path, model.paths);
  return {
    ...where,
    severity: 'error',
    message: `unknown API path ${call.path}`,
    hint: suggestion ? `did you mean '${suggestion}'?` : 'use search_api to find the path',
  };
}

/**
 * The template a mistyped path most likely meant. Concrete values stand in for a template's
 * `{params}` before comparing, so `/nodes/pve1/qemuu` is close to `/nodes/{node}/qemu`.
 */
function closestPath(path: string, templates: readonly string[]): string | undefined {
  const given = path.split('/');
  const byInstance = new Map<string, string>();
  for (const template of templates) {
    const parts = template.split('/');
    const instance = parts.length === given.length ? parts.map((p, i) => (/^\{[^}]+\}$/.test(p) ? given[i] : p)).join('/') : template;
    if (!byInstance.has(instance)) byInstance.set(instance, template);
  }
  const best = closestMatch(path, byInstance.keys());
  return best === undefined ? undefined : byInstance.get(best);
}

/** Decides whether a TypeScript diagnostic is a provable mistake in a `pve.*` call. */
class CallDiagnosticClassifier {
  private readonly calls = new Map<TS.CallExpression, SdkCall>();

  constructor(scan: SdkScan) {
    for (const { node, call } of scan.requests) this.calls.set(node, call);
  }

  /**
   * A failed `pve.get` names both of its signatures ("No overload matches this call"); the first,
   * which narrows a list by its `type` filter, is the SDK's detail, so the agent is shown what the
   * general signature (the last) said, with its code, and it is judged by that.
   */
  sdkCallError(d: TS.Diagnostic, sf: TS.SourceFile): TS.Diagnostic {
    if (d.code !== NO_OVERLOAD_CODE || typeof d.messageText === 'string') return d;
    const general = d.messageText.next?.at(-1)?.next?.[0];
    const node = findNode(sf, d.start ?? 0);
    if (!general || !node || !this.enclosingSdkCall(node)) return d;
    return { ...d, code: general.code, messageText: general };
  }

  classify(d: TS.Diagnostic, sf: TS.SourceFile): { block: boolean; hint?: string } {
    const node = findNode(sf, d.start ?? 0);
    const site = node && this.enclosingSdkCall(node);
    if (!site) return { block: false };
    const { call, argIndex, inner } = site;
    const hint = call.path ? `use get_schema to see the params of ${call.method} ${call.path}` : undefined;
    const withHint = (block: boolean) => ({ block, ...(hint ? { hint } : {}) });
    if (UNKNOWN_PARAM_CODES.has(d.code) || ARITY_CODES.has(d.code)) return withHint(true);
    const paramsArg = site.node.arguments[1];
    const noSpread = paramsArg !== undefined && ts.isObjectLiteralExpression(paramsArg) && !paramsArg.properties.some(ts.isSpreadAssignment);
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const isMissing = MISSING_CODES.has(d.code) || /is missing in type|missing the following properties/.test(message);
    if (isMissing) return withHint(argIndex === 1 && noSpread);
    if (MISMATCH_CODES.has(d.code)) return withHint(argIndex !== undefined && isLiteral(inner));
    return { block: false };
  }

  /**
   * The SDK call whose own argument list holds `node` — not one reached through a nested call or
   * function (an error inside `pve.get(p, { a: f(x) })`'s `f(x)` is not about the SDK call).
   */
  private enclosingSdkCall(node: TS.Node): { node: TS.CallExpression; call: SdkCall; argIndex?: number; inner: TS.Node } | undefined {
    let child: TS.Node = node;
    let inner: TS.Node = node;
    for (let cur: TS.Node | undefined = node; cur; child = cur, cur = cur.parent) {
      if (ts.isPropertyAssignment(cur) || ts.isShorthandPropertyAssignment(cur)) inner = ts.isPropertyAssignment(cur) ? cur.initializer : cur;
      if (ts.isCallExpression(cur)) {
        const call = this.calls.get(cur);
        if (!call) return undefined;
        const argIndex = cur.arguments.indexOf(child as TS.Expression);
        if (argIndex < 0) return { node: cur, call, inner: cur };
        if (inner === node || !isWithin(inner, child)) inner = child;
        return { node: cur, call, argIndex, inner };
      }
      if (ts.isFunctionLike(cur) || ts.isNewExpression(cur)) return undefined;
    }
    return undefined;
  }
}

function isWithin(node: TS.Node, container: TS.Node): boolean {
  return node.pos >= container.pos && node.end <= container.end;
}

/** The innermost node starting at or containing `offset`. */
function findNode(sf: TS.SourceFile, offset: number): TS.Node | undefined {
  let found: TS.Node | undefined;
  const visit = (node: TS.Node): void => {
    if (offset < node.getStart(sf) || offset >= node.end) return;
    found = node;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** A value fixed in the source: literals, and arrays/objects made only of them. */
function isLiteral(node: TS.Node): boolean {
  if (ts.isParenthesizedExpression(node)) return isLiteral(node.expression);
  if (ts.isStringLiteralLike(node) || ts.isNumericLiteral(node)) return true;
  if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword || node.kind === ts.SyntaxKind.NullKeyword) return true;
  if (ts.isPrefixUnaryExpression(node)) return ts.isNumericLiteral(node.operand);
  if (ts.isArrayLiteralExpression(node)) return node.elements.every(isLiteral);
  if (ts.isObjectLiteralExpression(node)) {
    return node.properties.every((p) => ts.isPropertyAssignment(p) && isLiteral(p.initializer));
  }
  return false;
}
