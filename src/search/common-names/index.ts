/**
 * Common names: per operation, what operators call it — the nouns, verbs and questions of people
 * who run clusters, written in our own words for every operation of the 9.1 API. The schema names
 * operations in its developers' terms (`vzdump`, `pending`, `rrddata`); requests arrive in the
 * operators' ("back up", "changes that wait for a reboot", "CPU graph"). Indexed beside the
 * schema's text as document expansion: an operation is found by what it is called, whatever the
 * request's style, rather than by rules tuned on one set of requests. Keyed by `METHOD /path`, so
 * they apply to any schema version and to the simulator's own.
 */
import { ACCESS_CLUSTER_NAMES } from './access-cluster.js';
import { GUESTS_CEPH_NAMES } from './guests-ceph.js';
import { NETWORK_FIREWALL_NAMES } from './network-firewall.js';
import { NODE_NAMES } from './nodes.js';

/** Every area's table, for the test that checks them against the schema. */
export const COMMON_NAME_TABLES: ReadonlyArray<Readonly<Record<string, string>>> = [ACCESS_CLUSTER_NAMES, NETWORK_FIREWALL_NAMES, GUESTS_CEPH_NAMES, NODE_NAMES];

const BY_KEY: ReadonlyMap<string, string> = new Map(COMMON_NAME_TABLES.flatMap((table) => Object.entries(table)));

/** The common names of an operation (`GET /cluster/resources`), '' when it has none. */
export function commonNames(key: string): string {
  return BY_KEY.get(key) ?? '';
}
