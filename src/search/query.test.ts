import { describe, expect, it } from 'vitest';
import { analyze, stem, tokenize } from './analyzer.js';
import { parseQuery, type ParsedQuery } from './query.js';
import { compileSynonyms } from './synonym-compile.js';
import { SYNONYM_RULES } from './synonyms.js';

const synonyms = compileSynonyms();

function parse(text: string): ParsedQuery {
  return parseQuery(text, synonyms);
}

function sources(text: string): string[] {
  return parse(text).concepts.map((c) => c.source);
}

describe('analyzer', () => {
  it('splits on punctuation and between letters and digits', () => {
    expect(tokenize('GET /nodes/{node}/qemu/{vmid}/agent/network-get-interfaces')).toEqual(['get', 'nodes', 'node', 'qemu', 'vmid', 'agent', 'network', 'get', 'interfaces']);
    expect(tokenize('net0 ipconfig12 move_disk')).toEqual(['net', '0', 'ipconfig', '12', 'move', 'disk']);
  });

  it('folds plurals but keeps words that only look plural', () => {
    expect(['snapshots', 'vms', 'policies', 'aliases', 'prefixes', 'status', 'nfs', 'dns', 'access'].map(stem)).toEqual([
      'snapshot',
      'vm',
      'policy',
      'alias',
      'prefix',
      'status',
      'nfs',
      'dns',
      'access',
    ]);
  });

  it('drops stopwords and bare numbers', () => {
    expect(analyze('Stop all of the VMs on node 3')).toEqual(['stop', 'vm', 'node']);
  });
});

