import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import type { DeclarationFile } from '../../src/typegen/index.js';

const libDir = dirname(ts.getDefaultLibFilePath({}));
const libCache = new Map<string, ts.SourceFile>();
const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  types: [],
};

/**
 * Compile declarations plus a script (as the body of an async function, like run_script) in memory
 * with `--strict` and only the ES library, and return every diagnostic as `file:line TSxxxx: text`.
 * A verification tool for the tests: it reports everything, unlike the sandbox's checker,
 * which decides what blocks a run.
 */
export function strictCheck(declarations: readonly DeclarationFile[], script: string): string[] {
  const sources = new Map<string, string>(declarations.map((f) => [`/sdk/${f.fileName}`, f.text]));
  sources.set('/sdk/agent.ts', `async function main() {\n${script}\n}\n`);
  const host = ts.createCompilerHost(OPTIONS);
  host.getSourceFile = (fileName, languageVersion) => {
    const text = sources.get(fileName);
    if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
    let lib = libCache.get(fileName);
    if (!lib) {
      lib = ts.createSourceFile(fileName, readFileSync(fileName, 'utf8'), languageVersion, true);
      libCache.set(fileName, lib);
    }
    return lib;
  };
  host.getDefaultLibLocation = () => libDir;
  host.getDefaultLibFileName = () => join(libDir, 'lib.es2022.d.ts');
  host.fileExists = (fileName) => sources.has(fileName) || ts.sys.fileExists(fileName);
  const program = ts.createProgram([...sources.keys()], OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
    return `${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}
