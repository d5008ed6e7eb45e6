/**
 * Operations that make a node contact another host: URL metadata (`query-url-metadata`),
 * downloads into a storage (`download-url`, task `download`) and remote migration to another
 * cluster (`remote_migrate`). Nothing is fetched; see outbound.ts for how answers are derived and
 * how attempts are recorded.
 */
import { createHash } from 'node:crypto';
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { propertyStringProblem } from '../../validate.js';
import { fail, locked, paramError } from '../errors.js';
import { isIpLiteral, recordOutbound, resolves, urlMetadata, urlParts } from '../outbound.js';
import { storageRoot } from '../node-files.js';
import type { ClusterState } from '../state.js';
import { TaskFailure } from '../tasks.js';
import type { GuestType, StorageContent } from '../types.js';
import { haSid } from '../views.js';
import { flag, list, optStr, reqStr } from './params.js';
import { pathGuest, pathNode } from './path-targets.js';
import { bool, int, num, obj, opt, P, perm, str, UPID, VMID_RANGE } from './schema.js';

/** The parts of a `proxmox-remote` property string (the endpoint of another cluster). */
const REMOTE_FORMAT: Record<string, SchemaNode> = {
  apitoken: str('API token header value, PVEAPIToken=user@realm!token=SECRET.'),
  host: str('Remote node address.', { format: 'address' }),
  fingerprint: opt(str('SHA-256 certificate fingerprint.', { pattern: '([A-Fa-f0-9]{2}:){31}[A-Fa-f0-9]{2}' })),
  port: opt(int('API port.', { minimum: 1, maximum: 65535 })),
};

/** What LWP reports when the connection cannot be made. */
function connectError(host: string, port: number): string {
  return `Can't connect to ${host}:${port} (${resolves(host) ? 'Connection refused' : 'Name or service not known'})`;
}

/** A storage or bridge map (`source:target,…`, a default target, or `1` for identity), as PVE parses it. */
function parseIdMap(text: string | undefined, param: string, what: string): { identity: boolean } {
  let identity = false;
  let hasDefault = false;
  const sources = new Set<string>();
  for (const entry of list(text)) {
    if (entry === '1') identity = true;
    else if (/^[^:]+:[^:]+$/.test(entry)) {
      const source = entry.split(':')[0] as string;
      if (sources.has(source)) throw paramError(param, `failed to parse ${what} map: duplicate mapping for source '${source}'`);
      sources.add(source);
    } else {
      if (hasDefault) throw paramError(param, `failed to parse ${what} map: default target ID can only be provided once`);
      hasDefault = true;
    }
  }
  if (identity && (hasDefault || sources.size > 0)) throw paramError(param, `failed to parse ${what} map: identity mapping cannot be combined with other mappings`);
  return { identity };
}

