/**
 * Operations whose purpose is to make the cluster send its data to, or fetch from, a host the
 * caller names: every call of them is `privileged` (risk.ts adds them to its rules). Notifications
 * carry guest names, errors and backup results; metric servers receive every figure of every node
 * and guest; IPAM and DNS plugins receive guests' addresses and names. Any of them is the egress leg
 * of an exfiltration chain a prompt-injected agent can build in one script, so none is an ordinary
 * write. Parameters that do the same on otherwise ordinary operations (`mailto` on backups, SDN
 * peers) are escalations in policy/escalations.ts.
 *
 * Each entry names its evidence: the parameter that carries the host (and what in the schema shows
 * it), or, for an operation with no such parameter, its own description. risk-egress.test.ts holds
 * every entry to it against the 9.1 schema; docs/risk-classes.md lists them (a test keeps it complete).
 */
import type { Evidence } from './evidence.js';
import type { HttpMethod } from './model.js';

export interface EgressOperation {
  id: string;
  methods: readonly HttpMethod[];
  path: RegExp;
  evidence: { param: string; shows: Evidence } | { operation: RegExp };
  reason: string;
}

const re = (source: string) => new RegExp(`^(?:${source})$`);
const CHANGES: readonly HttpMethod[] = ['POST', 'PUT'];
const ENDPOINT = (type: string) => re(String.raw`/cluster/notifications/endpoints/${type}(?:/\{name\})?`);

export const EGRESS_OPERATIONS: readonly EgressOperation[] = [
  {
    id: 'notification-webhook',
    methods: CHANGES,
    path: ENDPOINT('webhook'),
    evidence: { param: 'url', shows: { description: /URL/ } },
    reason: 'every notification matched to it is sent as an HTTP request to the URL (an update can change the URL, body or headers)',
  },
  {
    id: 'notification-gotify',
    methods: CHANGES,
    path: ENDPOINT('gotify'),
    evidence: { param: 'server', shows: { description: /URL/ } },
    reason: 'every notification matched to it is pushed to the Gotify server',
  },
  {
    id: 'notification-smtp',
    methods: CHANGES,
    path: ENDPOINT('smtp'),
    evidence: { param: 'server', shows: { description: /server/i } },
    reason: 'every notification matched to it is mailed through the SMTP server to the recipients (with or without a password)',
  },
  {
    id: 'notification-sendmail',
    methods: CHANGES,
    path: ENDPOINT('sendmail'),
    evidence: { param: 'mailto', shows: { format: 'email-or-username' } },
    reason: 'every notification matched to it is mailed to the recipients, any address',
  },
  {
    id: 'notification-matchers',
    methods: CHANGES,
    path: re(String.raw`/cluster/notifications/matchers(?:/\{name\})?`),
    evidence: { param: 'target', shows: { description: /notify/i } },
    reason: 'decides which notifications (backup results, errors, guest names) go to which endpoint: routes more data to an outside host',
  },
  {
    id: 'notification-test',
    methods: ['POST'],
    path: re(String.raw`/cluster/notifications/targets/\{name\}/test`),
    evidence: { operation: /test notification/i },
    reason: 'makes the cluster send a notification to the target now (a probe that the outside host is reachable)',
  },
  {
    id: 'metric-servers',
    methods: CHANGES,
    path: re(String.raw`/cluster/metrics/server/\{id\}`),
    evidence: { param: 'server', shows: { format: 'address' } },
    reason: 'every node sends the figures of every node, guest and storage to the server, continuously',
  },
  {
    id: 'sdn-ipam-plugins',
    methods: CHANGES,
    path: re(String.raw`/cluster/sdn/ipams(?:/\{ipam\})?`),
    evidence: { param: 'type', shows: { enum: 'netbox' } },
    reason: 'an external IPAM (NetBox, phpIPAM) is contacted at its URL with its token, at once and for every guest address',
  },
  {
    id: 'sdn-dns-plugins',
    methods: CHANGES,
    path: re(String.raw`/cluster/sdn/dns(?:/\{dns\})?`),
    evidence: { param: 'type', shows: { enum: 'powerdns' } },
    reason: 'an external DNS server (PowerDNS) is contacted at its URL with its key and receives guest names and addresses',
  },
];
