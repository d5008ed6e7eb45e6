import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from './json-schema.js';
import { packageRoot } from '../../schema/package-root.js';

const shipped = (): unknown => JSON.parse(readFileSync(join(packageRoot(), 'schema', 'config.schema.json'), 'utf8'));
const readmeExample = (): Record<string, unknown> => {
  const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
  const m = /```json\n(\{\n {2}"\$schema"[\s\S]*?\n\})\n```/.exec(readme.replace(/^ {3}/gm, ''));
  if (!m?.[1]) throw new Error('README has no config example with "$schema"');
  return JSON.parse(m[1]) as Record<string, unknown>;
};

describe('config JSON Schema', () => {
  it('is shipped as generated from the zod schemas (regenerate: pve-code-mcp config schema > schema/config.schema.json)', () => {
    expect(shipped()).toEqual(configJsonSchema());
  });

  it('accepts the README example and rejects typos editors should flag', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validate = ajv.compile(configJsonSchema());
    const example = readmeExample();
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    const typo = structuredClone(example) as { clusters: { prod: Record<string, unknown> }; policies: { 'prod-ops': Record<string, unknown> } };
    typo.clusters.prod.tsl = {};
    expect(validate(typo)).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain('tsl');
    const badPreset = structuredClone(example) as typeof typo;
    badPreset.policies['prod-ops'].preset = 'operater';
    expect(validate(badPreset)).toBe(false);
    const badTarget = structuredClone(example) as typeof typo;
    badTarget.policies['prod-ops'].targets = [{ action: 'block', vmids: [100] }];
    expect(validate(badTarget)).toBe(false);
  });
});
