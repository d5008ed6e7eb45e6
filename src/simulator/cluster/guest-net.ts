/**
 * What a guest sees of its own network: deterministic addresses per VMID and the NIC MACs from
 * its config, in the shapes of the QEMU guest agent and of the container interface list.
 */
import type { Guest } from './types.js';

/** One IPv4 per guest in 10.100.0.0/14, unique for up to ~250k VMIDs. */
export function guestIpv4(vmid: number): string {
  const idx = vmid - 100;
  const third = Math.floor(idx / 250);
  return `10.${100 + Math.floor(third / 256)}.${third % 256}.${(idx % 250) + 2}`;
}

/** Link-local IPv6 derived from a MAC (EUI-64). */
export function linkLocal(mac: string): string {
  const b = mac.split(':').map((h) => parseInt(h, 16));
  const [b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0] = b;
  const hex = (hi: number, lo: number): string => ((hi << 8) | lo).toString(16);
  return `fe80::${hex(b0 ^ 2, b1)}:${hex(b2, 0xff)}:${hex(0xfe, b3)}:${hex(b4, b5)}`;
}

export interface GuestNic {
  /** Config key, e.g. net0. */
  key: string;
  mac: string;
}

export function guestNics(g: Guest): GuestNic[] {
  const out: GuestNic[] = [];
  for (const [key, value] of Object.entries(g.config)) {
    if (!/^net\d+$/.test(key)) continue;
    const m = /([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5})/.exec(String(value));
    if (m?.[1]) out.push({ key, mac: m[1].toLowerCase() });
  }
  return out.sort((a, b) => Number(a.key.slice(3)) - Number(b.key.slice(3)));
}