describe('parseQuery', () => {
  it('keeps a phrase whole across articles inside it', () => {
    expect(sources('freeze the filesystems of vm 101')).toContain('freeze the filesystems');
  });

  it('turns a guest or a node on by powering it, anything else by enabling it', () => {
    expect(parse('turn on the firewall for the datacenter').hintedMethods).toEqual(['PUT']);
    expect(parse('turn on vm 101').hintedMethods).toEqual(['POST']);
    expect(parse('turn off pve2').concepts[0]?.terms.get('stop')).toBe(1);
  });

  it('reads run and refresh as acting now, and runs or running as a state', () => {
    expect(parse('run the replication job now').methods).toEqual(['POST']);
    expect(parse('refresh the apt package index').methods).toEqual(['POST']);
    expect(parse('runs on pve1').methods).toBeUndefined();
  });

  it("takes a separable verb's meaning from its particle, and a guest joining or leaving something is not what changes", () => {
    const out = parse('take vm 120 out of ha');
    expect(out.methods).toEqual(['DELETE']);
    expect(out.guestMember).toBe(true);
    expect(parse('add vm 130 to the dev pool').guestMember).toBe(true);
    expect(parse('delete vm 101 from the cluster').guestMember).toBe(false);
    expect(parse('add a disk to vm 101').guestMember).toBe(false);
    expect(parse('set vm 101 to 4 cores').guestMember).toBe(false);
  });

  it('names what an add request adds to', () => {
    expect([...parse('add 10.0.0.5 to the blocklist ipset').addedTo]).toContain('ipset');
    expect(parse('create an ipset').addedTo.size).toBe(0);
  });

  it('reads a verb after "what would" as a question about its effect', () => {
    expect(parse('what would change if I applied the sdn config').methods).toEqual(['GET']);
  });

  it("reads the name a create request gives as the new thing's, not a lookup", () => {
    expect(sources('create a resource pool named dev')).not.toContain('named');
    expect(sources('start the vm named web01')).toContain('named');
  });

  it('reads a permission path as a reference to the ACL', () => {
    expect(parse('give the ops group read-only access to /vms').concepts.some((c) => c.terms.get('acl') === 1)).toBe(true);
  });

  it('reads a verbless request about one guest or node as asking for its properties', () => {
    expect(parse('vm 101 disk size').propertyOf).toBe(true);
    expect(parse('how do I convert container 205 into a template').propertyOf).toBe(false);
    expect(parse('resize the disk of vm 101').propertyOf).toBe(false);
  });

  it('takes the method from an opening verb, after politeness or "how do I"', () => {
    expect(parse('delete the snapshot').methods).toEqual(['DELETE']);
    expect(parse('please list storages').methods).toEqual(['GET']);
    expect(parse('how do I create a user').methods).toEqual(['POST']);
    expect(parse('set vm memory').methods).toEqual(['PUT', 'POST']);
  });

  it('reads a state question as a GET, and a later verb as a plain word', () => {
    expect(parse('which vms are running').methods).toEqual(['GET']);
    expect(parse('available updates').methods).toBeUndefined();
    // A trailing "list" names a listing: the request reads it.
    expect(parse('vm list').methods).toEqual(['GET']);
    expect(parse('list backup jobs').methods).toEqual(['GET']);
  });

  it('reads an unknown word after a kind in a keyword request as the name of one item', () => {
    expect(parse('pool staging delete').namedItems.has('pool')).toBe(true);
    expect(parse('delete the pool for staging work').namedItems.has('pool')).toBe(false);
  });

  it('reads a modal asked of "you" as a polite imperative, and a question word after a subject as a plain verb', () => {
    expect(parse('can you restart vm 101')).toMatchObject({ hintedMethods: ['POST'] });
    expect(parse('can you restart vm 101').methods).toBeUndefined();
    expect(parse('I was wondering if you could delete vm 101').methods).toEqual(['DELETE']);
    expect(parse('can vm 101 be restarted').methods).toEqual(['GET']);
  });

  it('reads a frame that opens without a question word ("would it be possible to …") as asking how to act', () => {
    // Whether it is possible is also what a check answers (ability.ts): a read comes second.
    expect(parse('would it be possible to clone ct 200')).toMatchObject({ methods: ['POST', 'GET'] });
  });

  it('reads "make sure" and "ensure" as a state to hold, set in a configuration', () => {
    expect(parse('make sure vm 101 starts at boot').methods).toEqual(['PUT', 'POST']);
    expect(parse('ensure ct 200 is protected').methods).toEqual(['PUT', 'POST']);
  });

  it("reads an agent's function-style name as its words, and leaves other capitals whole", () => {
    expect(parse('listSnapshots vmid=101').methods).toEqual(['GET']);
    expect(sources('deleteUser bob')).toEqual(['delete', 'user', 'bob']);
    expect(sources('iSCSI target')).toEqual(['iscsi', 'target']);
  });

  it('lets an opening action word hint its method, but not the same word later', () => {
    expect(parse('upload an iso')).toMatchObject({ hintedMethods: ['POST'] });
    expect(parse('snapshot vm 100')).toMatchObject({ hintedMethods: ['POST'] });
    expect(parse('vm snapshots').hintedMethods).toBeUndefined();
  });

  it('matches the longest phrase first and turns it into one concept', () => {
    expect(sources('ip address of a vm')).toEqual(['ip address', 'vm']);
    expect(sources('power off the virtual machine')).toEqual(['power off', 'virtual machine']);
    expect(sources('back up a container')).toEqual(['back up', 'container']);
  });

  it('maps operator words to API words with weights', () => {
    const vm = parse('vm').concepts[0];
    expect(vm?.terms.get('qemu')).toBe(1);
    const container = parse('containers').concepts[0];
    expect(container?.terms.get('lxc')).toBe(1);
    const host = parse('hypervisor').concepts[0];
    expect(host?.terms.get('node')).toBe(1);
  });

  it('merges repeated words and synonyms of the same rule', () => {
    expect(sources('vm vm qemu kvm')).toEqual(['vm']);
    expect(sources('storage storage')).toEqual(['storage']);
  });

  it('marks list requests and plural nouns as asking for a collection', () => {
    expect(parse('list snapshot').collection).toBe(true);
    expect(parse('ha resources').collection).toBe(true);
    expect(parse('vm status').collection).toBe(false);
  });

  it('keeps unknown words as plain concepts and drops numbers', () => {
    expect(sources('frobnicate vm 101')).toEqual(['frobnicate', 'vm']);
    expect(parse('101 202').concepts).toEqual([]);
  });
});

