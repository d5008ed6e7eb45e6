import { encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { ApiModel, templateParams, type HttpMethod, type Operation, type RiskClass, type SchemaNode } from '../schema/model.js';
import { directoryIndexes } from './document.js';
import { ApiSearch, MAX_QUERY_CHARS } from './engine.js';
import { SearchQueryError } from './errors.js';
import { LINE_TOKEN_BUDGET, formatHit, type SearchHit } from './hit.js';

/**
 * A small PVE-like API written for these tests: enough overlap between operations (qemu vs lxc,
 * list vs item, GET vs POST vs DELETE on one path) that ranking mistakes show.
 */
interface FixtureOp {
  method: HttpMethod;
  path: string;
  name: string;
  text: string;
  risk?: RiskClass;
  params?: Array<[name: string, doc: string]>;
  returns?: SchemaNode;
}

const directory: SchemaNode = { type: 'array', items: { type: 'object', properties: { subdir: { type: 'string' } } }, links: [{ rel: 'child', href: '{subdir}' }] };

const FIXTURE: FixtureOp[] = [
  { method: 'GET', path: '/nodes', name: 'index', text: 'Nodes known to the cluster.' },
  { method: 'GET', path: '/nodes/{node}', name: 'index', text: 'Directory index.', returns: directory },
  { method: 'GET', path: '/nodes/{node}/qemu', name: 'vmlist', text: 'Virtual machines on one node.' },
  {
    method: 'POST',
    path: '/nodes/{node}/qemu',
    name: 'create_vm',
    text: 'Create a virtual machine or restore one from an archive.',
    params: [
      ['vmid', 'Guest ID.'],
      ['memory', 'Amount of RAM in MiB.'],
      ['cores', 'CPU cores per socket.'],
      ['archive', 'Backup archive to restore from.'],
    ],
  },
  { method: 'DELETE', path: '/nodes/{node}/qemu/{vmid}', name: 'destroy_vm', text: 'Destroy a virtual machine and its volumes.', risk: 'destructive' },
  { method: 'GET', path: '/nodes/{node}/qemu/{vmid}', name: 'vmdiridx', text: 'Directory index.', returns: directory },
  {
    method: 'GET',
    path: '/nodes/{node}/qemu/{vmid}/status/current',
    name: 'vm_status',
    text: 'Current state of the virtual machine.',
    returns: { type: 'object', properties: { status: {}, cpu: {}, mem: {} } },
  },
  { method: 'POST', path: '/nodes/{node}/qemu/{vmid}/status/start', name: 'vm_start', text: 'Start the virtual machine.' },
  { method: 'POST', path: '/nodes/{node}/qemu/{vmid}/status/stop', name: 'vm_stop', text: 'Stop the virtual machine at once, like pulling its power cord.', risk: 'destructive' },
  { method: 'POST', path: '/nodes/{node}/qemu/{vmid}/status/shutdown', name: 'vm_shutdown', text: 'Ask the guest OS to power down cleanly.' },
  { method: 'GET', path: '/nodes/{node}/qemu/{vmid}/config', name: 'vm_config', text: 'Configuration of the virtual machine.' },
  {
    method: 'PUT',
    path: '/nodes/{node}/qemu/{vmid}/config',
    name: 'update_vm',
    text: 'Set options of the virtual machine.',
    params: [
      ['memory', 'Amount of RAM in MiB.'],
      ['cores', 'CPU cores per socket.'],
    ],
  },
  { method: 'GET', path: '/nodes/{node}/qemu/{vmid}/snapshot', name: 'snapshot_list', text: 'Snapshots of the virtual machine.' },
  { method: 'POST', path: '/nodes/{node}/qemu/{vmid}/snapshot', name: 'snapshot', text: 'Take a snapshot of the virtual machine.', params: [['snapname', 'Name for the new snapshot.']] },
  { method: 'DELETE', path: '/nodes/{node}/qemu/{vmid}/snapshot/{snapname}', name: 'delsnapshot', text: 'Remove a snapshot of the virtual machine.', risk: 'destructive' },
  { method: 'POST', path: '/nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback', name: 'rollback', text: 'Return the virtual machine to a snapshot.', risk: 'destructive' },
  { method: 'PUT', path: '/nodes/{node}/qemu/{vmid}/resize', name: 'resize_vm', text: 'Make a disk of the virtual machine bigger.' },
  { method: 'POST', path: '/nodes/{node}/qemu/{vmid}/migrate', name: 'migrate_vm', text: 'Move the virtual machine to another node.' },
  { method: 'GET', path: '/nodes/{node}/qemu/{vmid}/agent/network-get-interfaces', name: 'network-get-interfaces', text: 'Ask the guest agent for network interfaces.' },
  { method: 'GET', path: '/nodes/{node}/lxc', name: 'vmlist', text: 'Containers on one node.' },
  { method: 'POST', path: '/nodes/{node}/lxc/{vmid}/status/start', name: 'vm_start', text: 'Start the container.' },
  { method: 'POST', path: '/nodes/{node}/lxc/{vmid}/status/stop', name: 'vm_stop', text: 'Stop the container at once.', risk: 'destructive' },
  { method: 'GET', path: '/nodes/{node}/lxc/{vmid}/snapshot', name: 'list', text: 'Snapshots of the container.' },
  {
    method: 'POST',
    path: '/nodes/{node}/vzdump',
    name: 'vzdump',
    text: 'Back up guests now.',
    params: [
      ['vmid', 'Guests to include.'],
      ['storage', 'Where the archive goes.'],
    ],
  },
  { method: 'GET', path: '/nodes/{node}/storage/{storage}/content', name: 'index', text: 'Volumes on a storage.', params: [['content', 'Only this content type.']] },
  { method: 'GET', path: '/nodes/{node}/tasks', name: 'node_tasks', text: 'Tasks that ran on a node.', params: [['errors', 'Only failed tasks.']] },
  { method: 'GET', path: '/cluster/resources', name: 'resources', text: 'Every guest, storage and node in the cluster.' },
  { method: 'GET', path: '/cluster/backup', name: 'index', text: 'Scheduled backup jobs.' },
  { method: 'GET', path: '/cluster/ha/groups', name: 'index', text: 'HA groups (deprecated in favor of rules).' },
  { method: 'GET', path: '/cluster/ha/rules', name: 'index', text: 'HA rules.' },
  { method: 'GET', path: '/access/users', name: 'index', text: 'User accounts.' },
  { method: 'POST', path: '/access/users', name: 'create_user', text: 'Add a user account.', risk: 'privileged' },
  { method: 'DELETE', path: '/access/users/{userid}', name: 'delete_user', text: 'Remove a user account.', risk: 'privileged' },
  { method: 'GET', path: '/access/users/{userid}', name: 'read_user', text: 'One user account.' },
  { method: 'POST', path: '/access/users/{userid}/token/{tokenid}', name: 'generate_token', text: 'Issue an API token for a user.', risk: 'privileged' },
  { method: 'PUT', path: '/access/password', name: 'change_password', text: 'Change the password of a user.', risk: 'privileged' },
];

function fixtureModel(fixture: readonly FixtureOp[] = FIXTURE): ApiModel {
  const operations = fixture.map((f): Operation => {
    const pathParams = templateParams(f.path);
    return {
      key: `${f.method} ${f.path}`,
      method: f.method,
      path: f.path,
      pathParams,
      params: [
        ...pathParams.map((name) => ({ name, type: 'string' as const, optional: false, inPath: true })),
        ...(f.params ?? []).map(([name, description]) => ({ name, type: 'string' as const, optional: true, inPath: false, description })),
      ],
      returns: f.returns ?? {},
      allowtoken: true,
      protected: false,
      name: f.name,
      description: f.text,
      summary: f.text.replace(/\.$/, ''),
      risk: f.risk ?? (f.method === 'GET' ? 'read' : 'write'),
    };
  });
  return new ApiModel(operations, 'fixture', { kind: 'string' });
}

const search = new ApiSearch(fixtureModel());

function top(query: string, opts: Parameters<ApiSearch['search']>[1] = {}): string | undefined {
  return search.search(query, opts)[0]?.key;
}

function searchError(run: () => unknown): SearchQueryError {
  try {
    run();
  } catch (error) {
    if (error instanceof SearchQueryError) return error;
    throw error;
  }
  throw new Error('expected a SearchQueryError');
}

describe('ApiSearch ranking', () => {
  it('maps operator words to PVE words (vm → qemu, container → lxc, host → node)', () => {
    expect(top('list all vms on a host')).toBe('GET /nodes/{node}/qemu');
    expect(top('list containers')).toBe('GET /nodes/{node}/lxc');
    expect(top('power on a container')).toBe('POST /nodes/{node}/lxc/{vmid}/status/start');
    expect(top('power on a vm')).toBe('POST /nodes/{node}/qemu/{vmid}/status/start');
  });

  it('lets the opening verb pick the method on a shared path', () => {
    expect(top('list snapshots of a vm')).toBe('GET /nodes/{node}/qemu/{vmid}/snapshot');
    expect(top('take a snapshot of a vm')).toBe('POST /nodes/{node}/qemu/{vmid}/snapshot');
    expect(top('delete a vm snapshot')).toBe('DELETE /nodes/{node}/qemu/{vmid}/snapshot/{snapname}');
    expect(top('remove a user')).toBe('DELETE /access/users/{userid}');
    expect(top('add a user')).toBe('POST /access/users');
  });

  it('prefers reads for questions and bare nouns, and the collection for plurals', () => {
    expect(top('is the vm running')).toBe('GET /nodes/{node}/qemu/{vmid}/status/current');
    expect(top('users')).toBe('GET /access/users');
  });

  it('understands action words and their synonyms', () => {
    expect(top('grow the disk of a vm')).toBe('PUT /nodes/{node}/qemu/{vmid}/resize');
    expect(top('move a vm to another node')).toBe('POST /nodes/{node}/qemu/{vmid}/migrate');
    expect(top('revert a vm to a snapshot')).toBe('POST /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback');
    expect(top('ip address of a vm')).toBe('GET /nodes/{node}/qemu/{vmid}/agent/network-get-interfaces');
    expect(top('back up a vm')).toBe('POST /nodes/{node}/vzdump');
    expect(top('create an api token')).toBe('POST /access/users/{userid}/token/{tokenid}');
    expect(top('change the memory of a vm')).toBe('PUT /nodes/{node}/qemu/{vmid}/config');
  });

  it('ranks directory indexes and deprecated operations below the real thing', () => {
    const vmHits = search.search('vm').map((h) => h.key);
    expect(vmHits.indexOf('GET /nodes/{node}/qemu')).toBeLessThan(vmHits.indexOf('GET /nodes/{node}/qemu/{vmid}'));
    const ha = search.search('ha').map((h) => h.key);
    expect(ha.indexOf('GET /cluster/ha/rules')).toBeLessThan(ha.indexOf('GET /cluster/ha/groups'));
  });

  it('tells a directory index by its shape when the schema declares no links', () => {
    const bare: SchemaNode = { type: 'array', items: { type: 'object', properties: {} } };
    const own = fixtureModel([
      { method: 'GET', path: '/nodes/{node}/disks', name: '', text: 'Disk sections.', returns: bare },
      {
        method: 'GET',
        path: '/nodes/{node}/disks/list',
        name: '',
        text: 'Local disks of the node.',
        returns: { type: 'array', items: { type: 'object', properties: { devpath: { type: 'string' }, size: { type: 'integer' } } } },
      },
      {
        method: 'GET',
        path: '/cluster/ha/resources',
        name: '',
        text: 'HA resources.',
        returns: { type: 'array', items: { type: 'object', properties: { sid: { type: 'string' } } }, links: [{ rel: 'child', href: '{sid}' }] },
      },
      { method: 'GET', path: '/cluster/ha/resources/{sid}', name: '', text: 'One HA resource.' },
    ]);
    expect(directoryIndexes(own.operations)).toEqual([true, false, false, false]);
    expect(new ApiSearch(own).search('what disks does node pve1 have', { limit: 1 })[0]?.key).toBe('GET /nodes/{node}/disks/list');
  });

  it('puts an operation named by key or concrete path first', () => {
    expect(top('POST /nodes/{node}/qemu')).toBe('POST /nodes/{node}/qemu');
    expect(top('/nodes/pve1/qemu/100/status/current')).toBe('GET /nodes/{node}/qemu/{vmid}/status/current');
    expect(
      search
        .search('/access/users')
        .map((h) => h.key)
        .slice(0, 2)
        .sort(),
    ).toEqual(['GET /access/users', 'POST /access/users']);
  });

  it('tolerates a typo in a longer word', () => {
    expect(top('list snapshtos of a vm')).toBe('GET /nodes/{node}/qemu/{vmid}/snapshot');
  });

  it('returns hits best first with their risk and a positive score, deterministically', () => {
    const hits = search.search('stop a vm');
    expect(hits[0]).toMatchObject({ key: 'POST /nodes/{node}/qemu/{vmid}/status/stop', method: 'POST', risk: 'destructive' });
    for (let i = 1; i < hits.length; i++) expect((hits[i] as SearchHit).score).toBeLessThanOrEqual((hits[i - 1] as SearchHit).score);
    expect(hits.every((h) => h.score > 0)).toBe(true);
    expect(search.search('stop a vm')).toEqual(hits);
  });

  it('returns an empty list when nothing matches', () => {
    // Words no known word is one edit from: the speller leaves them, and nothing matches.
    expect(search.search('xyzzy qwfpgj')).toEqual([]);
  });
});

describe('ApiSearch filters', () => {
  it('filters by method', () => {
    const hits = search.search('snapshot', { method: 'DELETE' });
    expect(hits.map((h) => h.key)).toEqual(['DELETE /nodes/{node}/qemu/{vmid}/snapshot/{snapname}']);
  });

  it('filters by risk class', () => {
    const hits = search.search('vm', { risk: 'destructive' });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.risk === 'destructive')).toBe(true);
  });

  it('filters by path prefix, given as a template or a concrete path, on segment boundaries', () => {
    const lxc = search.search('start', { pathPrefix: '/nodes/{node}/lxc' });
    expect(lxc[0]?.key).toBe('POST /nodes/{node}/lxc/{vmid}/status/start');
    expect(lxc.every((h) => h.path.startsWith('/nodes/{node}/lxc'))).toBe(true);
    const concrete = search.search('start', { pathPrefix: '/nodes/pve1/lxc/' });
    expect(concrete.map((h) => h.key)).toEqual(lxc.map((h) => h.key));
    expect(search.search('users', { pathPrefix: '/acc' })).toEqual([]);
  });

  it('combines filters and honours the limit', () => {
    const hits = search.search('vm', { method: 'POST', pathPrefix: '/nodes/{node}/qemu', limit: 3 });
    expect(hits).toHaveLength(3);
    expect(hits.every((h) => h.method === 'POST' && h.path.startsWith('/nodes/{node}/qemu'))).toBe(true);
  });

  it('lists what lives under a path prefix when the query is empty', () => {
    const hits = search.search('', { pathPrefix: '/access' });
    expect(hits.map((h) => h.key)).toEqual([
      'GET /access/users',
      'POST /access/users',
      'PUT /access/password',
      'DELETE /access/users/{userid}',
      'GET /access/users/{userid}',
      'POST /access/users/{userid}/token/{tokenid}',
    ]);
  });
});