function remoteMigrateEndpoint(state: ClusterState, type: GuestType): SimEndpoint {
  const qemu = type === 'qemu';
  const parameters: Record<string, SchemaNode> = {
    node: P.node,
    vmid: P.vmid,
    'target-vmid': opt(int('VMID on the target cluster (default: the same).', { ...VMID_RANGE })),
    'target-endpoint': str('The other cluster: apitoken=PVEAPIToken=…,host=ADDRESS[,fingerprint=…][,port=…].', { format: 'proxmox-remote' }),
    'target-storage': str('Storage mapping source:target (or one target for all); required explicitly for remote migration.', { format: 'storage-pair-list' }),
    'target-bridge': str('Bridge mapping source:target (or one target for all).', { format: 'bridge-pair-list' }),
    online: opt(bool(qemu ? 'Live-migrate a running VM.' : 'Live migration (not possible for containers).')),
    delete: opt(bool('Remove the guest and its volumes here once the migration succeeded.', { default: 0 })),
    ...(qemu
      ? { bwlimit: opt(int('Bandwidth limit in KiB/s.', { minimum: 0, default: 'migrate limit from datacenter or storage config' })) }
      : {
          restart: opt(bool('Stop a running container, move it, start it on the target.')),
          timeout: opt(int('Seconds to wait for the shutdown in restart mode.', { default: 180 })),
          bwlimit: opt(num('Bandwidth limit in KiB/s.', { minimum: 0, default: 'migrate limit from datacenter or storage config' })),
        }),
  };
  return {
    method: 'POST',
    path: `/nodes/{node}/${type}/{vmid}/remote_migrate`,
    description: `Migrate the ${qemu ? 'VM' : 'container'} to another cluster through its API (experimental in PVE). The node first connects to the target endpoint; the simulator cannot reach one, so after the local checks the call fails as PVE's does for an unreachable endpoint.`,
    parameters,
    returns: UPID,
    permissions: { check: perm('/vms/{vmid}', ['VM.Migrate']) },
    protected: true,
    proxyto: 'node',
    handler: (ctx: SimRequestContext) => {
      const g = pathGuest(state, type, ctx);
      if (g.config.lock !== undefined) throw locked(type, String(g.config.lock));
      if (!qemu && g.status === 'running' && !flag(ctx, 'online') && !flag(ctx, 'restart')) throw fail("can't migrate running container without --online or --restart");
      if (state.haResources.has(haSid(g))) throw paramError('vmid', `cannot remote-migrate ${qemu ? 'VM' : 'CT'} that is configured for HA`);
      const endpoint = reqStr(ctx, 'target-endpoint');
      const problem = propertyStringProblem(REMOTE_FORMAT, endpoint);
      if (problem) throw paramError('target-endpoint', problem);
      const parts: Record<string, string> = {};
      for (const part of endpoint.split(',')) {
        const [k, ...v] = part.split('=');
        if (k) parts[k] = v.join('=');
      }
      const host = parts.host as string;
      const port = parts.port !== undefined ? Number(parts.port) : 8006;
      const connect = (): never => {
        recordOutbound(state, { node: g.node, user: ctx.principal.authId, kind: 'remote-migrate', url: `https://${isIpLiteral(host) && host.includes(':') ? `[${host}]` : host}:${port}/api2/json` });
        throw fail(connectError(host, port));
      };
      // Without a pinned fingerprint the node asks the remote for its certificate first.
      if (parts.fingerprint === undefined) connect();
      const storagemap = parseIdMap(optStr(ctx, 'target-storage'), 'target-storage', 'storage');
      parseIdMap(optStr(ctx, 'target-bridge'), 'target-bridge', 'bridge');
      if (storagemap.identity) throw fail('remote migration requires explicit storage mapping!');
      return connect();
    },
  };
}

