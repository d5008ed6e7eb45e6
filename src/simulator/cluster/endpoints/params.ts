/**
 * Typed reads of the validated request parameters. The wire layer has already checked types;
 * these accessors only narrow `unknown` and treat booleans the way PVE does (1/0 or true/false).
 */
import type { SimRequestContext } from '../../contract.js';
import { paramError } from '../errors.js';

export function reqStr(ctx: SimRequestContext, name: string): string {
  const v = ctx.params[name];
  if (v === undefined || v === null || v === '') throw paramError(name, 'property is missing and it is not optional');
  return String(v);
}

export function optStr(ctx: SimRequestContext, name: string): string | undefined {
  const v = ctx.params[name];
  return v === undefined || v === null ? undefined : String(v);
}

export function reqInt(ctx: SimRequestContext, name: string): number {
  const n = optInt(ctx, name);
  if (n === undefined) throw paramError(name, 'property is missing and it is not optional');
  return n;
}

export function optInt(ctx: SimRequestContext, name: string): number | undefined {
  const v = ctx.params[name];
  if (v === undefined || v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw paramError(name, `type check ('integer') failed - got '${String(v)}'`);
  return n;
}

export function flag(ctx: SimRequestContext, name: string): boolean | undefined {
  const v = ctx.params[name];
  if (v === undefined || v === null) return undefined;
  return v === true || v === 1 || v === '1';
}

/** Options only root@pam may use (PVE checks the exact principal, so tokens of root are refused). */
export function rootOnly(ctx: SimRequestContext, ...names: string[]): void {
  if (ctx.principal.authId === 'root@pam') return;
  for (const name of names) {
    const v = ctx.params[name];
    if (v !== undefined && v !== null && v !== 0 && v !== false && v !== '0' && v !== '') {
      throw paramError(name, 'Only root may use this option.');
    }
  }
}

/** PVE list formats: a string split on commas, semicolons or whitespace (or an array). */
export function list(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const parts = Array.isArray(value) ? value.map(String) : String(value).split(/[,;\s\0]+/);
  return parts.map((s) => s.trim()).filter((s) => s.length > 0);
}
