/**
 * The safety stores of one process over where its state lives: the state directory (files, one
 * host) or a PostgreSQL database shared by replicas. What the composition (src/app) and the CLI
 * commands build their stores with, so every one of them agrees on the backend.
 */
import type { PostgresState } from '../state/postgres/sql.js';
import { ApprovalStore } from './approval.js';
import { PostgresApprovalBackend } from './approval-postgres.js';
import { eitherSwitch, HaltSwitch, type KillSwitch } from './halt.js';
import { PostgresHalt } from './halt-postgres.js';
import { PostgresStandingBackend } from './standing-postgres.js';
import { StandingStore } from './standing-store.js';

export interface SafetyStores {
  /** Plans and approvals (unbound: `forPrincipal` or `new ApprovalStore(approvals.backend, …)` for a principal's view). */
  approvals: ApprovalStore;
  standing: StandingStore;
  /** The host's switch file. */
  haltFile: HaltSwitch;
  /** The deployment's switch, the `halt` row; only with PostgreSQL. */
  haltRow?: PostgresHalt;
  /** What the bridge asks before each change: the host file, then (when shared) the row; either halts. */
  killSwitch: KillSwitch;
}

export interface SafetyStoreOptions {
  /** The host's kill switch file (config `halt.file`). */
  haltFile: string;
  /** The config file naming the database, for the commands hints show an operator (`--config`). */
  configFile?: string;
}

/** Where the state lives: the state directory, and the shared database when there is one (it wins). */
export interface StateLocation {
  dir: string;
  postgres?: PostgresState;
}

/** Plans and approvals where the state lives; `configFile` names the database in hints (`--config`). */
export function approvalStoreAt(state: StateLocation, configFile?: string): ApprovalStore {
  return new ApprovalStore(state.postgres ? new PostgresApprovalBackend(state.postgres, configFile) : state.dir);
}

/** Standing approvals where the state lives. */
export function standingStoreAt(state: StateLocation): StandingStore {
  return new StandingStore(state.postgres ? new PostgresStandingBackend(state.postgres) : state.dir);
}

export function safetyStores(state: StateLocation, options: SafetyStoreOptions): SafetyStores {
  const haltFile = HaltSwitch.open(options.haltFile);
  const approvals = approvalStoreAt(state, options.configFile);
  const standing = standingStoreAt(state);
  const pg = state.postgres;
  if (!pg) return { approvals, standing, haltFile, killSwitch: haltFile };
  const haltRow = new PostgresHalt(pg);
  return {
    approvals,
    standing,
    haltFile,
    haltRow,
    // The file first: a stat costs less than a round trip, and a halted host needs no database.
    killSwitch: eitherSwitch(haltFile, haltRow),
  };
}
