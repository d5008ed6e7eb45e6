/**
 * The PVE releases the simulator can claim to be (`pveVersion`): what `/version` and
 * `/nodes/{node}/version` report (version, release, the pve-manager build's commit) and the wire
 * texts that depend on the release. The commit IDs are those of the version bumps in the public
 * pve-manager repository.
 *
 * Since pve-manager 9.1.5 (and 8.4.17 on the 8.x branch) the API daemon answers every bad ticket
 * or token with one text, `Authentication failed!`; older releases give the reason
 * (`permission denied - invalid PVE ticket`, `invalid token value!`, `no such token …`).
 */
import type { AuthFailureStyle } from './access/authenticate.js';

const REPOIDS: Record<string, string> = {
  '8.4.0': 'ec58e45e',
  '8.4.1': '2a5fa54a',
  '8.4.2': '930c59e2',
  '8.4.3': '807436b0',
  '8.4.4': '9c9c7106',
  '8.4.5': '57892e8e',
  '8.4.6': 'c5b55b84',
  '8.4.7': '1c3f9205',
  '8.4.8': '88beaf42',
  '8.4.9': '649acf70',
  '8.4.10': '293f4abc',
  '8.4.11': '14a32011',
  '8.4.12': 'c2ea8261',
  '8.4.13': '5b08ebc2',
  '8.4.14': 'b502d23c',
  '8.4.15': 'dc05d9ae',
  '8.4.16': '368e3c45',
  '8.4.17': 'c8c39014',
  '8.4.18': '40eb4ac1',
  '8.4.19': 'a68fb383',
  '8.4.20': '2cd51c80',
  '8.4.21': '2606ac85',
  '9.1.1': 'f4d3f125',
  '9.1.2': '9d436f37',
  '9.1.3': '5829c814',
  '9.1.4': '5ac30304',
  '9.1.5': '80cf92a6',
  '9.1.6': '71482d18',
  '9.1.7': '16b139a0',
  '9.1.8': 'a8e257e1',
  '9.1.9': 'ee7bad0a',
  '9.1.10': 'cf3780f9',
  '9.1.11': '8eac2c86',
  '9.1.12': 'c4d6f2e2',
  '9.1.13': 'be4bff05',
  '9.1.14': '7d542528',
  '9.1.15': '392cc058',
  '9.1.16': 'f96ca511',
  '9.1.17': '5a0c4302',
  '9.1.18': '71ba5528',
  '9.1.19': '076d7c3c',
};

export const KNOWN_PVE_VERSIONS: readonly string[] = Object.keys(REPOIDS);

/** The default: a current 9.1 release, whose 401 texts are the unified `Authentication failed!`. */
export const DEFAULT_PVE_VERSION = '9.1.19';

/** The first release of each branch with the unified 401 text. */
const UNIFIED_AUTH_TEXT: Record<string, number> = { '8.4': 17, '9.1': 5 };

export interface PveRelease {
  version: string;
  release: string;
  repoid: string;
  /** 401 reason texts of this release. */
  authFailureStyle: AuthFailureStyle;
  /** Kernel the release's nodes boot by default. */
  kernel: string;
}

export function pveRelease(version: string): PveRelease {
  const repoid = REPOIDS[version];
  if (repoid === undefined) throw new RangeError(`unknown PVE version '${version}'; known: ${KNOWN_PVE_VERSIONS.join(', ')}`);
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  const release = `${major}.${minor}`;
  const firstUnified = UNIFIED_AUTH_TEXT[release] ?? Number.POSITIVE_INFINITY;
  return {
    version,
    release,
    repoid,
    authFailureStyle: patch >= firstUnified ? 'modern' : 'legacy',
    kernel: major === 8 ? '6.8.12-9-pve' : '6.17.2-1-pve',
  };
}
