/**
 * What PVE puts in each entry of a list whose entries come in kinds, by kind. The schema types such
 * lists as one object with every field optional (it only says in prose which kinds carry a field),
 * so a script reading `r.vmid` of a guest would be told it may be missing. This is the product's
 * own knowledge of the wire, written here; the SDK declarations intersect it with the connected
 * cluster's schema, which stays the source of the field names and types.
 */

export interface KindedList {
  /** The entry field that names its kind. */
  discriminant: string;
  /**
   * Fields an entry of each kind carries whenever PVE lists it healthy. An offline node or a
   * storage that is not active leaves out its usage figures; scripts then read `undefined`, which
   * the declarations accept on purpose: typing every figure as optional would flag every ordinary
   * inventory script to catch a rare NaN.
   */
  carries: Readonly<Record<string, readonly string[]>>;
  /** The kinds each value of the list's `type` query parameter returns. */
  byType: Readonly<Record<string, readonly string[]>>;
}

/** Present on every guest entry, running or not (a stopped guest reports zero usage). */
const GUEST_FIELDS = ['vmid', 'node', 'name', 'status', 'template', 'cpu', 'maxcpu', 'mem', 'maxmem', 'disk', 'maxdisk', 'uptime', 'netin', 'netout', 'diskread', 'diskwrite'];

const CLUSTER_RESOURCES: KindedList = {
  discriminant: 'type',
  carries: {
    qemu: GUEST_FIELDS,
    lxc: GUEST_FIELDS,
    node: ['node', 'status', 'cpu', 'maxcpu', 'mem', 'maxmem', 'disk', 'maxdisk', 'uptime'],
    storage: ['storage', 'node', 'status', 'plugintype', 'shared', 'content', 'disk', 'maxdisk'],
    pool: ['pool'],
    sdn: ['sdn', 'node', 'status'],
    network: ['network', 'network-type'],
  },
  // Pools come only in the unfiltered list; `sdn` covers zones and, from PVE 9, fabric networks.
  byType: { vm: ['qemu', 'lxc'], storage: ['storage'], node: ['node'], sdn: ['sdn', 'network'] },
};

/** Lists with kinds, by operation key. */
export const KINDED_LISTS: ReadonlyMap<string, KindedList> = new Map([['GET /cluster/resources', CLUSTER_RESOURCES]]);
