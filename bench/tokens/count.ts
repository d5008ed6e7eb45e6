/**
 * Token counting for the context-size comparison: OpenAI's o200k_base encoding (GPT-4o and later)
 * from gpt-tokenizer, chosen because it is a real, published tokenizer that runs offline and gives
 * the same count for the same text every time. Other models' tokenizers differ by a few percent;
 * the ratios between the arms barely move.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

export const TOKENIZER = 'o200k_base (gpt-tokenizer 4.0.0)';

// Text that happens to spell a special token (`<|endoftext|>`) is counted as the ordinary text it is.
const PLAIN = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string): number {
  return encode(text, PLAIN).length;
}

/** How a JSON value is written into the context: compact, as MCP servers and SDKs serialize it. */
export function contextJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