export function outboundEndpoints(state: ClusterState): SimEndpoint[] {
  return [
    remoteMigrateEndpoint(state, 'qemu'),
    remoteMigrateEndpoint(state, 'lxc'),
    {
      method: 'GET',
      path: '/nodes/{node}/query-url-metadata',
      description: 'Ask the node to look up a URL (an HTTP HEAD request) and report the file name, size and type it would download.',
      parameters: {
        node: P.node,
        url: str('The URL to look up.', { pattern: 'https?://.*' }),
        'verify-certificates': opt(bool('Check the server certificate.', { default: 1 })),
      },
      returns: obj({
        filename: opt(str('File name from the server or the URL.')),
        size: opt(int('Size in bytes.', { renderer: 'bytes' })),
        mimetype: opt(str('Content type.')),
      }),
      permissions: { check: ['or', perm('/', ['Sys.Audit', 'Sys.Modify']), perm('/nodes/{node}', ['Sys.AccessNetwork'])] },
      proxyto: 'node',
      handler: (ctx) => {
        const node = pathNode(state, ctx);
        const url = reqStr(ctx, 'url');
        recordOutbound(state, { node, user: ctx.principal.authId, kind: 'query-url-metadata', url });
        const { host, port, path } = urlParts(url);
        if (!resolves(host)) throw fail(`invalid server response: '500 ${connectError(host, port)}'`);
        const meta = urlMetadata(url);
        const filename = /\/([^/]*)$/.exec(path)?.[1] ?? '';
        return { ...(filename ? { filename: decodeURIComponent(filename) } : {}), size: meta.size, mimetype: meta.mimetype };
      },
    },
    {
      method: 'POST',
      path: '/nodes/{node}/storage/{storage}/download-url',
      description:
        'Have the node download a file from a URL straight into a file-based storage, instead of uploading it (task `download`): ISO images, container templates or importable disk images, optionally checking a checksum.',
      parameters: {
        node: P.node,
        storage: P.storage,
        url: str('The URL to download from.', { pattern: 'https?://.*' }),
        content: str('What the file is.', { format: 'pve-storage-content', enum: ['iso', 'vztmpl', 'import'] }),
        filename: str('Name to store the file under.'),
        checksum: opt(str('Expected checksum of the file.', { requires: 'checksum-algorithm' })),
        'checksum-algorithm': opt(str('Checksum algorithm.', { enum: ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'], requires: 'checksum' })),
        compression: opt(str('Decompress the download with this algorithm (ISO images only).')),
        'verify-certificates': opt(bool('Check the server certificate.', { default: 1 })),
      },
      returns: UPID,
      permissions: {
        check: ['and', perm('/storage/{storage}', ['Datastore.AllocateTemplate']), ['or', perm('/', ['Sys.Audit', 'Sys.Modify']), perm('/nodes/{node}', ['Sys.AccessNetwork'])]],
      },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const node = pathNode(state, ctx);
        const id = reqStr(ctx, 'storage');
        const s = state.storageOn(id, node);
        if (!s) throw fail(`storage '${id}' does not exist`);
        const root = storageRoot(s);
        if (root === undefined) throw fail(`can't upload to storage type '${s.type}', not a file based storage!`);
        const content = reqStr(ctx, 'content') as StorageContent;
        if (!s.content.includes(content)) throw fail(`storage '${id}' is not configured for content-type '${content}'`);
        const filename = reqStr(ctx, 'filename').replace(/^.*\//, '');
        const ext = content === 'iso' ? /\.(?:iso|img)$/i : content === 'vztmpl' ? /\.tar\.(?:gz|xz|zst|bz2)$/i : /\.(?:ova|ovf|qcow2|raw|vmdk)$/i;
        if (!ext.test(filename)) throw paramError('filename', content === 'import' ? 'invalid filename or wrong extension' : 'wrong file extension');
        const url = reqStr(ctx, 'url');
        const compression = optStr(ctx, 'compression');
        const checksum = optStr(ctx, 'checksum');
        const algorithm = optStr(ctx, 'checksum-algorithm') ?? 'sha256';
        const dir = content === 'iso' ? 'template/iso' : content === 'vztmpl' ? 'template/cache' : 'import';
        const dest = `${root}/${dir}/${filename}`;
        const volid = `${id}:${content}/${filename}`;
        const user = ctx.principal.authId;
        return state.tasks.start({
          node,
          type: 'download',
          id: filename.replace(/:/g, '\\x3a'),
          user,
          weight: 4,
          begin: (run) => {
            if (compression !== undefined && content !== 'iso') throw new TaskFailure(`decompression not supported for ${content}`);
            recordOutbound(state, { node, user, kind: 'download-url', url });
            if (state.volumes.some((v) => v.volid === volid && (s.shared || v.node === node))) throw new TaskFailure(`refusing to override existing file '${dest}'`);
            run.log(`downloading ${url} to ${dest}`);
          },
          finish: (run) => {
            const { host } = urlParts(url);
            const tmp = `${dest}.tmp.${state.rng.int(100000, 999999)}`;
            if (!resolves(host)) {
              run.log(`Resolving ${host} (${host})... failed: Name or service not known.`);
              run.log(`wget: unable to resolve host address '${host}'`);
              throw new TaskFailure(`command 'wget --progress=dot:giga -O ${tmp} ${url}' failed: exit code 4`);
            }
            const { size } = urlMetadata(url);
            run.log(`download of '${url}' to '${dest}' finished`);
            if (checksum !== undefined) {
              run.log('calculating checksum...');
              // The simulated file's content is fixed by its URL, and so is its checksum.
              const got = createHash(algorithm).update(`simulated download of ${url}`).digest('hex');
              if (got.toLowerCase() !== checksum.toLowerCase()) throw new TaskFailure(`checksum mismatch: got '${got}' != expect '${checksum}'`);
              run.log('OK, checksum verified');
            }
            state.volumes.push({
              storage: id,
              ...(s.shared ? {} : { node }),
              volid,
              content,
              format:
                content === 'iso'
                  ? 'iso'
                  : content === 'vztmpl'
                    ? /\.tar\.(\w+)$/.exec(filename)?.[1]
                      ? `t${/\.tar\.(\w+)$/.exec(filename)?.[1]}`
                      : 'tgz'
                    : (/\.(\w+)$/.exec(filename)?.[1] ?? 'raw'),
              size,
              ctime: state.nowSec(),
            });
          },
        });
      },
    },
  ];
}