describe('ApiSearch bad input', () => {
  it('rejects an empty or blank query with advice', () => {
    expect(searchError(() => search.search('')).message).toMatch(/empty.*e\.g\./);
    expect(searchError(() => search.search('   \n ')).message).toMatch(/empty/);
  });

  it('rejects a query without searchable words', () => {
    expect(searchError(() => search.search('the of a 101 ???')).message).toMatch(/no searchable words/);
  });

  it('rejects an oversized query', () => {
    expect(searchError(() => search.search('vm '.repeat(MAX_QUERY_CHARS))).message).toMatch(/characters/);
  });

  it('rejects a non-string query and invalid options instead of crashing', () => {
    expect(searchError(() => search.search(42 as unknown as string)).message).toMatch(/string/);
    expect(searchError(() => search.search('vm', { limit: 0 })).message).toMatch(/limit/);
    expect(searchError(() => search.search('vm', { method: 'FETCH' as HttpMethod })).message).toMatch(/method/);
    expect(searchError(() => search.search('vm', { risk: 'scary' as RiskClass })).message).toMatch(/risk/);
    expect(searchError(() => search.search('vm', { colour: 'red' } as never)).message).toMatch(/invalid search options/);
  });

  it('survives punctuation, unicode and path-like noise', () => {
    expect(() => search.search('¿vm? → «start» /// {{}}')).not.toThrow();
    // A path of words no operation is known by finds nothing ("path" is among the common names).
    expect(search.search('/zzq/qqx/xxv')).toEqual([]);
  });
});

describe('formatHit', () => {
  const hit: SearchHit = { key: 'GET /nodes/{node}/qemu', method: 'GET', path: '/nodes/{node}/qemu', summary: 'Virtual machines on one node.', risk: 'read', score: 1 };

  it('renders METHOD /path — summary [risk]', () => {
    expect(formatHit(hit)).toBe('GET /nodes/{node}/qemu — Virtual machines on one node [read]');
  });

  it('trims a long summary on a word boundary to stay within the token budget', () => {
    const long = {
      ...hit,
      path: '/nodes/{node}/qemu/{vmid}/firewall/ipset/{name}/{cidr}',
      summary: 'A very long explanation of what this operation does, with many clauses, caveats and asides that nobody needs in a listing line.',
    };
    const line = formatHit(long);
    expect(line).toMatch(/^GET \/nodes\/\{node\}\/qemu\/\{vmid\}\/firewall\/ipset\/\{name\}\/\{cidr\} — A very long .*… \[read\]$/);
    expect(encode(line).length).toBeLessThanOrEqual(LINE_TOKEN_BUDGET);
  });

  it('drops the dash when there is no summary', () => {
    expect(formatHit({ ...hit, summary: '' })).toBe('GET /nodes/{node}/qemu [read]');
  });
});
