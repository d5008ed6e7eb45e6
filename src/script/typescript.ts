/**
 * The TypeScript compiler, loaded with `require`. An ESM `import` of its 9 MB CommonJS file first
 * runs Node's scan for CommonJS named exports over all of it: loading took 700–900 ms that way
 * against 320–450 ms with `require` (docs/benchmarks.md, "Session 15"), on the path of the first
 * run after idle (the sandbox worker compiles it) and of the type-check process's cold start.
 * Modules take the value from here, and the compiler's types as `TS` in a type-only import.
 */
import { createRequire } from 'node:module';
import type * as TS from 'typescript';

export const ts: typeof TS = createRequire(import.meta.url)('typescript');
