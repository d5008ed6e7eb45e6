/**
 * Malformed and hostile MCP requests for the fuzz tests: wrong types, missing fields, unknown
 * tools and methods, huge strings, broken JSON and broken JSON-RPC envelopes. Deterministic
 * (seeded) so a failure can be replayed.
 */

import { createRng } from '../../../src/simulator/cluster/prng.js';

export interface FuzzCase {
  /** One JSON-RPC message as sent on the wire (stdio line / HTTP body). */
  body: string;
  /** The id the error must carry; null when the server cannot read one (broken JSON/envelope). */
  id: string | number | null;
  /** Why it is malformed, for failure messages. */
  label: string;
}

const WEIRD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  'x',
  '',
  [],
  [1, 'a', null],
  {},
  { nested: { deeper: [{}] } },
  '\u0000\u202e\ud800',
  '<script>alert(1)</script>',
  "'; DROP TABLE vms; --",
  '../../../../etc/passwd',
];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

type Args = Record<string, unknown> | unknown;

/** Tool arguments that fail the tool's input schema. */
function badToolCall(rand: () => number, huge: (n: number) => string): { name: unknown; args: Args; label: string } {
  const weird = () => pick(rand, WEIRD_VALUES);
  const nonString = () =>
    pick(
      rand,
      WEIRD_VALUES.filter((v) => typeof v !== 'string'),
    );
  const variants: Array<() => { name: unknown; args: Args; label: string }> = [
    () => ({ name: 'search_api', args: {}, label: 'search_api without query' }),
    () => ({ name: 'search_api', args: { query: pick(rand, [42, null, [], {}, true]) }, label: 'search_api query of wrong type' }),
    () => ({ name: 'search_api', args: { query: huge(600 + Math.floor(rand() * 5000)) }, label: 'search_api query too long' }),
    () => ({ name: 'search_api', args: { query: 'vm', limit: pick(rand, [0, -5, 1.5, '10']) }, label: 'search_api bad limit' }),
    () => ({ name: 'search_api', args: { query: 'vm', method: pick(rand, ['PATCH', 7, '']) }, label: 'search_api bad method' }),
    () => ({ name: 'search_api', args: { query: 'vm', risk: pick(rand, ['harmless', 3, null]) }, label: 'search_api bad risk' }),
    () => ({ name: 'search_api', args: { query: '', pathPrefix: huge(500) }, label: 'search_api empty query, prefix over its 200-character limit' }),
    () => ({ name: 'get_schema', args: {}, label: 'get_schema without operations' }),
    () => ({ name: 'get_schema', args: { operations: pick(rand, ['GET /nodes', 5, null, {}]) }, label: 'get_schema operations not an array' }),
    () => ({ name: 'get_schema', args: { operations: [] }, label: 'get_schema empty operations' }),
    () => ({ name: 'get_schema', args: { operations: [1, {}, null] }, label: 'get_schema operations of wrong type' }),
    () => ({ name: 'get_schema', args: { operations: Array.from({ length: 21 + Math.floor(rand() * 500) }, () => 'GET /nodes') }, label: 'get_schema too many operations' }),
    () => ({ name: 'get_schema', args: { operations: [huge(400)] }, label: 'get_schema operation too long' }),
    () => ({ name: 'run_script', args: {}, label: 'run_script without code' }),
    () => ({ name: 'run_script', args: { code: pick(rand, [123, null, [], {}, false]) }, label: 'run_script code of wrong type' }),
    () => ({ name: 'run_script', args: { code: '' }, label: 'run_script empty code' }),
    () => ({ name: 'run_script', args: { code: huge(100_001 + Math.floor(rand() * 50_000)) }, label: 'run_script code too long' }),
    () => ({ name: 'run_script', args: { code: 'return 1', dryRun: pick(rand, ['yes', 1, null, {}]) }, label: 'run_script dryRun of wrong type' }),
    () => ({ name: 'run_script', args: { code: 'return 1', cluster: pick(rand, [42, {}, huge(200)]) }, label: 'run_script bad cluster' }),
    () => ({ name: 'run_script', args: { code: 'return 1', typecheck: pick(rand, ['no', 0]) }, label: 'run_script typecheck of wrong type' }),
    () => ({ name: 'run_script', args: pick(rand, [null, [], 'code', 7]), label: 'run_script arguments not an object' }),
    () => ({ name: pick(rand, ['delete_everything', 'search', 'RUN_SCRIPT', '', huge(1000)]), args: {}, label: 'unknown tool' }),
    () => ({ name: pick(rand, [42, null, {}, []]), args: {}, label: 'tool name of wrong type' }),
    () => ({ name: 'search_api', args: { query: nonString() }, label: 'search_api query of weird type' }),
    () => ({ name: 'get_schema', args: { operations: [weird(), 1] }, label: 'get_schema operations with a non-string' }),
  ];
  return pick(rand, variants)();
}

