import { describe, expect, it } from 'vitest';
import { SERVER_V8_FLAGS, tuneV8ForServer } from './v8-tuning.js';

describe('tuneV8ForServer', () => {
  it('leaves alone the flags the operator gave node, whatever their spelling', () => {
    const given = ['--heap_growing_percent=80', '--max-optimized-bytecode-size', '60000', '--inspect'];
    expect(tuneV8ForServer(given)).toEqual([]);
  });

  it('applies the others', () => {
    const applied = tuneV8ForServer(['--max-optimized-bytecode-size=60000']);
    expect(applied).toEqual(SERVER_V8_FLAGS.filter((f) => f.startsWith('--heap-growing-percent')));
  });
});
