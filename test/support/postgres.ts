/**
 * A real PostgreSQL server for the shared-state tests: Debian's binaries, a fresh cluster on
 * 127.0.0.1 (skipped, saying why, where there is none; required under CI=true). The logic is in
 * bench/lib/postgres-server.ts, which the `state` benchmark runs from dist/ as well.
 */
export { postgresUnavailable, startPostgres, type TestPostgres } from '../../bench/lib/postgres-server.js';
