/** Generated identifiers in the shapes PVE uses (Proxmox MAC prefix, RFC 4122 v4 UUIDs). */
import type { Rng } from './prng.js';

export function macAddress(rng: Rng): string {
  return `BC:24:11:${rng.hex(2)}:${rng.hex(2)}:${rng.hex(2)}`.toUpperCase();
}

export function uuid(rng: Rng): string {
  const h = rng.hex(32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
}
