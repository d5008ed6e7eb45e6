/**
 * Messages between the server and the type-check process. Both sides validate every message: the
 * server trusts nothing a child process says (it may be broken, or out of memory mid-write), and
 * the type-check process refuses anything malformed rather than guessing.
 */
import { z } from 'zod';
import { argSpecsSchema } from './args.js';
import { pathCatalogSchema } from './path-catalog.js';

const requestId = z.number().int().positive();
/** A declaration set's key: `declarationsHash` plus the schema hash. */
export const setIdSchema = z.string().min(1).max(200);
const text = (max: number) => z.string().max(max);

export const declarationSetSchema = z
  .object({
    id: setIdSchema,
    files: z
      .array(z.object({ fileName: text(1_000).min(1), text: text(64 * 1024 * 1024) }).strict())
      .min(1)
      .max(1_000),
    /** Lets literal paths be checked against the API. */
    paths: pathCatalogSchema.optional(),
  })
  .strict();
export type DeclarationSet = z.infer<typeof declarationSetSchema>;

export const hostToCheckerSchema = z.discriminatedUnion('type', [
  /** Build (and warm) a checker for this set; answered by `loaded` or `failed`. */
  z.object({ type: z.literal('load'), id: requestId, set: declarationSetSchema }).strict(),
  /**
   * `budgetMs: null` = no budget (JSON has no Infinity). `transpile`: also compile the script for
   * the sandbox and find its secret literals (then a syntax error or a shape limit answers at
   * once, without a type check).
   */
  z.object({ type: z.literal('check'), id: requestId, setId: setIdSchema, code: text(16 * 1024 * 1024), budgetMs: z.number().nullable(), transpile: z.boolean().optional() }).strict(),
  /** Compile a script that skips the check (no declaration set needed); answered by `compiled`. */
  z.object({ type: z.literal('compile'), id: requestId, code: text(16 * 1024 * 1024) }).strict(),
]);
export type HostToChecker = z.infer<typeof hostToCheckerSchema>;

const diagnosticSchema = z
  .object({
    line: z.number().int(),
    col: z.number().int(),
    message: text(100_000),
    severity: z.enum(['error', 'warning']),
    code: z.number().int().optional(),
    hint: text(10_000).optional(),
  })
  .strict();

export const checkResultSchema = z
  .object({
    ok: z.boolean(),
    errors: z.array(diagnosticSchema).max(100_000),
    warnings: z.array(diagnosticSchema).max(100_000),
    timedOut: z.boolean(),
    ms: z.number().nonnegative(),
  })
  .strict();

/** `SdkCall` (calls.ts): what the preflight reads; the bridge checks every call again at run time. */
const sdkCallSchema = z
  .object({
    method: z.enum(['GET', 'POST', 'PUT', 'DELETE']),
    path: text(100_000).nullable(),
    pathIsTemplate: z.boolean(),
    params: z.record(z.string(), z.unknown()).nullable(),
    paramsComplete: z.boolean(),
    unknownParams: z.array(text(10_000)).max(100_000),
    line: z.number().int(),
    col: z.number().int(),
    cluster: text(1_000).optional(),
    clusterUnknown: z.boolean().optional(),
  })
  .strict();

/** `PortableTranspile` (transpile.ts). */
export const transpiledSchema = z.discriminatedUnion('ok', [
  z
    .object({
      ok: z.literal(true),
      js: text(64 * 1024 * 1024),
      sourceMapText: text(64 * 1024 * 1024).optional(),
      lines: z.number().int().nonnegative(),
      calls: z.array(sdkCallSchema).max(100_000),
      form: z.literal('file').optional(),
      args: argSpecsSchema.optional(),
    })
    .strict(),
  z.object({ ok: z.literal(false), diagnostics: z.array(diagnosticSchema).min(1).max(100_000) }).strict(),
]);

/** `SecretScan` (compiled.ts): offsets are checked against the source by the server. */
export const secretScanSchema = z
  .object({
    literals: z.array(text(16 * 1024 * 1024)).max(100_000),
    spans: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])).max(10_000_000),
    allStrings: z.boolean().optional(),
  })
  .strict();

const rssMb = z.number().nonnegative();

export const checkerToHostSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), pid: z.number().int() }).strict(),
  z.object({ type: z.literal('loaded'), id: requestId, ms: z.number().nonnegative(), rssMb }).strict(),
  z.object({ type: z.literal('result'), id: requestId, result: checkResultSchema, transpiled: transpiledSchema.optional(), secrets: secretScanSchema.optional(), rssMb }).strict(),
  /** `compileScript`'s answer (src/script/compile.ts), as the sandbox worker's `compiled`. */
  z.object({ type: z.literal('compiled'), id: requestId, transpiled: transpiledSchema, secrets: secretScanSchema, rssMb }).strict(),
  /** The request could not be served (unknown set, the checker threw); the process is still fine. */
  z.object({ type: z.literal('failed'), id: requestId, message: text(10_000) }).strict(),
  /** The process cannot go on (it received garbage, or an uncaught error): kill it. */
  z.object({ type: z.literal('fatal'), message: text(10_000) }).strict(),
]);
export type CheckerToHost = z.infer<typeof checkerToHostSchema>;
