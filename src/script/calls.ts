/**
 * Static extraction of the `pve` SDK calls a script makes, read from the TypeScript AST without
 * running anything. The preflight (dry-run, permission check, plan) and the type-check's path
 * validation use it; whatever cannot be known statically is reported as unknown, never guessed.
 */
import type * as TS from 'typescript';
import { ts } from './typescript.js';
import type { HttpMethod } from '../schema/model.js';
import { FILE_MAIN } from './names.js';
import { userPositionOf } from './program.js';

export interface SdkCall {
  method: HttpMethod;
  /**
   * The path as written: a literal, or a template literal / string concatenation whose dynamic
   * parts are replaced by `{?}`. Constants (`const node = 'pve1'`) are inlined. Null when the
   * path is not a string expression we can read (a variable, a function call...).
   */
  path: string | null;
  /** True when `path` contains `{?}` holes for values only known at run time. */
  pathIsTemplate: boolean;
  /** Literal params; keys whose values are not statically known are omitted (see `unknownParams`). */
  params: Record<string, unknown> | null;
  /** True when every key and value of the params argument is statically known (no call args = `{}`). */
  paramsComplete: boolean;
  /** Keys present in the params object literal whose values are only known at run time. */
  unknownParams: string[];
  /** 1-based position of the call expression in the user's source. */
  line: number;
  col: number;
  /** Set for calls made through `pve.cluster('name')` with a literal name. */
  cluster?: string;
  /** True for calls through `pve.cluster(expr)` whose name is not statically known. */
  clusterUnknown?: boolean;
}

const METHOD_BY_MEMBER: Record<string, HttpMethod> = { get: 'GET', post: 'POST', put: 'PUT', delete: 'DELETE' };

/** A value we could not compute statically. */
const UNKNOWN = Symbol('unknown');
type Static = unknown;

/** What an identifier bound with `const` refers to, as far as SDK calls are concerned. */
type Binding =
  | { kind: 'sdk'; cluster?: string; clusterUnknown?: boolean }
  | { kind: 'value'; node: TS.Expression }
  /** Declared by the script but not statically resolvable (let, parameters, redeclared names). */
  | { kind: 'opaque' };

/**
 * The SDK requests of a parsed program (`parseProgram`, which parses the script as the program
 * function's body) in source order: the compile reads them from its own parse.
 */
export function sdkCallsOf(program: TS.SourceFile, userLines: number): SdkCall[] {
  const scan = scanSdkUsage(program, userLines);
  // A write through an object we cannot tie to the SDK (`(c ? pve.cluster('x') : pve).post`, a
  // `let` alias) may still be an SDK write: it is reported as a fully dynamic call.
  const unattributed = scan.unattributed.map((u): SdkCall => ({ ...u, path: null, pathIsTemplate: false, params: null, paramsComplete: false, unknownParams: [], clusterUnknown: true }));
  return [...scan.requests.map((s) => s.call), ...unattributed];
}

/** Members the sandbox's `pve` object really has; anything else is `undefined` at run time. */
export const SDK_MEMBERS: readonly string[] = ['get', 'post', 'put', 'delete', 'waitTask', 'waitTasks', 'cluster', 'guests', 'findGuest', 'undo'];

export interface SdkScan {
  requests: Array<{ node: TS.CallExpression; call: SdkCall }>;
  /** `pve.gett`, `lab.waitTsk`...: member accesses on the SDK that do not exist. */
  unknownMembers: Array<{ node: TS.Node; name: string; line: number; col: number }>;
  /** `x.post(…)`, `x.put(…)`, `x.delete(…)` on something not known to be the SDK nor known not to be. */
  unattributed: Array<{ method: HttpMethod; line: number; col: number }>;
}

