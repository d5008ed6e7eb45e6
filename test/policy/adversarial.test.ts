/**
 * The adversarial policy corpus end to end over stdio: a real MCP client (the SDK's Client over
 * stdio) drives `serve`, which talks over HTTPS to the simulator serving the official PVE 9.1
 * schema, with one cluster per corpus policy (the case's cluster decides). What each case must
 * show is in helpers/corpus-run.ts; adversarial-http.test.ts runs the same corpus over HTTP with
 * a principal per policy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasOfficialSchema, officialSchemaFile } from '../../src/schema/official-schemas.js';
import { CORPUS_POLICIES, corpusTests } from './helpers/corpus-run.js';
import { startPolicyEnv, type PolicyEnv } from './helpers/env.js';

let env: PolicyEnv;

beforeAll(async () => {
  env = await startPolicyEnv({ policies: CORPUS_POLICIES, defaultCluster: 'ro', simulator: { schemaFile: officialSchemaFile('9.1') }, name: 'corpus' });
}, 180_000);

afterAll(async () => {
  await env?.close();
});

describe.skipIf(!hasOfficialSchema('9.1'))('adversarial policy corpus through MCP against the simulator serving PVE 9.1', () => {
  corpusTests(
    () => env.sim,
    ({ cluster }, code) => env.run(code, { cluster }),
  );

  it('kept the server running throughout', async () => {
    const answer = await env.run('return (await pve.get("/version")).version', { cluster: 'ro' });
    expect(answer.ok).toBe(true);
  });
});
