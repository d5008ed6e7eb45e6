/**
 * Operator words: per operation, what operators call it — the nouns, verbs and questions of people
 * who run clusters, written in our own words for every operation of the 9.1 API. The schema names
 * operations in its developers' terms (`vzdump`, `pending`, `rrddata`); requests arrive in the
 * operators' ("back up", "changes that wait for a reboot", "CPU graph"). Indexed beside the
 * schema's text as document expansion: an operation is found by what it is called, whatever the
 * request's style, rather than by rules tuned on one set of requests. Keyed by `METHOD /path`, so
 * they apply to any schema version and to the simulator's own.
 */
import { ACCESS_CLUSTER_WORDS } from './access-cluster.js';
import { GUESTS_CEPH_WORDS } from './guests-ceph.js';
import { NETWORK_FIREWALL_WORDS } from './network-firewall.js';
import { NODE_WORDS } from './nodes.js';

/** Every area's table, for the test that checks them against the schema. */
export const OPERATOR_WORD_TABLES: ReadonlyArray<Readonly<Record<string, string>>> = [ACCESS_CLUSTER_WORDS, NETWORK_FIREWALL_WORDS, GUESTS_CEPH_WORDS, NODE_WORDS];

const BY_KEY: ReadonlyMap<string, string> = new Map(OPERATOR_WORD_TABLES.flatMap((table) => Object.entries(table)));

/** The operator words of an operation (`GET /cluster/resources`), '' when it has none. */
export function operatorWords(key: string): string {
  return BY_KEY.get(key) ?? '';
}
