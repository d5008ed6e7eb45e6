/**
 * Opening the shared PostgreSQL store: connect (through the worker thread), bring its schema to
 * this build's version, and hand back the synchronous store.
 */
import { migrate } from './migrations.js';
import type { PostgresSettings } from './settings.js';
import { SyncPostgres, type PostgresState } from './sql.js';

export function openPostgres(settings: PostgresSettings): PostgresState {
  const store = new SyncPostgres(settings);
  try {
    migrate(store);
  } catch (err) {
    store.close();
    throw err;
  }
  return store;
}
