/**
 * The texts one arm puts into the model's context for one task, in order: each tool call the
 * model writes (name + arguments as JSON) and each tool result it reads. The user's request and
 * the final answer are the same in both arms and left out.
 */
import { contextJson, countTokens } from './count.js';

export interface ContextEntry {
  kind: 'call' | 'result';
  text: string;
  tokens: number;
}

export class Transcript {
  readonly entries: ContextEntry[] = [];
  #tokens = 0;
  #calls = 0;

  call(tool: string, args: unknown): void {
    this.#calls++;
    this.#add('call', contextJson({ name: tool, arguments: args ?? {} }));
  }

  result(text: string): void {
    this.#add('result', text);
  }

  get tokens(): number {
    return this.#tokens;
  }

  /** Tool calls, i.e. model turns in a tool-calling loop (parallel calls aside). */
  get calls(): number {
    return this.#calls;
  }

  render(): string {
    return this.entries.map((e) => `--- ${e.kind} (${e.tokens} tokens)\n${e.text}`).join('\n');
  }

  #add(kind: ContextEntry['kind'], text: string): void {
    const tokens = countTokens(text);
    this.#tokens += tokens;
    this.entries.push({ kind, text, tokens });
  }
}