describe('synonym table', () => {
  it('never maps one phrase to two rules', () => {
    const owner = new Map<string, number>();
    const clashes: string[] = [];
    SYNONYM_RULES.forEach((rule, index) => {
      for (const trigger of rule.triggers) {
        const key = tokenize(trigger).map(stem).join(' ');
        const other = owner.get(key);
        if (other !== undefined && other !== index) clashes.push(`"${trigger}" in rules ${other} and ${index}`);
        owner.set(key, index);
      }
    });
    expect(clashes).toEqual([]);
  });

  it('gives every rule at least one searchable term and sane weights', () => {
    for (const rule of SYNONYM_RULES) {
      const terms = Object.entries(rule.terms);
      expect(terms.flatMap(([word]) => analyze(word)).length, rule.triggers[0]).toBeGreaterThan(0);
      expect(
        terms.every(([, w]) => w > 0 && w <= 1),
        rule.triggers[0],
      ).toBe(true);
    }
  });
});

describe('parseQuery: questions', () => {
  it('reads IDs as the kind of thing they name', () => {
    expect(sources('which api tokens does root@pam have')).toEqual(['api tokens', 'user']);
    expect(sources('what can alice@pve do')).toContain('user');
    expect(sources('show root@pam!ci')).toEqual(['show', 'api token']);
    expect(sources('what time is it on pve1')).toEqual(['time', 'node']);
    expect(sources('what version of proxmox is running')).not.toContain('node');
  });

  it('knows when one guest is named, by its ID or with an article', () => {
    expect(parse('is vm 101 running').oneGuest).toBe(true);
    expect(parse('is the vm running').oneGuest).toBe(true);
    expect(parse('which vms are running').oneGuest).toBe(false);
    expect(parse('which vm uses the most cpu').oneGuest).toBe(false);
  });

  it('drops a ranking said of one named guest, keeps it across guests', () => {
    expect(sources('how many cores does vm 101 have')).toEqual(['cores', 'vm']);
    expect(sources('how many guests are there')).toContain('how many');
  });

  it('opens a question with "how much", "how many", "how long"', () => {
    expect(parse('how much memory does vm 105 use')).toMatchObject({ methods: ['GET'], question: true });
    expect(parse('how long has pve1 been up').question).toBe(true);
    expect(parse('how do I create a user')).toMatchObject({ methods: ['POST'], question: false });
  });

  it('takes a plural action word in a question as the things, not a state', () => {
    const backups = parse('what backups exist for vm 101').concepts.find((c) => c.source === 'backups');
    expect(backups?.terms.get('content')).toBe(1);
    expect(backups?.weight).toBe(1);
    const stopped = parse('which guests are stopped').concepts.find((c) => c.source === 'stopped');
    expect(stopped?.weight).toBeLessThan(1);
    expect(stopped?.terms.get('status')).toBeGreaterThan(0);
    expect(parse('back up vm 101').hintedMethods).toEqual(['POST']);
    expect(parse('backups of vm 101').hintedMethods).toBeUndefined();
  });

  it('reads "how can I …" as a way to act and "did …" as a question', () => {
    expect(parse('how can I stop all guests on pve2')).toMatchObject({ methods: ['POST'], question: false });
    expect(parse('how could we create a user').methods).toEqual(['POST']);
    expect(parse('can vm 101 be migrated').question).toBe(true);
    expect(parse('did any backup fail last night').question).toBe(true);
  });

  it('takes a two-word verb as one ("set up" creates, "set" changes)', () => {
    expect(parse('how do I set up replication for vm 101').methods).toEqual(['POST']);
    expect(parse('set the memory of vm 101').methods).toEqual(['PUT', 'POST']);
    expect(sources('set up replication')).not.toContain('up');
  });

  it('searches two words that spell a schema identifier as that identifier', () => {
    const identifiers = new Set(['ostype', 'stopall']);
    const parsed = parseQuery('what os type is vm 106 set to', synonyms, (t) => identifiers.has(t));
    expect(parsed.concepts.find((c) => c.source === 'os type')?.terms.get('ostype')).toBe(1);
    const stop = parseQuery('stop all guests on pve2', synonyms, (t) => identifiers.has(t));
    expect(stop.concepts.map((c) => c.source)).toContain('stop all');
    expect(stop.hintedMethods).toEqual(['POST']);
    // Without the identifier, "type" refines the word before it.
    expect(
      parse('what os type is vm 106')
        .concepts.find((c) => c.source === 'os')
        ?.terms.get('type'),
    ).toBe(0.25);
  });

  it('weighs where one named guest lives above the guest, and drops a ranking said of a named node', () => {
    const placement = parse('which node hosts vm 150').concepts.find((c) => c.source === 'which node');
    expect(placement?.weight).toBeGreaterThan(1);
    expect(parse('which node has the most free memory').concepts.find((c) => c.source === 'which node')?.weight).toBeLessThan(1);
    expect(sources('how many cpus does pve1 have')).not.toContain('how many');
    expect(parse('make container 200 start at boot').guestExists).toBe(true);
    expect(parse('create a new vm').guestExists).toBe(false);
  });

  it('reads "can I <act> …" as the act first and a read that checks it next, searching the checks lightly', () => {
    const migrate = parse('can I migrate vm 100 to pve2 while it runs');
    expect(migrate).toMatchObject({ methods: ['POST', 'GET'], question: false });
    expect(migrate.concepts.find((c) => c.source === 'can')?.terms.has(stem('precondition'))).toBe(true);
    expect(parse('could I shrink the disk of vm 101').methods).toEqual(['PUT', 'GET']);
    expect(parse('is it possible to migrate vm 100 while it runs').methods).toEqual(['POST', 'GET']);
    expect(parse('is there a way to clone ct 200').methods).toEqual(['POST']);
    // A read asked for ("can I see …") is a read: nothing to check.
    const see = parse('can I see the firewall log for vm 140');
    expect(see.methods).toEqual(['GET']);
    expect(see.concepts.map((c) => c.source)).not.toContain('can');
    expect(parse('how can I migrate a vm').methods).toEqual(['POST']);
  });

  it('decides the method from an action word when the request asks how to act', () => {
    expect(parse('how do I back up vm 101').methods).toEqual(['POST']);
    expect(parse('how can I migrate a vm').methods).toEqual(['POST']);
    expect(parse('back up vm 101').methods).toBeUndefined();
    expect(parse('back up vm 101').hintedMethods).toEqual(['POST']);
    expect(parse('how do I cancel a task').methods).toEqual(['DELETE']);
    expect(parse('give vm 101 two more cores').methods).toEqual(['PUT', 'POST']);
  });

  it('reads "now" as when to act in a request to act, and as a state in a question', () => {
    expect(sources('back up vm 101 right now')).not.toContain('right now');
    expect(sources('how do I snapshot vm 101 right now')).not.toContain('right now');
    expect(sources('what is running right now')).toContain('right now');
  });

  it('folds an attribute word into the concept before it', () => {
    const cpu = parse('what is the cpu type of vm 109').concepts.find((c) => c.source === 'cpu');
    expect(cpu?.terms.get('type')).toBe(0.25);
    expect(sources('what is the cpu type of vm 109')).not.toContain('type');
    expect(sources('which type of storage is tank')).toContain('type');
  });

  it('reads IDs, names and tag values as references, not vocabulary', () => {
    expect(sources('how much space is left on local-lvm')).not.toContain('lvm');
    expect(sources('what is the vmid of the vm named web01')).toContain('named');
    expect(sources('what is the vmid of the vm named web01')).not.toContain('web');
    expect(sources('which guests are tagged production')).not.toContain('production');
  });

  it('knows when a guest exists, when only a node is named, and when a schedule is meant', () => {
    expect(parse('add a second network card to a vm').guestExists).toBe(true);
    expect(parse('create a vm for the web team').guestExists).toBe(false);
    expect(parse('which vms have the guest agent enabled').oneGuest).toBe(false);
    expect(parse('is the guest agent of the vm running').oneGuest).toBe(true);
    expect(parse('shut down pve1').nodeNotGuest).toBe(true);
    expect(parse('reboot the host').nodeNotGuest).toBe(true);
    expect(parse('shut down vm 100 on pve1').nodeNotGuest).toBe(false);
    expect(parse('back up vm 101 nightly').timed).toBe(true);
    expect(parse('create a backup job').timed).toBe(true);
    expect(parse('back up vm 101').timed).toBe(false);
  });

  it('reads an enabled setting asked about as configuration, a stopped guest as status', () => {
    const enabled = parse('which vms have protection enabled').concepts.find((c) => c.source === 'enabled');
    expect(enabled?.terms.get('config')).toBeGreaterThan(0);
    expect(enabled?.terms.has('status')).toBe(false);
    expect(
      parse('which vms are stopped')
        .concepts.find((c) => c.source === 'stopped')
        ?.terms.get('status'),
    ).toBeGreaterThan(0);
  });

  it('remembers which things the request names in the plural', () => {
    expect([...parse('which storages are almost full').pluralTerms]).toContain('storage');
    expect([...parse('what snapshots does vm 101 have').pluralTerms]).toEqual(['snapshot']);
    expect([...parse('what is the cpu load on each node').pluralTerms]).toContain('node');
    expect(parse('what is the cpu load of node pve1').pluralTerms.size).toBe(0);
  });
});

