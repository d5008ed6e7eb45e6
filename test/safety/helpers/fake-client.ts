/**
 * In-memory stand-in for the Proxmox client, for unit tests of the bridge logic only (end-to-end
 * tests use the simulator over HTTPS). Guests live in a map; every request is recorded.
 */
import { createHash } from 'node:crypto';
import type { PveClientLike, ResolvedCall, TaskResult } from '../../../src/client/client-like.js';
import type { HttpMethod } from '../../../src/schema/model.js';

export interface FakeGuest {
  vmid: number;
  node: string;
  name: string;
  type?: 'qemu' | 'lxc';
  pool?: string;
  tags?: string;
  config?: Record<string, unknown>;
}

export class FakeHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class FakeClient implements PveClientLike {
  readonly authId = 'automation@pve!mcp';
  readonly requests: Array<{ method: HttpMethod; path: string; params: Record<string, unknown> }> = [];
  readonly guests = new Map<number, FakeGuest>();
  permissions: Record<string, Record<string, number>> = { '/': { 'Sys.Audit': 1 }, '/vms': { 'VM.Audit': 1 } };
  taskOutcome: 'ok' | 'fail' = 'ok';
  private upidSeq = 0;

  constructor(guests: FakeGuest[] = []) {
    for (const g of guests) this.guests.set(g.vmid, { type: 'qemu', ...g });
  }

  get writes(): Array<{ method: HttpMethod; path: string; params: Record<string, unknown> }> {
    return this.requests.filter((r) => r.method !== 'GET');
  }

  digestOf(g: FakeGuest): string {
    return createHash('sha1')
      .update(JSON.stringify({ name: g.name, ...g.config }))
      .digest('hex');
  }

  async request(method: HttpMethod, path: string, params: Record<string, unknown> = {}): Promise<unknown> {
    this.requests.push({ method, path, params: { ...params } });
    const segs = path.split('/').slice(1).map(decodeURIComponent);
    if (method === 'GET' && path === '/cluster/resources') {
      return [...this.guests.values()].map((g) => ({
        id: `${g.type}/${g.vmid}`,
        type: g.type,
        vmid: g.vmid,
        node: g.node,
        name: g.name,
        ...(g.pool ? { pool: g.pool } : {}),
        ...(g.tags ? { tags: g.tags } : {}),
      }));
    }
    if (method === 'GET' && path === '/access/permissions') return this.permissions;
    if (segs[0] === 'nodes' && (segs[2] === 'qemu' || segs[2] === 'lxc') && segs[3] !== undefined) {
      const vmid = Number(segs[3]);
      const g = this.guests.get(vmid);
      if (!g || g.node !== segs[1] || g.type !== segs[2]) {
        throw new FakeHttpError(500, `Configuration file 'nodes/${segs[1]}/${segs[2] === 'qemu' ? 'qemu-server' : 'lxc'}/${vmid}.conf' does not exist`);
      }
      if (segs[4] === 'config' && method === 'GET') return { ...(g.type === 'lxc' ? { hostname: g.name } : { name: g.name }), ...g.config, digest: this.digestOf(g) };
      if (segs[4] === 'config' && method === 'PUT') {
        if (typeof params.digest === 'string' && params.digest !== this.digestOf(g)) throw new FakeHttpError(500, 'detected modified configuration - file changed by other user? Try again.');
        const { digest: _d, ...rest } = params;
        if (typeof rest.name === 'string') g.name = rest.name;
        g.config = { ...g.config, ...rest };
        return null;
      }
      if (segs[4] === 'status' && segs[5] === 'current') return { vmid, name: g.name, status: 'running' };
    }
    if (method === 'GET' && segs[0] === 'nodes' && segs[2] === 'qemu' && segs.length === 3) {
      return [...this.guests.values()].filter((g) => g.node === segs[1] && g.type === 'qemu').map((g) => ({ vmid: g.vmid, name: g.name }));
    }
    if (method === 'GET') return { path };
    this.upidSeq++;
    return `UPID:${segs[1] ?? 'pve1'}:00001234:00005678:${String(this.upidSeq).padStart(8, '0')}:qmtask:${segs[3] ?? ''}:${this.authId}:`;
  }

  send(call: ResolvedCall): Promise<unknown> {
    return this.request(call.method, call.urlPath, { ...call.params });
  }

  async waitTask(upid: string): Promise<TaskResult> {
    if (this.taskOutcome === 'fail') {
      const err = new FakeHttpError(500, 'task failed');
      throw err;
    }
    return { upid, node: upid.split(':')[1] ?? '', status: 'stopped', exitstatus: 'OK', ok: true, log: ['TASK OK'] };
  }
}
