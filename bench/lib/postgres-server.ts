/**
 * A real PostgreSQL server for the shared-state tests: Debian's `postgresql` binaries, a fresh
 * cluster in a temporary directory, listening on 127.0.0.1 at a free port below the ephemeral
 * range. `initdb` and `pg_ctl` refuse to run as root, so as root the cluster belongs to the
 * `postgres` account (Debian's package creates it) and the binaries run under it. Under CI=true a missing server fails the
 * suite (.ci/run installs it); elsewhere the suites that need it skip and say why.
 *
 * It lives under bench/ (built into dist/, unlike test/) because the `state` benchmark starts the
 * same server; the tests import it through test/support/postgres.ts.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const PG_ROOT = '/usr/lib/postgresql';
const RUN_AS = 'postgres';

function binDir(): string | undefined {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(PG_ROOT, versions[0], 'bin') : undefined;
}

function accountIds(name: string): { uid: number; gid: number } | undefined {
  const r = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (r.status !== 0 || g.status !== 0) return undefined;
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. Throws under CI instead. */
export function postgresUnavailable(): string | undefined {
  let why: string | undefined;
  if (!binDir()) why = `no PostgreSQL server binaries under ${PG_ROOT} (install Debian's postgresql, or set PG_BIN_DIR)`;
  else if (userInfo().uid === 0 && !accountIds(RUN_AS)) why = `running as root and there is no '${RUN_AS}' account to run the server under`;
  if (why && process.env.CI === 'true') throw new Error(`PostgreSQL tests must run under CI: ${why}`);
  return why;
}

export interface TestPostgres {
  /** The URL of a database of this server (user `postgres`, no password: trust on loopback). */
  url(database: string): string;
  /** A new empty database; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stop the server the hard way and remove its files. */
  stop(): Promise<void>;
  /** Stop the server (fast shutdown: connections are cut) and keep its files, to start it again. */
  pause(): void;
  /** Start a paused server again, on the same port. */
  resume(): void;
}

/**
 * The kernel hands out ports in its ephemeral range to every `listen(0)` and outgoing connection on
 * the machine. A paused server must get its port back, so it takes one below that range: nothing
 * else in the test run is given it while the server is down.
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2_048 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function stablePort(): Promise<number> {
  const high = ephemeralLow();
  const low = Math.max(1_025, high - 10_000);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port between ${low} and ${high} for the test PostgreSQL server`);
}

function run(bin: string, args: string[], asRoot: boolean, log?: string): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', RUN_AS, '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: '/tmp' });
  if (r.status === 0) return;
  // pg_ctl says only "examine the log output": the reason is in the server's log.
  const tail = log && existsSync(log) ? `\nserver log:\n${readFileSync(log, 'utf8').split('\n').slice(-15).join('\n')}` : '';
  throw new Error(`${bin} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}${tail}`);
}

export async function startPostgres(): Promise<TestPostgres> {
  const why = postgresUnavailable();
  if (why) throw new Error(why);
  const bin = binDir() as string;
  const asRoot = userInfo().uid === 0;
  const home = mkdtempSync('/tmp/pvemcp-pg-');
  const data = join(home, 'data');
  if (asRoot) {
    const ids = accountIds(RUN_AS) as { uid: number; gid: number };
    chownSync(home, ids.uid, ids.gid);
  }
  run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync'], asRoot);
  const port = await stablePort();
  const options = `-p ${port} -k ${home} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  const log = join(home, 'server.log');
  const start = () => run(join(bin, 'pg_ctl'), ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start'], asRoot, log);
  start();
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    spawnSync(asRoot ? 'runuser' : join(bin, 'pg_ctl'), asRoot ? ['-u', RUN_AS, '--', join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'] : ['-D', data, '-m', 'immediate', 'stop'], {
      cwd: '/tmp',
    });
    rmSync(home, { recursive: true, force: true });
  };
  process.once('exit', stopNow);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let n = 0;
  return {
    url,
    async createDatabase(name = `t${process.pid}_${++n}`) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async stop() {
      stopNow();
    },
    pause() {
      run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], asRoot);
    },
    resume: start,
  };
}