/**
 * `count` malformed requests. Requests carry ids (numbers and strings) so every answer can be
 * matched; envelope-level garbage expects an answer with a null id.
 */
export function fuzzCases(count: number, seed = 7): FuzzCase[] {
  const rand = createRng(seed).next;
  const huge = (n: number) => 'Ω'.repeat(Math.ceil(n / 2)).slice(0, n);
  const cases: FuzzCase[] = [];
  for (let i = 0; cases.length < count; i++) {
    const id: string | number = rand() < 0.3 ? `req-${i}` : 10_000 + i;
    const request = (method: unknown, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
    const roll = rand();
    if (roll < 0.55) {
      const call = badToolCall(rand, huge);
      cases.push({ body: request('tools/call', { name: call.name, arguments: call.args }), id, label: call.label });
    } else if (roll < 0.62) {
      cases.push({ body: request('tools/call', pick(rand, [undefined, null, 'x', 5, [], { arguments: {} }])), id, label: 'tools/call with bad params' });
    } else if (roll < 0.7) {
      const method = pick(rand, ['tools/explode', 'prompts/explode', 'sampling/createMessage', 'rm -rf /', huge(2000), 'TOOLS/LIST']);
      cases.push({ body: request(method, {}), id, label: 'unknown method' });
    } else if (roll < 0.76) {
      const params = pick(rand, [{ uri: 'pve://nowhere/policy' }, { uri: 'file:///etc/passwd' }, { uri: 42 }, {}, { uri: huge(5000) }]);
      cases.push({ body: request('resources/read', params), id, label: 'resources/read bad uri' });
    } else if (roll < 0.8) {
      cases.push({ body: request('logging/setLevel', { level: pick(rand, ['loud', 3, null]) }), id, label: 'logging/setLevel bad level' });
    } else if (roll < 0.86) {
      // Envelope errors where the id is still readable: answered with that id.
      const body = pick(rand, [
        { jsonrpc: '2.0', id, method: 42 },
        { jsonrpc: '1.0', id, method: 'tools/list' },
        { id, method: 'tools/list' },
        { jsonrpc: '2.0', id },
        { jsonrpc: '2.0', id, method: 'tools/call', params: 'string params' },
      ]);
      cases.push({ body: JSON.stringify(body), id, label: 'broken envelope with id' });
    } else {
      const body = pick(rand, [
        'not json at all',
        '{',
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"',
        'null',
        '42',
        '"a string"',
        '[]',
        JSON.stringify({ jsonrpc: '2.0', id: { object: 'id' }, method: 'tools/list' }),
        JSON.stringify({ jsonrpc: '2.0', id: null, method: 'tools/list' }),
        JSON.stringify({ jsonrpc: '2.0', id: true, method: 'tools/list' }),
        '\u0000\u0001\u0002',
        '{"a":' + '['.repeat(5000) + ']'.repeat(5000) + '}',
        huge(20_000),
      ]);
      cases.push({ body, id: null, label: 'not a JSON-RPC message' });
    }
  }
  return cases;
}

/** A few very large messages (megabytes), answered by an error and not by a crash. */
export function hugeCases(): FuzzCase[] {
  const big = (n: number) => 'A'.repeat(n);
  return [
    { body: JSON.stringify({ jsonrpc: '2.0', id: 'huge-1', method: 'tools/call', params: { name: 'search_api', arguments: { query: big(1_000_000) } } }), id: 'huge-1', label: '1 MB query' },
    { body: JSON.stringify({ jsonrpc: '2.0', id: 'huge-2', method: 'tools/call', params: { name: 'run_script', arguments: { code: big(3_000_000) } } }), id: 'huge-2', label: '3 MB script' },
    { body: JSON.stringify({ jsonrpc: '2.0', id: 'huge-3', method: big(2_000_000) }), id: 'huge-3', label: '2 MB method name' },
    // Over the 4 MB message limit: dropped unread, so the answer cannot carry the id.
    { body: JSON.stringify({ jsonrpc: '2.0', id: 'huge-4', method: 'tools/list', params: { pad: big(5_000_000) } }), id: null, label: '5 MB message' },
  ];
}

/** Is `reply` an acceptable answer to a malformed request: a JSON-RPC error or a tool error? */
export function isErrorAnswer(reply: unknown): boolean {
  if (reply === null || typeof reply !== 'object') return false;
  const r = reply as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown }; result?: { isError?: unknown; content?: unknown } };
  if (r.jsonrpc !== '2.0') return false;
  if (r.error) return typeof r.error.code === 'number' && typeof r.error.message === 'string';
  return r.result?.isError === true && Array.isArray(r.result.content);
}
