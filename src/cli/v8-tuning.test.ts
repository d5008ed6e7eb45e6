import { describe, expect, it } from 'vitest';
import { SERVER_STARTUP_FLAGS, SERVER_V8_FLAGS, SERVER_YOUNG_GENERATION_FLAGS, tuneV8ForCommand, tuneV8ForServer } from './v8-tuning.js';

describe('tuneV8ForServer', () => {
  it('leaves alone the flags the operator gave node, whatever their spelling', () => {
    const given = ['--heap_growing_percent=80', '--max-optimized-bytecode-size', '60000', '--inspect'];
    expect(tuneV8ForServer(given)).toEqual([]);
  });

  it('applies the others', () => {
    const applied = tuneV8ForServer(['--max-optimized-bytecode-size=60000']);
    // Written out, not derived from SERVER_V8_FLAGS: a flag dropped from the list must fail here.
    expect(applied).toEqual(['--heap-growing-percent=30']);
    expect(SERVER_V8_FLAGS).toEqual(['--heap-growing-percent=30', '--max-optimized-bytecode-size=16384']);
  });
});

describe('tuneV8ForCommand', () => {
  it('keeps the young generation small and WebAssembly in the baseline compiler, for the serving commands only', () => {
    expect(SERVER_YOUNG_GENERATION_FLAGS).toEqual(['--semi-space-growth-factor=1']);
    expect(SERVER_STARTUP_FLAGS).toEqual(['--liftoff-only']);
    expect(tuneV8ForCommand(['run', 'x.ts'], [])).toEqual([]);
    expect(tuneV8ForCommand(['serve'], [])).toEqual(['--semi-space-growth-factor=1', '--liftoff-only']);
  });

  it('leaves the young generation to an operator who sized it', () => {
    expect(tuneV8ForCommand(['serve'], ['--max_semi_space_size=8'])).toEqual(['--liftoff-only']);
    expect(tuneV8ForCommand(['serve'], ['--semi-space-growth-factor=2'])).toEqual(['--liftoff-only']);
  });

  it('leaves the compiler to an operator who chose one', () => {
    expect(tuneV8ForCommand(['serve'], ['--liftoff_only'])).toEqual(['--semi-space-growth-factor=1']);
    expect(tuneV8ForCommand(['serve'], ['--no-liftoff-only'])).toEqual(['--semi-space-growth-factor=1']);
  });
});
