/**
 * Common names for nodes (everything under /nodes except the qemu, lxc, ceph, firewall, sdn and
 * network subtrees): what operators call these operations, in our own words; indexed beside
 * the schema's text (src/search/document.ts).
 */
export const NODE_NAMES: Readonly<Record<string, string>> = {
  'GET /nodes':
    'all cluster members at once; which nodes are online or offline; which host is down; how many servers are in the cluster; cpu and ram usage of every node; uptime of each host; subscription level per node; ssl fingerprint of each node; pvesh get /nodes; which node has the most free RAM',
  'GET /nodes/{node}': '',
  'POST /nodes/{node}/vzdump':
    'back up now; Backup now button; ad-hoc backup of a VM or CT; vzdump 100 --storage; save a guest to a backup file; back up to PBS right now; back up all guests or a pool on this host; snapshot, suspend or stop mode; manual backup without a job',
  'GET /nodes/{node}/vzdump/defaults':
    'backup defaults; /etc/vzdump.conf; which compression, mode and storage a backup uses if I set nothing; default retention and prune settings for backups; default bwlimit of vzdump',
  'GET /nodes/{node}/vzdump/extractconfig':
    'config stored inside a backup file; Show Configuration button on a backup; what settings and disks did the backed-up VM have; peek into vzdump archive; read qemu-server or pct conf from a backup before restore',
  'GET /nodes/{node}/services':
    'all system services of a host; node System panel; which PVE daemons are running or stopped; pveproxy, pvedaemon, corosync, pve-cluster states side by side; how many services failed on this node',
  'GET /nodes/{node}/services/{service}': '',
  'GET /nodes/{node}/services/{service}/state':
    'is this one service running; is corosync up; did pveproxy crash; systemctl status of a single daemon; active, inactive or failed; is the unit enabled at boot',
  'POST /nodes/{node}/services/{service}/start':
    'start a stopped daemon; bring a service back up; systemctl start; start corosync, pveproxy or pve-cluster on host; Start button in System panel; service is dead, start it',
  'POST /nodes/{node}/services/{service}/stop': 'stop a daemon; take a service down; systemctl stop; halt pvestatd, cron or postfix on host; Stop button in System panel; turn off one service',
  'POST /nodes/{node}/services/{service}/restart':
    'restart a daemon; bounce a service; systemctl restart pveproxy; kick a hung service; web GUI not loading, restart pveproxy; Restart button in System panel; full stop-and-start of one service',
  'POST /nodes/{node}/services/{service}/reload':
    'reload a daemon; graceful reload with no interruption; systemctl reload; make a service re-read its config; soft restart of pveproxy; reload-or-restart',
  'DELETE /nodes/{node}/subscription': 'remove subscription key; unlicense this node; drop license from host; clear support key; pvesubscription delete; move license to another server',
  'GET /nodes/{node}/subscription':
    'license status; is this node subscribed; subscription level (community, basic, standard, premium); next due date; server ID; socket count; valid, invalid or expired key; why the no-subscription nag; pvesubscription get; Subscription panel',
  'POST /nodes/{node}/subscription':
    'recheck license online; Check button in Subscription panel; refresh subscription status; re-validate key with shop server; force license check; pvesubscription update; key still invalid after renewal',
  'PUT /nodes/{node}/subscription': 'enter subscription key; Upload Subscription Key button; activate license on node; apply support key; pvesubscription set; register host with a license',
  'GET /nodes/{node}/tasks':
    "task history of one node; node Task History panel; recent jobs on this host; which tasks failed here; who ran what on this node; running tasks on this host; tasks of one VMID, user or type; did last night's backup on this node fail",
  'DELETE /nodes/{node}/tasks/{upid}': 'abort a running task; cancel a stuck backup or migration job; Stop button in task viewer; kill a worker by UPID; end a hanging task',
  'GET /nodes/{node}/tasks/{upid}': '',
  'GET /nodes/{node}/tasks/{upid}/log':
    'task output; Output tab of task viewer; see the log of a job; why did the task fail; task log lines by UPID; error text of a backup or migration task; download task log',
  'GET /nodes/{node}/tasks/{upid}/status': 'is the task still running; is the backup done yet; did the job finish OK; exit status of a task; Status tab of task viewer; poll UPID until done',
  'GET /nodes/{node}/scan': '',
  'GET /nodes/{node}/scan/nfs': 'NFS exports on a server; showmount -e; which shares a NAS exports; pvesm scan nfs; discover NFS paths before adding NFS storage; export list of a file server',
  'GET /nodes/{node}/scan/cifs': 'SMB shares on a server; Windows/Samba share discovery; which shares a NAS offers; pvesm scan cifs; browse CIFS before adding SMB storage; test SMB login',
  'GET /nodes/{node}/scan/pbs': 'datastores on a backup server; PBS datastore discovery; which datastores can I add; pvesm scan pbs; probe Proxmox Backup Server with login and fingerprint',
  'GET /nodes/{node}/scan/iscsi': 'iSCSI targets on a portal; IQN discovery; sendtargets; iscsiadm discovery; which targets a SAN offers; pvesm scan iscsi; before adding iSCSI storage',
  'GET /nodes/{node}/scan/lvm': 'VG names to pick for a new LVM storage; pvesm scan lvm; which volume group can back a storage; Add LVM storage dropdown; find local VGs to add',
  'GET /nodes/{node}/scan/lvmthin': 'thin pools inside a given volume group; pvesm scan lvmthin; which thinpool can back a storage; Add LVM-Thin storage dropdown; find LVM-thin pools to add',
  'GET /nodes/{node}/scan/zfs': 'zpool names to add as storage; pvesm scan zfs; which ZFS pool can I use for a new storage; Add ZFS storage dropdown; local pools for the storage wizard',
  'GET /nodes/{node}/hardware': '',
  'GET /nodes/{node}/hardware/pci':
    'PCI devices on host; lspci; GPU, NIC or HBA for passthrough; IOMMU groups; is IOMMU on; vendor and device IDs; which card can I pass through to a VM; is the graphics card detected; Add PCI Device dialog',
  'GET /nodes/{node}/hardware/pci/{pci-id-or-mapping}': '',
  'GET /nodes/{node}/hardware/pci/{pci-id-or-mapping}/mdev': 'vGPU types of a card; mediated device profiles; NVIDIA vGPU or Intel GVT-g slices; how many vGPU instances are left; MDev Type dropdown',
  'GET /nodes/{node}/hardware/usb':
    'USB devices plugged into host; lsusb; dongle or license key stick for passthrough; USB vendor/product IDs; which port is it on; is my USB stick seen by the host; Add USB Device dialog',
  'GET /nodes/{node}/capabilities': '',
  'GET /nodes/{node}/capabilities/qemu': '',
  'GET /nodes/{node}/capabilities/qemu/cpu':
    'CPU types for VMs; x86-64-v2-AES, host, kvm64; custom CPU models; which vCPU model can I pick; CPU Type dropdown in VM wizard; which CPU models a VM can use',
  'GET /nodes/{node}/capabilities/qemu/cpu-flags':
    'extra CPU flags for VMs; aes, pcid, spec-ctrl, md-clear; which vCPU flags can be toggled; Spectre/Meltdown mitigation flags; Extra CPU Flags in VM Processor dialog',
  'GET /nodes/{node}/capabilities/qemu/machines': 'QEMU machine types; q35 vs i440fx versions; pc-q35-9.x; which machine version can a VM use; Machine dropdown; pin machine version',
  'GET /nodes/{node}/capabilities/qemu/migration': 'live migration features of host QEMU; dbus-vmstate support; can this host migrate extra VM state; migration capability check',
  'GET /nodes/{node}/storage':
    'storages seen by this node with usage; how full is each datastore; free space per storage; which storages are active, disabled or offline; which storage accepts ISO, backups or disks; pvesm status; storage picker in dialogs',
  'GET /nodes/{node}/storage/{storage}': '',
  'DELETE /nodes/{node}/storage/{storage}/prunebackups':
    'prune old backups now; apply retention now; clean up old backups on a storage; delete backups beyond keep-last; remove old backups of one VM; pvesm prune-backups; Prune group button',
  'GET /nodes/{node}/storage/{storage}/prunebackups': 'prune dry run; which backups would be removed or kept; retention preview; simulate keep-daily/keep-last; pvesm prune-backups --dry-run',
  'GET /nodes/{node}/storage/{storage}/content':
    'what is on this storage; which ISOs do I have; where are my backups; how many backups of VM 100; ISOs, templates, disk images on a datastore; volumes of a VM; pvesm list; Backups, ISO Images, VM Disks tabs; backup archives of a VM on a storage',
  'POST /nodes/{node}/storage/{storage}/content': 'allocate a new disk image; create empty volume for a VM; pvesm alloc; make raw/qcow2 disk file on storage; reserve disk space for a guest',
  'DELETE /nodes/{node}/storage/{storage}/content/{volume}':
    'delete a backup file; remove ISO or template; destroy disk image volume; free space by removing a volume; pvesm free; Remove button in storage content; delete orphaned unused disk; delete one backup volume from its storage',
  'GET /nodes/{node}/storage/{storage}/content/{volume}':
    "one volume's size and format; where is this disk file on disk; path of a volume; pvesm path; notes of one backup; is backup protected; used vs provisioned size",
  'POST /nodes/{node}/storage/{storage}/content/{volume}': 'copy a volume to another storage (experimental); duplicate disk image file; make a copy of a volume file; copy volume to other node',
  'PUT /nodes/{node}/storage/{storage}/content/{volume}':
    'protect a backup from pruning; unprotect backup; lock backup so it is not deleted; edit backup notes; Change Protection or Edit Notes button; annotate volume; set protected flag on a backup volume so prune skips it',
  'GET /nodes/{node}/storage/{storage}/file-restore/list':
    'browse files inside a backup; File Restore button; single file restore; look into PBS snapshot; find a lost file in backup; which files are in the backup',
  'GET /nodes/{node}/storage/{storage}/file-restore/download':
    'download one file from backup; pull folder out of PBS snapshot as zip or tar.zst; recover deleted file; grab single file from VM backup; Download button in File Restore',
  'GET /nodes/{node}/storage/{storage}/status':
    "one storage's free space; how much room is left on local-lvm; is this datastore online; used and total capacity; is storage full; pvesm status of one store; storage Summary panel",
  'GET /nodes/{node}/storage/{storage}/rrd': 'storage usage graph image; PNG chart of datastore fill; rendered storage graph; picture of disk usage over time',
  'GET /nodes/{node}/storage/{storage}/rrddata':
    'storage usage history; datastore growth over time; how fast is storage filling; used space trend per day/week/month; when will the storage be full; how has storage usage grown',
  'POST /nodes/{node}/storage/{storage}/upload':
    'upload ISO; upload CT template; push qcow2, img or OVA file to storage; send installer image from my PC; Upload button on ISO Images; verify checksum after upload',
  'POST /nodes/{node}/storage/{storage}/download-url':
    'download ISO from URL; Download from URL button; fetch image by link; wget installer to storage; grab cloud image, OVA or template from the web; have the node fetch an image from a URL itself; server-side download of a qcow2 or ISO',
  'POST /nodes/{node}/storage/{storage}/oci-registry-pull':
    'pull docker image; fetch OCI container image from registry for LXC; docker hub image to storage; Pull from OCI Registry button; app container image for CT',
  'GET /nodes/{node}/storage/{storage}/import-metadata':
    'import ESXi VM; migrate from VMware; what an OVA/VMware import would create; disks and NICs found in foreign guest; Import Guest wizard settings and warnings',
  'GET /nodes/{node}/disks': '',
  'GET /nodes/{node}/disks/lvm': 'volume groups on host; vgs; VG size and free space; how much space is left in the VG; physical volumes behind a VG; Disks > LVM panel',
  'POST /nodes/{node}/disks/lvm': 'create volume group on a disk; vgcreate; turn empty drive into LVM storage; new LVM VG from unused disk; Create: Volume Group button',
  'DELETE /nodes/{node}/disks/lvm/{name}': 'remove volume group; vgremove; destroy LVM VG and optionally wipe its disks; drop LVM storage from config',
  'GET /nodes/{node}/disks/lvmthin': 'thin pools on host; lvs thinpool; thin pool data and metadata usage; is thin pool metadata full; how full is the local-lvm pool; Disks > LVM-Thin panel',
  'POST /nodes/{node}/disks/lvmthin': 'create thin pool on a disk; lvcreate --thin; make new LVM-thin storage from empty drive; new thinpool from unused disk; Create: Thinpool button',
  'DELETE /nodes/{node}/disks/lvmthin/{name}': 'remove thin pool; lvremove thinpool; destroy LVM-thin and free the disk; drop LVM-thin storage from config',
  'GET /nodes/{node}/disks/directory': 'directory storages on local disks; mounted filesystems made by PVE; mount units; ext4/xfs mount points under /mnt/pve; Disks > Directory panel',
  'POST /nodes/{node}/disks/directory':
    'format disk as ext4 or xfs and mount; make directory storage from empty drive; mkfs and mount under /mnt/pve; new local folder storage on disk; Create: Directory button',
  'DELETE /nodes/{node}/disks/directory/{name}': 'unmount directory storage; remove mount unit; detach local directory disk; delete directory storage and wipe disk',
  'GET /nodes/{node}/disks/zfs': 'zpools on host; zpool list; health, size, free space, fragmentation and dedup of every pool; is any ZFS pool degraded; Disks > ZFS panel',
  'POST /nodes/{node}/disks/zfs': 'create zpool; zpool create; build mirror, raidz or draid from disks; new ZFS storage; set ashift and compression; Create: ZFS button',
  'DELETE /nodes/{node}/disks/zfs/{name}': 'destroy zpool; zpool destroy; delete ZFS pool and wipe its disks; remove ZFS storage from host',
  'GET /nodes/{node}/disks/zfs/{name}': 'zpool status of one pool; vdev layout; scrub or resilver progress; pool errors; which disk failed in the pool; Detail button in Disks > ZFS',
  'GET /nodes/{node}/disks/list':
    'physical disks in host; drives; lsblk; unused disks; SSD wearout column; disk model and serial; which disks are free; is the new drive detected; node Disks panel; partitions',
  'GET /nodes/{node}/disks/smart': 'SMART health of a drive; smartctl -a; is this disk failing; reallocated sectors; drive attributes; Show S.M.A.R.T. values button; why is disk health FAILED',
  'POST /nodes/{node}/disks/initgpt': 'put a GPT partition table on a disk; new partition table; prepare blank drive; label disk; Initialize with GPT button',
  'PUT /nodes/{node}/disks/wipedisk': 'wipe disk; erase drive; zap partitions and signatures; clean old disk for reuse; wipefs; Wipe Disk button; remove old ZFS or LVM labels from a drive',
  'GET /nodes/{node}/apt': '',
  'GET /nodes/{node}/apt/update':
    'pending updates; which packages can be upgraded; how many updates are waiting; apt list --upgradable; is the host up to date; available new versions; node Updates panel',
  'POST /nodes/{node}/apt/update': 'apt update; apt-get update; refresh package lists; check for updates; Refresh button in Updates; resync package index',
  'GET /nodes/{node}/apt/changelog': 'what changed in a package update; package changelog; release notes before upgrading; fixes in new version; Changelog button in Updates',
  'GET /nodes/{node}/apt/repositories':
    'configured apt repos; enterprise vs no-subscription repo; sources.list and .sources files; which repos are enabled; repo warnings; Repositories panel; why apt update gets 401',
  'POST /nodes/{node}/apt/repositories': 'enable a repository; disable enterprise repo; turn apt repo on or off; comment out repo line; Enable/Disable button in Repositories',
  'PUT /nodes/{node}/apt/repositories': 'add no-subscription repo; add pvetest repo; add Ceph repo; add standard Proxmox repository; switch to community repo; Add button in Repositories',
  'GET /nodes/{node}/apt/versions': 'pveversion -v; installed Proxmox package versions; running kernel; which pve-manager build; Package versions button; versions to paste in a forum post',
  'GET /nodes/{node}/replication': 'replication jobs of this host; last sync per job; ZFS replication state; which replication jobs are failing; pvesr status; node Replication panel',
  'GET /nodes/{node}/replication/{id}': '',
  'GET /nodes/{node}/replication/{id}/status': 'state of one replication job; last successful sync; next sync time; fail count; duration',
  'GET /nodes/{node}/replication/{id}/log': 'replication job log; why did replication fail; sync output of one job; replication error details; Log button in Replication',
  'POST /nodes/{node}/replication/{id}/schedule_now':
    'run replication now; trigger sync immediately; force replicate job; Schedule now button; pvesr schedule-now; run a replication job immediately instead of waiting for its schedule',
  'GET /nodes/{node}/certificates': '',
  'GET /nodes/{node}/certificates/acme': '',
  'DELETE /nodes/{node}/certificates/acme/certificate': "revoke Let's Encrypt certificate; revoke ACME cert of node; invalidate TLS cert at CA; withdraw compromised cert; pvenode acme cert revoke",
  'POST /nodes/{node}/certificates/acme/certificate':
    "order Let's Encrypt certificate; Order Certificates Now button; get new ACME cert for node; request TLS cert for web UI; issue first ACME cert; pvenode acme cert order",
  'PUT /nodes/{node}/certificates/acme/certificate': "renew Let's Encrypt certificate; renew ACME cert; refresh expiring TLS cert; cert about to expire; pvenode acme cert renew",
  'GET /nodes/{node}/certificates/info': 'node TLS certificates; when does the SSL cert expire; cert fingerprint; issuer and SAN names; self-signed or CA; pvenode cert info; node Certificates panel',
  'DELETE /nodes/{node}/certificates/custom': 'remove custom certificate; revert to self-signed cert; delete own SSL cert and key; go back to default pve-ssl; pvenode cert delete',
  'POST /nodes/{node}/certificates/custom':
    'upload own SSL certificate; install custom TLS cert and key; replace web UI certificate; wildcard cert; Upload Custom Certificate button; pvenode cert set',
  'GET /nodes/{node}/config': 'node-level options; node notes/description; wake-on-LAN MAC of node; ACME domains of node; start-on-boot delay; ballooning target percent; pvenode config get',
  'PUT /nodes/{node}/config': 'edit node notes; set wake-on-LAN MAC; set ACME domain for node; change startall delay; set ballooning target; pvenode config set',
  'GET /nodes/{node}/version': 'which Proxmox version is this node running; PVE release; manager version and repoid; is node on 8 or 9',
  'GET /nodes/{node}/status':
    'node health; host cpu usage; how much ram is free on this host; load average; root disk space; kernel version; cpu model and sockets; boot mode (UEFI, secure boot); node Summary panel',
  'POST /nodes/{node}/status':
    'reboot node; shut down host; turn off the server; power off the physical machine; restart Proxmox host; Reboot or Shutdown button of node; bounce the box; orderly shutdown of a physical node',
  'GET /nodes/{node}/netstat': 'per-guest network traffic counters; tap interface bytes in/out; which VM uses bandwidth on this host; veth/tap packet counters',
  'POST /nodes/{node}/execute': 'run several API calls in one batch; bulk execute commands; root only; chain API requests in order',
  'POST /nodes/{node}/wakeonlan': 'wake up powered-off node; WOL magic packet; power on host remotely; boot sleeping server; Wake-on-LAN menu item; pvenode wakeonlan',
  'GET /nodes/{node}/rrd': 'node usage graph image; PNG chart of host cpu/memory; rendered host graph; picture of node load',
  'GET /nodes/{node}/rrddata': 'host cpu and memory history; node load over last hour/day/week; performance trend; network and io wait over time; graphs of node Summary; was the host busy last night',
  'GET /nodes/{node}/syslog':
    'system log of a host; /var/log/syslog; see the node log; log lines between times; logs of one service; what happened on node; node Syslog panel; syslog of a node from the last hour',
  'GET /nodes/{node}/journal': 'journalctl; systemd journal; last N log lines; journalctl -n; boot log; journal by cursor',
  'POST /nodes/{node}/vncshell': 'host shell in browser; noVNC console to node; root terminal on host; Shell button of node; open shell on server',
  'POST /nodes/{node}/termproxy': 'xterm.js shell to node; web terminal on host; console for upgrade; open text console on server',
  'GET /nodes/{node}/vncwebsocket': 'node shell websocket',
  'POST /nodes/{node}/spiceshell': 'SPICE shell to host; remote-viewer console on node; virt-viewer terminal; .vv file for host shell',
  'GET /nodes/{node}/dns': 'nameservers of node; DNS servers; resolv.conf; search domain; which DNS does host use; node DNS panel',
  'PUT /nodes/{node}/dns': 'change nameserver; set DNS servers of host; edit resolv.conf; set search domain',
  'GET /nodes/{node}/time': 'what time is it on the node; host clock; timezone of server; local time; is the node clock wrong; node Time panel',
  'PUT /nodes/{node}/time': 'change timezone; set tz of host; switch server to UTC or local zone; timedatectl set-timezone',
  'GET /nodes/{node}/aplinfo': 'available container templates; pveam available; TurnKey appliances; template catalog to download; Templates button on storage',
  'POST /nodes/{node}/aplinfo': 'download container template; pveam download; fetch TurnKey/Debian/Ubuntu CT image to storage; get LXC template',
  'GET /nodes/{node}/query-oci-repo-tags': 'tags of a docker image; which versions an OCI repo offers; image tags before pull; latest tag of registry image',
  'GET /nodes/{node}/query-url-metadata': 'check URL before download; remote file size and name; mime type of a link; probe ISO link; Query URL button',
  'GET /nodes/{node}/report': 'pvereport; system report for support ticket; diagnostics dump of host; full node info for troubleshooting',
  'POST /nodes/{node}/startall': 'start every guest on this node; Bulk Start on node; boot all onboot VMs and CTs; power on everything on host; bulk start after maintenance',
  'POST /nodes/{node}/stopall': 'stop every guest on this node; Bulk Shutdown on node; shut down all VMs and CTs on host; bulk stop before maintenance or reboot; stop all guests with timeout',
  'POST /nodes/{node}/suspendall':
    'hibernate every VM on this node; Bulk Suspend on node; suspend all VMs to disk; bulk suspend before host reboot; save RAM state of all VMs; suspend every VM on a node at once',
  'POST /nodes/{node}/migrateall':
    'evacuate node; Bulk Migrate on node; move all guests to another node; drain host for maintenance; bulk migrate every VM and CT of this host; evacuate everything from one node onto another',
  'GET /nodes/{node}/hosts': '/etc/hosts of node; hosts file; static name entries; hostname to IP mapping; node Hosts panel',
  'POST /nodes/{node}/hosts': 'edit /etc/hosts; change hosts file; add static hostname entry; fix node IP mapping',
};