/** The SDK usage of a parsed program (see `parseProgram`), with the AST nodes for diagnostics. */
export function scanSdkUsage(sf: TS.SourceFile, userLines: number): SdkScan {
  const bindings = collectConstBindings(sf);
  const scan: SdkScan = { requests: [], unknownMembers: [], unattributed: [] };
  const visit = (node: TS.Node): void => {
    if (ts.isCallExpression(node)) inspectCall(node, sf, userLines, bindings, scan);
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
      const name = memberName(node);
      if (name !== undefined && !SDK_MEMBERS.includes(name) && sdkOf(skipParens(node.expression), bindings)) {
        const nameNode = ts.isPropertyAccessExpression(node) ? node.name : node.argumentExpression;
        scan.unknownMembers.push({ node: nameNode, name, ...userPositionOf(sf, nameNode.getStart(sf), userLines) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return scan;
}

function inspectCall(call: TS.CallExpression, sf: TS.SourceFile, lines: number, bindings: Map<string, Binding>, scan: SdkScan): void {
  const callee = skipParens(call.expression);
  const member = memberName(callee);
  if (member === undefined) return;
  const receiver = skipParens((callee as TS.PropertyAccessExpression | TS.ElementAccessExpression).expression);
  const sdk = sdkOf(receiver, bindings);
  if (!sdk) {
    const method = Object.hasOwn(METHOD_BY_MEMBER, member) ? METHOD_BY_MEMBER[member] : undefined;
    if (method && method !== 'GET' && mayBeSdk(receiver, bindings)) scan.unattributed.push({ method, ...userPositionOf(sf, call.getStart(sf), lines) });
    return;
  }

  const where = userPositionOf(sf, call.getStart(sf), lines);
  const clusterInfo = {
    ...(sdk.cluster !== undefined ? { cluster: sdk.cluster } : {}),
    ...(sdk.clusterUnknown ? { clusterUnknown: true } : {}),
  };

  // `pve.undo(runId)` makes writes only known at run time (the run's reversal): a fully dynamic write.
  if (member === 'undo') {
    scan.requests.push({ node: call, call: { method: 'POST', path: null, pathIsTemplate: false, params: null, paramsComplete: false, unknownParams: [], ...where, ...clusterInfo } });
    return;
  }
  const method = Object.hasOwn(METHOD_BY_MEMBER, member) ? METHOD_BY_MEMBER[member] : undefined;
  if (!method) return;

  const path = call.arguments[0] ? readPath(call.arguments[0], bindings) : null;
  const params = readParams(call.arguments[1], bindings);
  scan.requests.push({
    node: call,
    call: {
      method,
      path: path?.text ?? null,
      pathIsTemplate: path?.holes ?? false,
      ...params,
      ...where,
      ...clusterInfo,
    },
  });
}

function memberName(callee: TS.Node): string | undefined {
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  if (ts.isElementAccessExpression(callee) && ts.isStringLiteralLike(callee.argumentExpression)) {
    return callee.argumentExpression.text;
  }
  return undefined;
}

/**
 * Whether `expr` could be the SDK at run time although `sdkOf` cannot tell: anything but a const
 * bound to a known value and literals (`new Map()`, `[]`, `{}`, strings).
 */
function mayBeSdk(expr: TS.Expression, bindings: Map<string, Binding>): boolean {
  if (ts.isIdentifier(expr)) return bindings.get(expr.text)?.kind !== 'value';
  return !(ts.isNewExpression(expr) || ts.isArrayLiteralExpression(expr) || ts.isObjectLiteralExpression(expr) || ts.isStringLiteralLike(expr));
}

/** Whether `expr` is the SDK (`pve`, `pve.cluster(...)` or a const alias of either). */
function sdkOf(expr: TS.Expression, bindings: Map<string, Binding>): Extract<Binding, { kind: 'sdk' }> | undefined {
  if (ts.isIdentifier(expr)) {
    const bound = bindings.get(expr.text);
    if (bound) return bound.kind === 'sdk' ? bound : undefined;
    return expr.text === 'pve' ? { kind: 'sdk' } : undefined;
  }
  if (ts.isCallExpression(expr)) {
    const callee = skipParens(expr.expression);
    if (memberName(callee) !== 'cluster') return undefined;
    // `pve.cluster('a').cluster('b')` is bound to 'b': the innermost name wins.
    const base = sdkOf(skipParens((callee as TS.PropertyAccessExpression).expression), bindings);
    if (!base) return undefined;
    const arg = expr.arguments[0];
    const name = arg ? evaluate(arg, bindings, 0) : UNKNOWN;
    return typeof name === 'string' ? { kind: 'sdk', cluster: name } : { kind: 'sdk', clusterUnknown: true };
  }
  return undefined;
}

/**
 * `const` bindings by name. A name declared more than once anywhere (shadowing, different scopes)
 * is dropped: without scope analysis we cannot tell which declaration a use refers to, and an
 * honest "unknown" beats a wrong guess.
 */
function collectConstBindings(sf: TS.SourceFile): Map<string, Binding> {
  const declared = new Map<string, number>();
  const candidates = new Map<string, TS.Expression>();
  const count = (name: string): void => {
    declared.set(name, (declared.get(name) ?? 0) + 1);
  };
  let mainSdk: string | undefined;
  const visit = (node: TS.Node): void => {
    if (ts.isVariableDeclaration(node)) {
      if (ts.isIdentifier(node.name) && node.name.text === FILE_MAIN && node.initializer) mainSdk = sdkParameterOf(node.initializer);
      for (const name of bindingNames(node.name)) count(name);
      const isConst = (ts.getCombinedNodeFlags(node) & ts.NodeFlags.Const) !== 0;
      if (isConst && ts.isIdentifier(node.name) && node.initializer) candidates.set(node.name.text, node.initializer);
    } else if (ts.isParameter(node) || ts.isBindingElement(node)) {
      for (const name of bindingNames(node.name)) count(name);
    } else if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name) {
      count(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);

  const bindings = new Map<string, Binding>();
  const ordered = [...candidates].filter(([name]) => declared.get(name) === 1);
  // Aliases of aliases (`const a = pve; const b = a.cluster('x')`) resolve in declaration order.
  for (const [name, init] of ordered) {
    const sdk = sdkOf(skipParens(init), bindings);
    bindings.set(name, sdk ?? { kind: 'value', node: init });
  }
  // A file-form script's function is started with the SDK as its first parameter (file-form.ts).
  if (mainSdk !== undefined && declared.get(mainSdk) === 1) bindings.set(mainSdk, { kind: 'sdk' });
  // Marking every other declared name keeps a script's own `pve` variable from passing for the SDK.
  for (const name of declared.keys()) if (!bindings.has(name)) bindings.set(name, { kind: 'opaque' });
  return bindings;
}

/** The first parameter's name of the file form's script function (`const __pve$= async (pve, args) => …`). */
function sdkParameterOf(init: TS.Expression): string | undefined {
  let fn: TS.Expression = init;
  while (ts.isParenthesizedExpression(fn) || ts.isSatisfiesExpression(fn) || ts.isAsExpression(fn)) fn = fn.expression;
  if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn)) return undefined;
  const first = fn.parameters[0];
  return first && ts.isIdentifier(first.name) ? first.name.text : undefined;
}

function bindingNames(name: TS.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  const names: string[] = [];
  for (const el of name.elements) if (!ts.isOmittedExpression(el)) names.push(...bindingNames(el.name));
  return names;
}

function readPath(arg: TS.Expression, bindings: Map<string, Binding>): { text: string; holes: boolean } | null {
  const parts = stringParts(arg, bindings, 0);
  if (!parts) return null;
  let text = '';
  let holes = false;
  for (const part of parts) {
    if (part === UNKNOWN) {
      text += '{?}';
      holes = true;
    } else {
      text += part;
    }
  }
  return { text, holes };
}

/**
 * The pieces of a string-valued expression; `UNKNOWN` marks a run-time value. Null when the
 * expression is not recognisably a string at all.
 */
function stringParts(expr: TS.Expression, bindings: Map<string, Binding>, depth: number): Array<string | typeof UNKNOWN> | null {
  expr = skipParens(expr);
  if (depth > 20) return null;
  if (ts.isStringLiteralLike(expr)) return [expr.text];
  if (ts.isTemplateExpression(expr)) {
    const parts: Array<string | typeof UNKNOWN> = [expr.head.text];
    for (const span of expr.templateSpans) {
      const value = evaluate(span.expression, bindings, depth + 1);
      parts.push(isPrimitive(value) ? String(value) : UNKNOWN, span.literal.text);
    }
    return parts;
  }
  if (ts.isBinaryExpression(expr) && expr.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = stringParts(expr.left, bindings, depth + 1);
    const right = stringParts(expr.right, bindings, depth + 1);
    if (!left && !right) return null;
    return [...(left ?? valuePart(expr.left, bindings, depth)), ...(right ?? valuePart(expr.right, bindings, depth))];
  }
  if (ts.isIdentifier(expr)) {
    const bound = bindings.get(expr.text);
    if (bound?.kind === 'value') return stringParts(bound.node, bindings, depth + 1);
  }
  return null;
}

function valuePart(expr: TS.Expression, bindings: Map<string, Binding>, depth: number): Array<string | typeof UNKNOWN> {
  const value = evaluate(expr, bindings, depth + 1);
  return [isPrimitive(value) ? String(value) : UNKNOWN];
}

function readParams(arg: TS.Expression | undefined, bindings: Map<string, Binding>): Pick<SdkCall, 'params' | 'paramsComplete' | 'unknownParams'> {
  if (!arg) return { params: {}, paramsComplete: true, unknownParams: [] };
  let expr = skipParens(arg);
  for (let hops = 0; ts.isIdentifier(expr) && hops < 20; hops++) {
    const bound = bindings.get(expr.text);
    if (bound?.kind !== 'value') break;
    expr = skipParens(bound.node);
  }
  if (!ts.isObjectLiteralExpression(expr)) return { params: null, paramsComplete: false, unknownParams: [] };

  const params: Record<string, unknown> = {};
  const unknownParams: string[] = [];
  let complete = true;
  for (const prop of expr.properties) {
    const key = propertyKey(prop, bindings);
    if (key === undefined) {
      complete = false; // spread, computed key, method...
      continue;
    }
    const value = ts.isShorthandPropertyAssignment(prop) ? evaluate(prop.name, bindings, 0) : ts.isPropertyAssignment(prop) ? evaluate(prop.initializer, bindings, 0) : UNKNOWN;
    if (value === UNKNOWN) {
      unknownParams.push(key);
      complete = false;
    } else {
      defineData(params, key, value);
    }
  }
  return { params, paramsComplete: complete, unknownParams };
}

function propertyKey(prop: TS.ObjectLiteralElementLike, bindings: Map<string, Binding>): string | undefined {
  if (!ts.isPropertyAssignment(prop) && !ts.isShorthandPropertyAssignment(prop)) return undefined;
  const name = prop.name;
  if (ts.isIdentifier(name) || ts.isStringLiteralLike(name) || ts.isNumericLiteral(name)) return name.text;
  if (ts.isComputedPropertyName(name)) {
    const key = evaluate(name.expression, bindings, 0);
    return typeof key === 'string' || typeof key === 'number' ? String(key) : undefined;
  }
  return undefined;
}

/** The compile-time value of an expression, or `UNKNOWN`. Only JSON-like data is produced. */
function evaluate(expr: TS.Expression, bindings: Map<string, Binding>, depth: number): Static {
  expr = skipParens(expr);
  if (depth > 20) return UNKNOWN;
  if (ts.isStringLiteralLike(expr)) return expr.text;
  if (ts.isNumericLiteral(expr)) return Number(expr.text);
  if (expr.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (expr.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (expr.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isPrefixUnaryExpression(expr) && ts.isNumericLiteral(expr.operand)) {
    if (expr.operator === ts.SyntaxKind.MinusToken) return -Number(expr.operand.text);
    if (expr.operator === ts.SyntaxKind.PlusToken) return Number(expr.operand.text);
  }
  if (ts.isAsExpression(expr) || ts.isSatisfiesExpression(expr) || ts.isNonNullExpression(expr)) {
    return evaluate(expr.expression, bindings, depth + 1);
  }
  if (ts.isTemplateExpression(expr) || ts.isBinaryExpression(expr)) {
    const parts = stringParts(expr, bindings, depth + 1);
    if (!parts || parts.includes(UNKNOWN)) return UNKNOWN;
    return parts.join('');
  }
  if (ts.isIdentifier(expr)) {
    if (expr.text === 'undefined') return UNKNOWN;
    const bound = bindings.get(expr.text);
    return bound?.kind === 'value' ? evaluate(bound.node, bindings, depth + 1) : UNKNOWN;
  }
  if (ts.isArrayLiteralExpression(expr)) {
    const items: unknown[] = [];
    for (const el of expr.elements) {
      const v = ts.isSpreadElement(el) ? UNKNOWN : evaluate(el, bindings, depth + 1);
      if (v === UNKNOWN) return UNKNOWN;
      items.push(v);
    }
    return items;
  }
  if (ts.isObjectLiteralExpression(expr)) {
    const obj: Record<string, unknown> = {};
    for (const prop of expr.properties) {
      const key = propertyKey(prop, bindings);
      if (key === undefined) return UNKNOWN;
      const v = ts.isShorthandPropertyAssignment(prop) ? evaluate(prop.name, bindings, depth + 1) : evaluate((prop as TS.PropertyAssignment).initializer, bindings, depth + 1);
      if (v === UNKNOWN) return UNKNOWN;
      defineData(obj, key, v);
    }
    return obj;
  }
  return UNKNOWN;
}

/** Own data property even for `__proto__`, so a literal key can never reach a prototype. */
function defineData(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function skipParens(expr: TS.Expression): TS.Expression {
  while (ts.isParenthesizedExpression(expr)) expr = expr.expression;
  return expr;
}

function isPrimitive(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}
