/**
 * Where tests and benchmarks find Proxmox's official apidoc files. They are AGPL data kept outside the
 * repository, so everything that needs them asks here and skips when they are absent.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageRoot } from './package-root.js';

export const OFFICIAL_VERSIONS = ['9.1', '8.4', '7.3'] as const;
export type OfficialVersion = (typeof OFFICIAL_VERSIONS)[number];

/** Paths/operations each official file must yield (counted independently from the raw files). */
export const OFFICIAL_COUNTS: Readonly<Record<OfficialVersion, { paths: number; operations: number }>> = {
  '9.1': { paths: 435, operations: 649 },
  '8.4': { paths: 400, operations: 605 },
  '7.3': { paths: 357, operations: 528 },
};

/** `PVE_SCHEMA_DIR`, else `../shared/pve-schema` relative to the repository root. */
export function officialSchemaDir(): string {
  return resolve(process.env.PVE_SCHEMA_DIR ?? join(packageRoot(), '..', 'shared', 'pve-schema'));
}

export function officialSchemaFile(version: OfficialVersion): string {
  return join(officialSchemaDir(), `apidoc-pve-${version}.js`);
}

/**
 * Whether the official file is there. Under CI (`CI=true`, where it always is) a missing file is an
 * error instead of a reason to skip: a suite that silently skips there proves nothing.
 */
export function hasOfficialSchema(version: OfficialVersion): boolean {
  const file = officialSchemaFile(version);
  if (existsSync(file)) return true;
  if (process.env.CI === 'true') {
    throw new Error(`${file} is missing and CI=true: the official-schema suites must run in CI. ${OFFICIAL_SCHEMA_SKIP_MESSAGE}`);
  }
  return false;
}

export const OFFICIAL_SCHEMA_SKIP_MESSAGE = 'official PVE schemas not found: set PVE_SCHEMA_DIR to the directory holding apidoc-pve-<version>.js';