describe('restoring and references', () => {
  it('reads a restore as recreating the guest it names, and the backup it names as the archive', () => {
    const restore = parse("restore vm 118 from last night's backup");
    expect(restore.guestExists).toBe(false);
    expect(restore.concepts.find((c) => c.source === 'backup')?.terms.get('content')).toBe(1);
    // Taking a backup is the act; deleting one acts on the archive.
    expect(
      parse('take a backup of vm 118')
        .concepts.find((c) => c.source === 'backup')
        ?.terms.get('content'),
    ).toBeUndefined();
    expect(
      parse('delete the backup of vm 118')
        .concepts.find((c) => c.source === 'backup')
        ?.terms.get('content'),
    ).toBe(1);
    expect(parse('stop vm 118').guestExists).toBe(true);
  });

  it('reads a quoted value of several words as nothing, a quoted name as itself', () => {
    expect(sources("run 'systemctl restart nginx' inside vm 305 via the agent")).not.toContain('restart');
    expect(sources("when does the calendar event 'mon..fri 02:30' fire next")).not.toContain('mon');
    expect(sources("clutter on 'local'")).toContain('storage');
  });

  it('reads a verb of unknown meaning acting on one thing as an act, on many as a read', () => {
    expect(parse('yank the power of vm 171').hintedMethods?.[0]).toBe('POST');
    expect(parse('identify all guests whose status is stopped').hintedMethods).toBeUndefined();
  });

  it('reads an amount added to a guest that exists as a change of its settings', () => {
    expect(parse('put 4 cores for container 204').methods?.[0]).toBe('PUT');
    expect(parse('create 3 containers').methods?.[0]).toBe('POST');
  });

  it('reads a storage named by a hyphenated ID and a backup archive named by its file as what they are', () => {
    expect(sources('list the backups on pbs-main')).toEqual(['list', 'backups on storage']);
    expect(sources('delete vzdump-qemu-118-2024_01_01-00_00_00.vma.zst from backup-nas')).toEqual(['delete', 'volume', 'storage']);
  });

  it("reads a two-word verb's particle later in the request as part of the verb", () => {
    expect(sources('I need its vmid to clean it up')).not.toContain('up');
  });

  it('reads words of scope and degree as nothing', () => {
    expect(sources('let bob@pve only manage vm 118, nothing else')).toEqual(['let user', 'manage', 'vm']);
  });
});
