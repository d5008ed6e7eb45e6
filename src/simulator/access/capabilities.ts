/**
 * The `cap` object of a login response: per GUI area, the privileges the user holds anywhere in
 * that area (PVE's `compute_api_permission`). The GUI uses it to show or hide actions.
 */
import type { AccessStore } from './store.js';

export const CAP_AREAS = ['vms', 'access', 'storage', 'nodes', 'sdn', 'dc', 'mapping'] as const;
export type CapArea = (typeof CAP_AREAS)[number];
export type Capabilities = Record<CapArea, Record<string, 1>>;

const AREA_PRIVS: Record<CapArea, RegExp> = {
  vms: /^(?:VM\.|Permissions\.Modify)/,
  access: /^(?:User\.|Group\.|Permissions\.Modify)/,
  storage: /^(?:Datastore\.|Permissions\.Modify)/,
  nodes: /^(?:Sys\.|Permissions\.Modify)/,
  sdn: /^(?:SDN\.|Permissions\.Modify)/,
  dc: /^(?:Sys\.Audit|Sys\.Modify|SDN\.)/,
  mapping: /^(?:Mapping\.|Permissions\.Modify)/,
};

/** Paths always looked at, besides every path that has ACL entries. */
const REQUIRED_PATHS = ['/', '/nodes', '/access/groups', '/vms', '/storage', '/sdn', '/mapping'];

function areaOf(path: string): CapArea | 'pool' | undefined {
  const top = /^\/(\w+)/.exec(path)?.[1];
  if (top === undefined) return 'dc';
  if (top === 'pool') return 'pool';
  return (CAP_AREAS as readonly string[]).includes(top) ? (top as CapArea) : undefined;
}

export function computeCapabilities(store: AccessStore, authId: string): Capabilities {
  const caps = Object.fromEntries(CAP_AREAS.map((a) => [a, {}])) as Capabilities;
  const paths = new Set([...REQUIRED_PATHS, ...store.acl.keys()]);
  for (const path of paths) {
    const area = areaOf(path);
    if (!area) continue;
    for (const priv of store.privileges(authId, path)) {
      if (area === 'pool') {
        // Pool ACLs grant guest and storage privileges on the members.
        if (priv.startsWith('VM.')) caps.vms[priv] = 1;
        if (priv.startsWith('Datastore.')) caps.storage[priv] = 1;
        if (priv === 'Permissions.Modify') caps.vms[priv] = caps.storage[priv] = 1;
      } else if (AREA_PRIVS[area].test(priv)) {
        caps[area][priv] = 1;
      }
    }
  }
  return caps;
}
