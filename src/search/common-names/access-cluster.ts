/**
 * Common names for /access and /cluster (without /cluster/sdn, /cluster/firewall, /cluster/ceph): what operators
 * call these operations, in our own words; indexed beside the schema's text (src/search/document.ts).
 */
export const ACCESS_CLUSTER_NAMES: Readonly<Record<string, string>> = {
  'GET /cluster': '',
  'GET /cluster/replication':
    'storage replication jobs; ZFS replication schedules; pvesr list; Datacenter > Replication panel; which guests replicate to which node; how many replication jobs exist; target node and rate limit of every job',
  'POST /cluster/replication':
    'set up replication; add replication job; pvesr create-local-job; copy a VM or CT disk to another node every few minutes; schedule ZFS sync to a second node; Add button under Replication; new pvesr job for a guest',
  'DELETE /cluster/replication/{id}':
    'remove replication job; stop replicating a guest; pvesr delete; drop replica schedule; clean up replicated volumes on the target node; keep or wipe the replica copy',
  'GET /cluster/replication/{id}':
    'one replication job config; pvesr read; schedule and target node of a replication job; rate limit of one job; where does this guest replicate to; how often does this job sync; is this replication job disabled',
  'PUT /cluster/replication/{id}':
    'edit replication job; pvesr update; change replication schedule or interval; change rate limit or bandwidth cap; disable or pause one replication job; pvesr disable; pvesr enable; change job comment',
  'GET /cluster/metrics': '',
  'GET /cluster/metrics/server':
    'external metric servers; Datacenter > Metric Server panel; InfluxDB and Graphite targets; OpenTelemetry exporters; where are stats pushed; is InfluxDB configured; which monitoring servers receive data',
  'DELETE /cluster/metrics/server/{id}': 'remove metric server; stop sending stats to InfluxDB or Graphite; delete metrics exporter; drop OpenTelemetry target; stop pushing data to monitoring',
  'GET /cluster/metrics/server/{id}':
    'one metric server config; InfluxDB bucket, organization and protocol; Graphite host and port; OTel endpoint of one exporter; which port does this metric server use; is this exporter disabled',
  'POST /cluster/metrics/server/{id}':
    'add InfluxDB server; add Graphite target; configure OpenTelemetry export; feed Grafana dashboards; push metrics to monitoring; Add InfluxDB button in Metric Server; new external stats exporter',
  'PUT /cluster/metrics/server/{id}':
    'edit metric server; change InfluxDB token or bucket; change Graphite host or port; disable or pause metrics export; update OpenTelemetry endpoint or headers; change MTU or timeout of an exporter',
  'GET /cluster/metrics/export':
    'pull metrics; scrape stats of all nodes and guests in one call; raw gauge and counter samples for an external collector; metric history since a timestamp; Prometheus-style pull of cluster stats; export metrics instead of pushing',
  'GET /cluster/notifications': '',
  'GET /cluster/notifications/matcher-fields':
    'fields notification rules can filter on; notification metadata keys; what can I filter alerts by; matcher field names like type, hostname, job-id; which labels do notifications carry',
  'GET /cluster/notifications/matcher-field-values':
    'possible values for alert filters; known hostnames, backup job ids and event types; dropdown values for notification rules; what can a matcher field equal; metadata value choices',
  'GET /cluster/notifications/endpoints': '',
  'GET /cluster/notifications/endpoints/sendmail':
    'sendmail notification targets; local MTA email endpoints; who gets alert mails through postfix; mail-to-root target; which addresses receive alert emails; all sendmail endpoints',
  'POST /cluster/notifications/endpoints/sendmail':
    'add sendmail target; email alerts via local postfix; new mail notification endpoint; mail alerts to root or admins; set mailto recipients; Add > Sendmail under Notification Targets',
  'DELETE /cluster/notifications/endpoints/sendmail/{name}':
    'remove sendmail target; stop alert emails through local MTA; delete mail notification endpoint; drop email recipient target; no more mails from postfix target',
  'GET /cluster/notifications/endpoints/sendmail/{name}':
    'one sendmail target; recipients and from address of a mail endpoint; which users get this email alert; mail author of one target; is this mail target disabled',
  'PUT /cluster/notifications/endpoints/sendmail/{name}':
    'edit sendmail target; change alert email recipients; change from address or author; disable one mail endpoint; send alert mails to a different address',
  'GET /cluster/notifications/endpoints/gotify': 'Gotify notification targets; push notification servers; Gotify servers configured for alerts; phone push endpoints; is Gotify set up',
  'POST /cluster/notifications/endpoints/gotify': 'add Gotify target; send alerts to Gotify; push notifications to phone; new Gotify server with app token',
  'DELETE /cluster/notifications/endpoints/gotify/{name}': 'remove Gotify target; stop Gotify push alerts; delete push notification endpoint; drop phone push server',
  'GET /cluster/notifications/endpoints/gotify/{name}': 'one Gotify target; Gotify server URL of an endpoint; push endpoint config; is this Gotify target disabled',
  'PUT /cluster/notifications/endpoints/gotify/{name}': 'edit Gotify target; change Gotify server URL; rotate Gotify app token; disable Gotify push alerts',
  'GET /cluster/notifications/endpoints/smtp':
    'SMTP notification targets; external mail relay endpoints; SMTP servers used for alert emails; Gmail or Office365 relay configs; which relay sends our alert mail',
  'POST /cluster/notifications/endpoints/smtp':
    'add SMTP target; alert emails through an external mail server; mail relay with login; STARTTLS or TLS SMTP endpoint; email alerts without local postfix; Add > SMTP under Notification Targets',
  'DELETE /cluster/notifications/endpoints/smtp/{name}': 'remove SMTP target; delete mail relay endpoint; stop alert emails via external SMTP server; drop SMTP credentials',
  'GET /cluster/notifications/endpoints/smtp/{name}': 'one SMTP target; mail relay server, port and encryption; SMTP username of an endpoint; recipients and from address of one SMTP target',
  'PUT /cluster/notifications/endpoints/smtp/{name}': 'edit SMTP target; change SMTP server, port or password; change relay encryption; change alert recipients for SMTP; disable SMTP endpoint',
  'GET /cluster/notifications/endpoints/webhook': 'webhook notification targets; HTTP callbacks for alerts; Slack, Discord, Teams or ntfy webhooks configured; outgoing webhook endpoints',
  'POST /cluster/notifications/endpoints/webhook': 'add webhook target; send alerts to Slack, Discord, Teams or ntfy; HTTP request on event; new webhook URL with headers and secrets',
  'DELETE /cluster/notifications/endpoints/webhook/{name}': 'remove webhook target; delete Slack or Discord webhook; stop HTTP alert callbacks; drop ntfy or Teams hook',
  'GET /cluster/notifications/endpoints/webhook/{name}': 'one webhook target; webhook URL and HTTP method; headers and body template of a webhook; is this webhook disabled',
  'PUT /cluster/notifications/endpoints/webhook/{name}': 'edit webhook target; change webhook URL, headers or body template; rotate webhook secret; disable webhook alerts',
  'GET /cluster/notifications/targets':
    'all notification targets; where can alerts go; every mail, SMTP, Gotify and webhook endpoint in one list; alert destinations; notification channels; Notification Targets panel; how many targets exist',
  'POST /cluster/notifications/targets/{name}/test':
    'send test notification; test alert; does email alerting work; why did no alert mail arrive; check a webhook, SMTP or Gotify target delivers; fire a test message; Test button on a target',
  'GET /cluster/notifications/matchers':
    'notification matchers; alert routing rules; which events go to which target; notification filters by severity or backup job; Notification Matchers panel; why do I get so many alert mails',
  'POST /cluster/notifications/matchers': 'add notification matcher; route alerts to a target; only notify on errors; filter notifications by severity, node or job; new alert routing rule',
  'DELETE /cluster/notifications/matchers/{name}': 'remove notification matcher; delete alert routing rule; stop routing events to a target; drop alert filter',
  'GET /cluster/notifications/matchers/{name}':
    'one notification matcher; severity filter of an alert rule; field and calendar filters of a matcher; which targets one matcher notifies; is the match inverted',
  'PUT /cluster/notifications/matchers/{name}': 'edit notification matcher; change alert routing; change severity filter or targets; mute alerts at night via calendar; disable an alert rule',
  'GET /cluster/config': '',
  'POST /cluster/config':
    'create cluster; pvecm create; Create Cluster button; form a new cluster on this node; initialize corosync; set cluster name and link addresses; turn standalone host into a cluster; make the first node of a cluster',
  'GET /cluster/config/apiversion': 'join API level of this node; join protocol compatibility of this node',
  'GET /cluster/config/nodes':
    'corosync members; nodes in corosync.conf; configured cluster members with node ids, votes and ring addresses; pvecm nodes; how many votes each node has; which link address each member uses; which nodes corosync lists',
  'DELETE /cluster/config/nodes/{node}':
    'remove node from cluster; pvecm delnode; evict a dead node; decommission a cluster member; kick node out of corosync; take a broken server out of the cluster; clean a dead node out of the cluster config',
  'POST /cluster/config/nodes/{node}': 'internal join step registering a new corosync member; server side of pvecm add',
  'GET /cluster/config/join':
    'join information; Join Information button; cluster join info to copy; fingerprint and corosync links needed to add a node; join data for a new host; what do I paste on the new node',
  'POST /cluster/config/join': 'join cluster; pvecm add; Join Cluster button; add this node to an existing cluster; connect new host with peer fingerprint and root password; become a cluster member',
  'GET /cluster/config/totem': 'corosync totem settings; cluster communication protocol config; token timeout, crypto and link mode; corosync interface settings; which cipher does corosync use',
  'GET /cluster/config/qdevice': 'QDevice status; external quorum device; corosync-qnetd tie-breaker vote; is the qdevice connected; two-node cluster witness',
  'GET /cluster/backup':
    'backup jobs; scheduled backups; vzdump schedules; Datacenter > Backup panel; when do backups run; next run time of each job; backup job list with storage, mode and retention; how many backup jobs exist',
  'POST /cluster/backup':
    'create backup job; schedule nightly backups; add vzdump job; Add button in Datacenter Backup; back up all VMs on a schedule; set backup retention and target storage; automatic backups to PBS',
  'DELETE /cluster/backup/{id}': 'delete backup job; remove backup schedule; stop a scheduled vzdump job; drop nightly backup',
  'GET /cluster/backup/{id}':
    'one backup job; schedule and target storage of a backup job; backup mode and compression; retention of one job; which guests one backup job covers; when does this job run next',
  'PUT /cluster/backup/{id}':
    'edit backup job; change backup schedule or storage; disable or enable backup job; change retention or prune settings; add or exclude guests from a job; change compression or mode',
  'GET /cluster/backup/{id}/included_volumes':
    'which disks a backup job includes; Job Detail of a backup job; guests and volumes covered by one job; disks excluded with backup=0; per-disk backup coverage; is this disk backed up',
  'GET /cluster/backup-info': '',
  'GET /cluster/backup-info/not-backed-up':
    'guests without backup; which VMs are not backed up; unprotected guests; backup coverage gaps; VMs and CTs missing from every backup job; how many guests have no backup; guests without backup job button',
  'GET /cluster/ha': '',
  'GET /cluster/ha/resources':
    'HA managed guests; HA resources list; Datacenter > HA > Resources; which VMs are highly available; ha-manager config; requested state and restart limits per guest; how many guests are under HA; which resources are managed by HA',
  'POST /cluster/ha/resources':
    'make VM highly available; add guest to HA; enable HA for a container; ha-manager add; auto-restart on node failure; Add button under HA Resources; recover a guest automatically on another node when its host crashes; limit restart attempts',
  'DELETE /cluster/ha/resources/{sid}': 'remove guest from HA; disable high availability for a VM; ha-manager remove; stop HA managing a guest',
  'GET /cluster/ha/resources/{sid}': 'one HA resource; requested state of an HA guest; max restart and max relocate; failback setting; is this VM HA managed',
  'PUT /cluster/ha/resources/{sid}': 'edit HA resource; set HA state started, stopped or ignored; change max restart or relocate; ha-manager set; change failback',
  'POST /cluster/ha/resources/{sid}/migrate': 'HA live migrate; move HA guest to another node online; ha-manager migrate; online move of an HA-managed VM',
  'POST /cluster/ha/resources/{sid}/relocate': 'HA relocate; stop and restart an HA guest on another node; ha-manager relocate; offline move of an HA-managed service',
  'GET /cluster/ha/groups': 'HA groups (legacy); node groups for high availability; preferred failover nodes with priority; restricted HA groups; ha-manager groupconfig',
  'POST /cluster/ha/groups': 'create HA group (legacy); define preferred failover nodes; node priorities for HA; restricted failover group; ha-manager groupadd',
  'DELETE /cluster/ha/groups/{group}': 'delete HA group (legacy); remove failover node group; drop preferred-node group; ha-manager groupremove',
  'GET /cluster/ha/groups/{group}': 'one HA group (legacy); member nodes and priorities of a group; restricted flag; nofailback flag',
  'PUT /cluster/ha/groups/{group}': 'edit HA group (legacy); change failover node priorities; set restricted or nofailback; add node to HA group; ha-manager groupset',
  'GET /cluster/ha/rules':
    'HA rules; node affinity and resource affinity rules; keep-together or keep-apart rules; pinned HA guests; anti-affinity list; HA Affinity Rules panel; ha-manager rules config; which rules apply to a VM',
  'POST /cluster/ha/rules': 'create HA rule; pin VM to preferred nodes; anti-affinity to keep VMs on different nodes; affinity to keep VMs together; new placement rule; ha-manager rules add',
  'DELETE /cluster/ha/rules/{rule}': 'delete HA rule; remove affinity or anti-affinity; unpin guests from nodes; drop placement rule; ha-manager rules remove',
  'GET /cluster/ha/rules/{rule}': 'one HA rule; nodes and priorities of a node affinity rule; guests bound by one rule; strict or non-strict; is this rule disabled',
  'PUT /cluster/ha/rules/{rule}': 'edit HA rule; change affinity members or node priorities; make rule strict or non-strict; disable a placement rule; ha-manager rules set',
  'GET /cluster/ha/status': '',
  'GET /cluster/ha/status/current':
    'HA status; ha-manager status; which node is HA master; LRM states; quorum for HA; which HA services are started, fenced or in error; is HA armed or disarmed; HA Status panel',
  'GET /cluster/ha/status/manager_status': 'full HA manager state dump; raw CRM and LRM status; detailed ha-manager internals for debugging; fencing and service state per node',
  'POST /cluster/ha/status/disarm-ha': 'disarm HA; pause the HA stack for maintenance; release watchdogs cluster-wide; avoid fencing during network or switch work; freeze HA',
  'POST /cluster/ha/status/arm-ha': 're-arm HA; turn HA stack back on after maintenance; resume fencing protection; undo disarm',
  'GET /cluster/acme': '',
  'GET /cluster/acme/plugins':
    "ACME DNS plugins; DNS challenge providers; Cloudflare or Route53 API configs for Let's Encrypt; standalone HTTP challenge plugins; Challenge Plugins panel; pvenode acme plugin list",
  'POST /cluster/acme/plugins': "add ACME DNS plugin; configure Cloudflare or Route53 API for Let's Encrypt; DNS-01 challenge credentials; new challenge plugin; pvenode acme plugin add",
  'DELETE /cluster/acme/plugins/{id}': 'remove ACME DNS plugin; delete challenge provider config; drop DNS API credentials; remove Cloudflare or Route53 plugin; pvenode acme plugin remove',
  'GET /cluster/acme/plugins/{id}': 'one ACME plugin; DNS provider of a challenge plugin; API credentials data; validation delay; nodes using one plugin; pvenode acme plugin config',
  'PUT /cluster/acme/plugins/{id}': 'edit ACME DNS plugin; change DNS API credentials; change validation delay; disable a challenge plugin; pvenode acme plugin set',
  'GET /cluster/acme/account': "ACME accounts; Let's Encrypt accounts registered; certificate authority accounts; which CA accounts exist for certs; pvenode acme account list",
  'POST /cluster/acme/account': "register Let's Encrypt account; create ACME account with email; accept terms of service; set up CA account for certificates; pvenode acme account register",
  'DELETE /cluster/acme/account/{name}': "deactivate Let's Encrypt account; delete ACME account at the CA; remove certificate authority account; unregister from CA; pvenode acme account deactivate",
  'GET /cluster/acme/account/{name}': "one ACME account; contact email of a Let's Encrypt account; CA directory URL; account status; accepted terms of service; pvenode acme account info",
  'PUT /cluster/acme/account/{name}': "update ACME account contact email; refresh Let's Encrypt account; change registration email; re-sync account with CA; pvenode acme account update",
  'GET /cluster/acme/tos': "Let's Encrypt terms of service link; ACME TOS URL (legacy); CA terms to accept; subscriber agreement URL",
  'GET /cluster/acme/meta': 'ACME CA metadata; terms of service URL of a CA; CA website; is external account binding (EAB) required; CAA identities',
  'GET /cluster/acme/directories': "known ACME CAs; Let's Encrypt production and staging URLs; available certificate authority directories; which CA to pick",
  'GET /cluster/acme/challenge-schema': 'ACME DNS provider list; supported DNS APIs and their fields; which DNS providers work for DNS-01; plugin credential fields',
  'GET /cluster/jobs': '',
  'GET /cluster/jobs/realm-sync':
    'scheduled LDAP or AD sync jobs; realm sync schedules; automatic user sync jobs; when does directory sync run; Realm Sync Jobs panel; how often are LDAP users imported',
  'DELETE /cluster/jobs/realm-sync/{id}': 'delete realm sync job; stop scheduled LDAP or AD sync; remove automatic user import; drop directory sync schedule',
  'GET /cluster/jobs/realm-sync/{id}': 'one realm sync job; schedule of one LDAP sync job; sync scope users or groups; remove-vanished options; last and next run',
  'POST /cluster/jobs/realm-sync/{id}': 'schedule LDAP sync; create automatic AD user and group sync; periodic realm sync job; nightly directory import',
  'PUT /cluster/jobs/realm-sync/{id}': 'edit realm sync job; change LDAP sync schedule; change sync scope; disable scheduled AD sync',
  'GET /cluster/jobs/schedule-analyze':
    'preview a schedule; when will this calendar event run next; test systemd-style schedule; next run times; validate cron-like schedule; Schedule Simulator; when would a calendar spec fire next',
  'GET /cluster/mapping': '',
  'GET /cluster/mapping/dir': 'directory mappings; virtiofs shares; host folders mapped for guests; which host paths are shared into VMs; Resource Mappings panel',
  'POST /cluster/mapping/dir': 'create directory mapping; share a host folder with a VM; set up virtiofs path per node; new dir mapping',
  'DELETE /cluster/mapping/dir/{id}': 'remove directory mapping; stop sharing a host folder; delete virtiofs mapping; drop shared dir alias',
  'GET /cluster/mapping/dir/{id}': 'one directory mapping; host path per node for a shared folder; virtiofs mapping details; which nodes have this share',
  'PUT /cluster/mapping/dir/{id}': 'edit directory mapping; change shared host path per node; update virtiofs mapping; add a node to a dir mapping',
  'GET /cluster/mapping/pci':
    'PCI passthrough mappings; GPU mappings; cluster-wide PCIe device aliases; mapped NICs or HBAs; vGPU and mdev mappings; are mappings valid on a node; Resource Mappings panel',
  'POST /cluster/mapping/pci': 'create PCI mapping; map a GPU for passthrough; add PCIe device alias across nodes; set up vGPU or SR-IOV mapping; mark mapped device live-migratable',
  'DELETE /cluster/mapping/pci/{id}': 'remove PCI mapping; delete GPU passthrough alias; unmap PCIe device; drop hardware mapping for PCI',
  'GET /cluster/mapping/pci/{id}': 'one PCI mapping; which PCIe device backs a mapping on each node; GPU passthrough mapping details; IOMMU group and device ids',
  'PUT /cluster/mapping/pci/{id}': 'edit PCI mapping; change GPU or PCIe device per node; update passthrough mapping; enable mdev on a mapping; allow live migration for a mapping',
  'GET /cluster/mapping/usb': 'USB passthrough mappings; mapped USB devices; dongle or license key mappings across nodes; are USB mappings valid on a node',
  'POST /cluster/mapping/usb': 'create USB mapping; map a USB dongle for passthrough; add USB device alias across nodes; license key stick mapping',
  'DELETE /cluster/mapping/usb/{id}': 'remove USB mapping; delete USB passthrough alias; unmap USB device; drop dongle mapping',
  'GET /cluster/mapping/usb/{id}': 'one USB mapping; vendor:product id per node; USB port path per node; dongle mapping details',
  'PUT /cluster/mapping/usb/{id}': 'edit USB mapping; change USB device per node; update dongle mapping; switch mapping to a USB port',
  'GET /cluster/bulk-action': '',
  'GET /cluster/bulk-action/guest': '',
  'POST /cluster/bulk-action/guest/start':
    'start all guests across every node; cluster-wide bulk power on; mass start after a whole-cluster outage; boot or resume a chosen set of VMs and CTs spread over many nodes; datacenter-level bulk start',
  'POST /cluster/bulk-action/guest/shutdown':
    'shut down all guests cluster-wide; bulk graceful shutdown across every node; turn off many VMs and CTs cleanly on many nodes; mass shutdown before datacenter maintenance; datacenter-level bulk shutdown',
  'POST /cluster/bulk-action/guest/suspend': 'suspend all guests cluster-wide; bulk pause across every node; hibernate many VMs to disk at once; mass suspend of the whole datacenter',
  'POST /cluster/bulk-action/guest/migrate':
    'cluster-wide bulk migration; move a batch of guests from several nodes to one target node; mass live migration of selected VMIDs; migrate many VMs and CTs at once; bulk migrate with local disks',
  'GET /cluster/log': 'cluster log; datacenter event log; Cluster log tab at the bottom of the GUI; recent events across nodes; who logged in recently; login successes and task starts; pmxcfs log',
  'GET /cluster/resources':
    'everything in the cluster; all VMs, CTs, nodes and storages in one list; which node is VM 100 on; which guests are running, stopped, powered off or locked on any node; top CPU, RAM or disk consumers; longest uptime; find a guest by name; HA state, tags and pools of every guest; resource tree',
  'GET /cluster/tasks':
    'cluster-wide task log; Tasks tab at the bottom of the GUI; recent tasks on all nodes; what is running anywhere in the cluster; which job failed on any node; datacenter task history; who started which task',
  'GET /cluster/options':
    'datacenter options; datacenter.cfg; Datacenter > Options panel; default keyboard layout and console viewer; MAC prefix; migration network; HTTP proxy; bandwidth limits; email from address; registered tags; which CRS or fencing mode is set',
  'PUT /cluster/options':
    'change datacenter settings; edit datacenter.cfg; set migration network or type; set HTTP proxy; set VMID range for new guests; change tag style; set HA shutdown policy; default console noVNC or xterm.js; set email sender',
  'GET /cluster/status':
    'cluster status; is the cluster quorate; quorum; which nodes are online or offline; pvecm status; node IDs and IPs; cluster name; how many nodes in the cluster; subscription level of each node; which node am I talking to',
  'GET /cluster/nextid': 'next free VMID; pick an unused ID; is VMID 123 free; is this ID already taken; available guest ID for a new VM or CT; pvesh get /cluster/nextid',
  'GET /access': '',
  'GET /access/users':
    'user accounts; who can log in; people with access; how many users exist; disabled or expired accounts; users locked out of TOTP; email and groups of users; Permissions > Users panel; pveum user list',
  'POST /access/users':
    'add user; create login account; new operator account; pveum user add; onboard an employee; create user with password and email; Add button in Users; new user@pve or user@pam login',
  'DELETE /access/users/{userid}': "delete user; remove account; offboard an employee; pveum user delete; revoke a person's login",
  'GET /access/users/{userid}': 'one user account; email and full name of a user; groups a user belongs to; account expiry date; when does this account expire; is this account disabled',
  'PUT /access/users/{userid}':
    'edit user; disable or enable account; block a user from logging in; set account expiry; change email or name; add user to a group; pveum user modify; put a user in a group; make a user a member of a group',
  'GET /access/users/{userid}/tfa': 'which 2FA types a user has; does the user have TOTP or WebAuthn; realm-enforced 2FA for a user; second factor kinds of one account',
  'PUT /access/users/{userid}/unlock-tfa':
    'unlock 2FA; pveum user tfa unlock; Unlock TFA button; reset TOTP lockout; user locked out after too many wrong OTP codes; clear second-factor lockout; why can this user no longer enter OTP codes',
  'GET /access/users/{userid}/token':
    'API tokens of a user; which tokens an account has; token expiry and privilege separation; automation credentials of a user; pveum user token list; API Tokens panel',
  'DELETE /access/users/{userid}/token/{tokenid}': 'revoke API token; delete token; remove automation credential; invalidate a leaked token; pveum user token remove',
  'GET /access/users/{userid}/token/{tokenid}': 'one API token; token expiry date; when does this token expire; token comment; privsep flag; is this token privilege-separated',
  'POST /access/users/{userid}/token/{tokenid}': 'create API token; generate token secret for automation; new token for Terraform or Ansible; pveum user token add; secret shown only once',
  'PUT /access/users/{userid}/token/{tokenid}': 'edit API token; extend token expiry; change privilege separation; change token comment; pveum user token modify',
  'GET /access/groups': 'user groups; groups and their members; who is in which group; pveum group list; Groups panel; how many groups exist',
  'POST /access/groups': 'create group; new user group; team group for permissions; pveum group add; Create button under Groups',
  'DELETE /access/groups/{groupid}': 'delete group; remove user group; pveum group delete; drop team group',
  'GET /access/groups/{groupid}': 'one group; members of a group; who belongs to this group; group comment; who is in a group',
  'PUT /access/groups/{groupid}': 'edit group comment; change group description; annotate group; pveum group modify',
  'GET /access/roles': 'roles; which roles exist; built-in and custom roles; every role and its privilege set; role names; pveum role list; Roles panel',
  'POST /access/roles': 'create custom role; define a privilege set; new role with chosen privileges; pveum role add',
  'DELETE /access/roles/{roleid}': 'delete custom role; remove role; pveum role delete; drop privilege set',
  'GET /access/roles/{roleid}': 'privileges of one role; what can this role do; what a role allows; privilege list of a role; does role include VM.PowerMgmt',
  'PUT /access/roles/{roleid}': 'edit role; add or remove privileges from a role; change custom role permissions; pveum role modify',
  'GET /access/acl':
    'permissions; access control list; who has access to what; who was granted what on which path; ACL entries for users, groups and tokens; pveum acl list; Datacenter > Permissions panel',
  'PUT /access/acl': 'grant permission; revoke permission; assign role to user, group or token on a path; give access to a VM or pool; pveum acl modify; pveum acl delete; Add User Permission',
  'GET /access/domains': 'realms; authentication sources; login domains; LDAP, AD, OpenID and PAM realms configured; SSO providers; pveum realm list; Realms panel; which realm is the default',
  'POST /access/domains': 'add realm; connect LDAP or Active Directory; add OpenID SSO login; new authentication source; Keycloak or Entra ID integration; pveum realm add',
  'DELETE /access/domains/{realm}': 'delete realm; remove LDAP, AD or OpenID authentication source; drop SSO provider; disconnect directory login; pveum realm delete',
  'GET /access/domains/{realm}': 'one realm config; LDAP server, base DN and bind user; OpenID issuer and client; 2FA setting of a realm',
  'PUT /access/domains/{realm}': 'edit realm; change LDAP server or bind password; change OpenID client; make realm the default; enforce 2FA on a realm; pveum realm modify',
  'POST /access/domains/{realm}/sync':
    'sync LDAP users now; import users and groups from AD; run realm sync once; dry-run directory sync; pull accounts from the directory; pveum realm sync; Sync button on a realm',
  'GET /access/openid': '',
  'POST /access/openid/auth-url': 'OpenID login redirect URL; start SSO login',
  'POST /access/openid/login': 'finish OpenID login; exchange SSO code for a ticket',
  'GET /access/tfa':
    '2FA overview for all users; two-factor entries of every user; who has two-factor enabled; which users have TOTP, WebAuthn or recovery keys; users locked out of 2FA; pveum user tfa list; Two Factor panel',
  'GET /access/tfa/{userid}': '2FA entries of one user; second factors registered for an account; TOTP, WebAuthn or YubiKey of a user; does this user have recovery codes; which factor ids to remove',
  'POST /access/tfa/{userid}': 'add 2FA; enroll a TOTP app; register WebAuthn or YubiKey; generate recovery codes; set up OTP for a user; scan TOTP QR code',
  'DELETE /access/tfa/{userid}/{id}': 'remove 2FA entry; delete TOTP or security key; reset a lost phone app; drop a second factor of a user; pveum user tfa delete',
  'GET /access/tfa/{userid}/{id}': 'one 2FA entry; type of one second factor; description of a key; is this factor enabled; creation time',
  'PUT /access/tfa/{userid}/{id}': 'edit 2FA entry; enable or disable one second factor; rename a TOTP or WebAuthn key; change key description',
  'GET /access/ticket': '',
  'POST /access/ticket': 'log in; authenticate with username and password; get auth ticket and CSRF token; login with OTP; session cookie; check credentials; API login with curl; PVEAuthCookie',
  'POST /access/vncticket': 'verify console ticket; VNC proxy auth check',
  'PUT /access/password': 'change password; Password button in the GUI; reset a user password; set new root password; forgot password of a PVE user; pveum passwd; passwd for a PVE realm user',
  'GET /access/permissions':
    'effective permissions; what can this user do; rights of a user or token on a path; privilege check; why is access denied; pveum user permissions; pveum user token permissions; Show Permissions button',
};
