/**
 * The independent client the product is measured against: a plain keep-alive HTTPS client
 * (node:https, nothing of the product's), in a process of its own, making the same sequential
 * GETs to the same simulator. Started as `node direct-client.js`; it reads one job per line on
 * stdin (`{"path", "query", "n"}`) and answers each with `{"ms"}` on stdout, so one process (one
 * warm connection) serves every repetition, as a long-lived script would.
 */
import { Agent, request } from 'node:https';
import { createInterface } from 'node:readline';

interface Job {
  path: string;
  query: Record<string, string>;
  n: number;
  /** A sweep instead: every path once, `concurrency` at a time over as many connections. */
  paths?: string[];
  concurrency?: number;
}

const url = new URL(process.argv[2] ?? '');
const authorization = process.argv[3] ?? '';
// Loopback simulator with a self-signed certificate: the product pins its fingerprint; here the
// TLS handshake happens once per connection either way, so verification does not show per call.
const agents = new Map<number, Agent>();
function agentFor(sockets: number): Agent {
  let agent = agents.get(sockets);
  if (!agent) agents.set(sockets, (agent = new Agent({ keepAlive: true, maxSockets: sockets, rejectUnauthorized: false })));
  return agent;
}

function get(path: string, query: Record<string, string>, agent = agentFor(1)): Promise<void> {
  const qs = new URLSearchParams(query).toString();
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: `/api2/json${path}${qs ? `?${qs}` : ''}`, agent, headers: { authorization } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${path}: HTTP ${res.statusCode}`));
        // Parsed as any client must, to use the answer.
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        resolve();
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

for await (const line of createInterface({ input: process.stdin })) {
  const job = JSON.parse(line) as Job;
  const started = performance.now();
  if (job.paths) {
    // As a script's Promise.all through the product: at most `concurrency` requests at once.
    const agent = agentFor(job.concurrency ?? 1);
    const queue = [...job.paths];
    const lane = async (): Promise<void> => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) await get(next, {}, agent);
    };
    await Promise.all(Array.from({ length: job.concurrency ?? 1 }, lane));
  } else {
    for (let i = 0; i < job.n; i++) await get(job.path, job.query);
  }
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - started })}\n`);
}
for (const agent of agents.values()) agent.destroy();
