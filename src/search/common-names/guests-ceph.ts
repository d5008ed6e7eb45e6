/**
 * Common names for guests (QEMU VMs and LXC containers, firewall excluded), Ceph, resource pools,
 * datacenter storage definitions and version: what operators call these operations, in our own words;
 * indexed beside the schema's text (src/search/document.ts).
 */
export const GUESTS_CEPH_NAMES: Readonly<Record<string, string>> = {
  'GET /cluster/ceph': '',
  'GET /cluster/ceph/metadata':
    'ceph daemon versions; ceph versions; which ceph version runs on each host; mixed ceph versions after upgrade; which ceph daemons still run the old release; where each mon/mgr/osd/mds lives; ceph services per node; ceph daemon inventory',
  'GET /cluster/ceph/status':
    'is ceph healthy; ceph -s; ceph health detail; HEALTH_WARN or HEALTH_ERR; why is ceph in warning; degraded or misplaced PGs; is recovery running; ceph quorum; how full is ceph overall; Datacenter > Ceph dashboard; cluster-wide ceph state',
  'GET /cluster/ceph/flags':
    'which ceph flags are set; every OSD flag with on/off; Manage Global Flags list; are any maintenance flags left on; noscrub, nodeep-scrub, norebalance state; ceph osd dump flags',
  'PUT /cluster/ceph/flags':
    'set or unset several ceph flags in one call; noout plus norebalance plus nobackfill together before a node reboot; Manage Global Flags dialog apply; bulk ceph flag change; pause all ceph client IO',
  'GET /cluster/ceph/flags/{flag}':
    'is noout set; is this one ceph flag on; check a single flag; is the noout flag still on after maintenance; is scrubbing disabled (noscrub); true or false for one flag',
  'PUT /cluster/ceph/flags/{flag}': 'toggle one ceph flag; ceph osd set noout; ceph osd unset noout; clear noout after maintenance; turn a single flag on or off; disable scrubbing with noscrub',
  'GET /nodes/{node}/qemu':
    'VMs on one node; qm list; which VMs run on this host; how many VMs on this node; KVM guests of a node with status, cpu, memory, uptime; which VMs are stopped here; locked VMs on node; tags of each VM; templates on node',
  'POST /nodes/{node}/qemu':
    'create a new VM; make virtual machine; Create VM button and wizard; qm create; spin up KVM guest; install VM from ISO; restore VM from backup; qmrestore; restore vzdump .vma archive; import VM disk; build VM from scratch; new VM with N cores, GB of RAM and a disk; bring back a deleted VM from its backup',
  'DELETE /nodes/{node}/qemu/{vmid}':
    'delete a VM; get rid of VM; qm destroy; More > Remove VM; remove VM and all its disks; purge VM from backup, replication and HA jobs; wipe VM for good; decommission VM; destroy unreferenced disks',
  'GET /nodes/{node}/qemu/{vmid}': '',
  'GET /nodes/{node}/qemu/{vmid}/agent': '',
  'POST /nodes/{node}/qemu/{vmid}/agent': 'raw guest agent command by name; qm guest cmd; qm agent; talk to qemu-guest-agent; generic QGA call',
  'POST /nodes/{node}/qemu/{vmid}/agent/fsfreeze-freeze':
    'freeze VM filesystems; quiesce guest disks before backup or snapshot; fsfreeze via guest agent; qm guest cmd fsfreeze-freeze; consistent disk state for a VM; freeze the filesystems inside a VM now',
  'POST /nodes/{node}/qemu/{vmid}/agent/fsfreeze-status':
    "are the VM's filesystems frozen; frozen or thawed; check guest fsfreeze state; is the guest still frozen after backup; qm guest cmd fsfreeze-status",
  'POST /nodes/{node}/qemu/{vmid}/agent/fsfreeze-thaw':
    'thaw VM filesystems; unfreeze guest disks; release fsfreeze; VM stuck frozen after failed backup; un-quiesce after snapshot; qm guest cmd fsfreeze-thaw',
  'POST /nodes/{node}/qemu/{vmid}/agent/fstrim':
    'trim VM disks; discard unused blocks inside guest; give freed space back to thin storage; reclaim thin space; fstrim via guest agent; shrink thin-provisioned usage; qm guest cmd fstrim',
  'GET /nodes/{node}/qemu/{vmid}/agent/get-fsinfo':
    "filesystems inside the VM; guest mount points and partitions; how full is the VM's disk from inside; free space in guest; used and total bytes per guest filesystem; drive letters of a Windows VM",
  'GET /nodes/{node}/qemu/{vmid}/agent/get-host-name':
    "VM's hostname as the guest OS reports it; computer name inside VM; what is the guest called; hostname via guest agent; qm guest cmd get-host-name",
  'GET /nodes/{node}/qemu/{vmid}/agent/get-memory-block-info': 'guest memory block size; memory hotplug block info inside VM; RAM block granularity seen by guest; agent memory block info',
  'GET /nodes/{node}/qemu/{vmid}/agent/get-memory-blocks': 'guest memory blocks online or offline; hotplugged RAM seen by guest OS; memory hotplug state in VM; which RAM blocks are onlined',
  'GET /nodes/{node}/qemu/{vmid}/agent/get-osinfo':
    'which OS the VM runs; what OS is installed in this VM; guest OS name and version; kernel release inside VM; Windows or Linux build; distro of guest; qm guest cmd get-osinfo',
  'GET /nodes/{node}/qemu/{vmid}/agent/get-time': 'VM clock; what time does the VM think it is; guest system time; time drift in VM; is the guest clock wrong; qm guest cmd get-time',
  'GET /nodes/{node}/qemu/{vmid}/agent/get-timezone': 'VM timezone; guest time zone and UTC offset; which timezone is the guest set to; tz inside VM',
  'GET /nodes/{node}/qemu/{vmid}/agent/get-users': 'who is logged into the VM; who is connected to the guest; guest user sessions; active logins inside guest; logged-in users and login time',
  'GET /nodes/{node}/qemu/{vmid}/agent/get-vcpus': 'vCPUs online in guest; CPUs the guest OS sees; hotplugged CPU state inside VM; how many cores guest has online',
  'GET /nodes/{node}/qemu/{vmid}/agent/info': 'guest agent version; which agent commands are supported; which QGA commands are enabled; qemu-guest-agent capabilities; qm guest cmd info',
  'GET /nodes/{node}/qemu/{vmid}/agent/network-get-interfaces':
    'VM IP address; what IP does the VM have; which IP did DHCP give the VM; guest NICs with IPv4/IPv6 and MAC; IPs reported by guest agent; IPs on VM Summary panel; qm guest cmd network-get-interfaces',
  'POST /nodes/{node}/qemu/{vmid}/agent/ping':
    'is the guest agent running; is qemu-guest-agent installed and answering; agent responding; guest agent not running message; qm guest cmd ping; qm agent ping; check QGA alive',
  'POST /nodes/{node}/qemu/{vmid}/agent/shutdown': 'shut down from inside the guest OS via agent; agent-initiated poweroff; guest agent shutdown when ACPI is ignored; qm guest cmd shutdown',
  'POST /nodes/{node}/qemu/{vmid}/agent/suspend-disk': 'in-guest suspend to disk via agent; S4 from inside VM; guest OS hibernates itself; qm guest cmd suspend-disk',
  'POST /nodes/{node}/qemu/{vmid}/agent/suspend-hybrid': 'hybrid sleep inside the guest; in-guest suspend to RAM and disk via agent; agent hybrid suspend; S3 plus S4 in guest',
  'POST /nodes/{node}/qemu/{vmid}/agent/suspend-ram': 'guest OS sleep via agent; in-guest suspend to RAM; S3 standby from inside VM; agent sleep mode',
  'POST /nodes/{node}/qemu/{vmid}/agent/set-user-password':
    'reset password inside the VM; forgot root password of VM; change root or Administrator password in guest; recover guest login; set guest user password via agent; qm guest passwd',
  'POST /nodes/{node}/qemu/{vmid}/agent/exec':
    'run a command inside the VM; qm guest exec; remote execute in guest without SSH; launch script in VM; start a process in guest, get its pid; run a shell command in a VM via the agent',
  'GET /nodes/{node}/qemu/{vmid}/agent/exec-status':
    'output of a command run in VM; exit code of guest exec; stdout and stderr of guest process; did the guest command finish; result of qm guest exec by pid; qm guest exec-status',
  'GET /nodes/{node}/qemu/{vmid}/agent/file-read': 'read a file inside the VM; cat guest file; fetch file content from guest without SSH; pull log from VM; see a config file inside the VM via agent',
  'POST /nodes/{node}/qemu/{vmid}/agent/file-write': 'write a file inside the VM; push file into guest; upload config into VM via agent; overwrite guest file',
  'GET /nodes/{node}/qemu/{vmid}/rrd': 'VM usage graph image; PNG chart of CPU or memory for one VM; rendered performance graph; picture of VM load',
  'GET /nodes/{node}/qemu/{vmid}/rrddata':
    'VM metrics history; CPU, memory, disk IO and network over time for one VM; how busy was the VM yesterday; usage trend; hourly/daily/weekly/monthly stats; data behind VM Summary graphs; average or max load of a VM',
  'GET /nodes/{node}/qemu/{vmid}/config':
    'qm config; VM hardware settings; how much RAM does the VM have; how many cores; cores, memory, disks, NICs, MAC, boot order; Hardware and Options panels; VM conf file /etc/pve/qemu-server/<vmid>.conf; what is configured on a VM; VM config dump',
  'POST /nodes/{node}/qemu/{vmid}/config':
    'change VM hardware; qm set; add hard disk or network card; Hardware > Add; attach ISO to CD drive; give VM more RAM or cores; hotplug memory or CPU; add EFI disk, TPM, PCI passthrough; edit VM with disk allocation; runs as task; set VM memory size in MB; extra NIC on a bridge with VLAN tag',
  'PUT /nodes/{node}/qemu/{vmid}/config':
    'change VM option right away (no task); quick qm set; rename VM; set notes, tags, start at boot, boot order, protection; Options panel edit; edit VM description; remove or revert one option',
  'GET /nodes/{node}/qemu/{vmid}/pending':
    'VM pending changes; what changes wait for a reboot; what will change after restart; unapplied settings; why does the VM need a restart; current vs pending values side by side; highlighted pending entries in Hardware panel',
  'GET /nodes/{node}/qemu/{vmid}/cloudinit':
    'cloud-init settings of VM; Cloud-Init panel; ci user, password, IP config, DNS, SSH keys; cloud-init pending vs applied values; what cloud-init changes await regeneration; qm cloudinit pending',
  'PUT /nodes/{node}/qemu/{vmid}/cloudinit':
    'regenerate cloud-init drive; Regenerate Image button; qm cloudinit update; rebuild cloudinit ISO; apply new cloud-init settings to the drive; refresh ci drive',
  'GET /nodes/{node}/qemu/{vmid}/cloudinit/dump': 'rendered cloud-init user-data; generated network-config or meta-data; qm cloudinit dump; what the guest will receive',
  'PUT /nodes/{node}/qemu/{vmid}/unlink': 'detach and delete VM disk images; qm disk unlink; remove unused disk volumes; drop disk from VM config and storage; free orphaned disk; delete unusedN disk',
  'POST /nodes/{node}/qemu/{vmid}/vncproxy': 'open VM console; Console button of a VM; noVNC ticket; VNC access to VM screen; see the VM display; remote console port and password',
  'POST /nodes/{node}/qemu/{vmid}/termproxy': 'VM serial console; xterm.js terminal for VM; qm terminal; text console on serial port; serial0 login',
  'GET /nodes/{node}/qemu/{vmid}/vncwebsocket': 'VM noVNC websocket stream',
  'POST /nodes/{node}/qemu/{vmid}/spiceproxy': 'SPICE console for VM; SPICE button; remote-viewer .vv file; virt-viewer connection; SPICE ticket',
  'GET /nodes/{node}/qemu/{vmid}/status': '',
  'GET /nodes/{node}/qemu/{vmid}/status/current':
    "is this VM running; is the VM on or off; one VM's state; uptime of a VM; paused or stopped; how much RAM is the VM using now; VM cpu now; HA state of this VM; qm status; is the VM locked and by what (backup, migrate)",
  'POST /nodes/{node}/qemu/{vmid}/status/start': 'start a VM; boot VM; power on VM; turn on VM; Start button; qm start; bring VM up; start a stopped guest',
  'POST /nodes/{node}/qemu/{vmid}/status/stop':
    "kill a VM; hard stop of a VM; pull the plug; force off a VM; power off VM immediately; Stop button; qm stop; VM hung, won't shut down; stop even while a shutdown task runs; guest ignores ACPI",
  'POST /nodes/{node}/qemu/{vmid}/status/reset': 'hard reset VM; press reset button; Reset button; instant restart without OS shutdown; qm reset; reset frozen VM; VM stuck at boot',
  'POST /nodes/{node}/qemu/{vmid}/status/shutdown':
    'graceful VM shutdown; turn off VM properly; ACPI power button; Shutdown button; clean shutdown of guest OS; qm shutdown; shut down VM politely; power off gracefully, letting the OS close things',
  'POST /nodes/{node}/qemu/{vmid}/status/reboot': 'reboot VM; restart VM cleanly; Reboot button; qm reboot; bounce VM; reboot to apply pending changes',
  'POST /nodes/{node}/qemu/{vmid}/status/suspend':
    'pause VM; Pause button; freeze vCPUs; qm suspend; Hibernate button; hibernate VM to disk; save RAM state to storage; suspend to disk, resumes on next start; pause but keep memory',
  'POST /nodes/{node}/qemu/{vmid}/status/resume': 'resume paused VM; unpause VM; Resume button; qm resume; continue a paused VM; wake VM from pause; wake a VM up again',
  'PUT /nodes/{node}/qemu/{vmid}/sendkey': 'send keystroke to VM; ctrl-alt-del; qm sendkey; press key in guest console',
  'GET /nodes/{node}/qemu/{vmid}/feature':
    'can this VM be snapshotted; why is snapshot not possible for this VM; can it be cloned or copied; snapshot or clone supported on its storage; capability check; which disk does not support snapshots',
  'POST /nodes/{node}/qemu/{vmid}/clone': 'clone VM; copy VM; make copy of VM; duplicate VM; qm clone; More > Clone; full or linked clone; deploy from template; new VM from snapshot',
  'POST /nodes/{node}/qemu/{vmid}/move_disk': 'move VM disk to another storage; Disk Action > Move Storage; qm disk move; relocate disk; convert disk format (qcow2/raw); Reassign Owner to another VM',
  'GET /nodes/{node}/qemu/{vmid}/migrate':
    'can this VM migrate; why can I not migrate this VM; which nodes can take this VM; local disks or devices blocking migration; allowed target nodes; migration precheck',
  'POST /nodes/{node}/qemu/{vmid}/migrate':
    'migrate VM to another node; Migrate button; live migration; qm migrate; move VM between hosts in cluster; online migrate with local disks; move a running VM to another host without downtime',
  'POST /nodes/{node}/qemu/{vmid}/remote_migrate': 'migrate VM to another cluster; cross-cluster move; qm remote-migrate; move VM to different datacenter',
  'POST /nodes/{node}/qemu/{vmid}/monitor': 'QEMU monitor; VM Monitor tab; HMP command; qm monitor; info block; low-level qemu debug command',
  'PUT /nodes/{node}/qemu/{vmid}/resize': 'grow VM disk; make VM disk bigger; enlarge virtual disk; add disk space; Disk Action > Resize; qm disk resize; qm resize; extend volume by +G',
  'GET /nodes/{node}/qemu/{vmid}/snapshot':
    'VM snapshots; Snapshots panel of a VM; which snapshots exist; does this VM have snapshots; how many snapshots; snapshot tree; qm listsnapshot; old snapshots with date and description',
  'POST /nodes/{node}/qemu/{vmid}/snapshot': 'take VM snapshot; Take Snapshot button; qm snapshot; checkpoint before upgrade; snapshot with RAM state (include vmstate)',
  'DELETE /nodes/{node}/qemu/{vmid}/snapshot/{snapname}': 'delete VM snapshot; remove old snapshot; qm delsnapshot; clean up snapshot; force removal of a stuck snapshot',
  'GET /nodes/{node}/qemu/{vmid}/snapshot/{snapname}': '',
  'GET /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/config': "VM config saved in a snapshot; settings at snapshot time; what hardware did the snapshot have; snapshot's vm.conf",
  'PUT /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/config': 'edit snapshot description; change snapshot notes; annotate VM snapshot; set snapshot comment',
  'POST /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback':
    'revert VM to snapshot; Rollback button; qm rollback; restore snapshot; undo changes since snapshot; go back to checkpoint; put the VM back to the snapshot point',
  'POST /nodes/{node}/qemu/{vmid}/template': 'convert VM to template; More > Convert to template; qm template; make golden image; mark VM as template',
  'POST /nodes/{node}/qemu/{vmid}/mtunnel': 'internal VM migration tunnel',
  'GET /nodes/{node}/qemu/{vmid}/mtunnelwebsocket': 'internal VM migration tunnel websocket',
  'POST /nodes/{node}/qemu/{vmid}/dbus-vmstate': 'dbus-vmstate helper start or stop; conntrack state carry-over for VM migration',
  'GET /nodes/{node}/lxc':
    'containers on one node; pct list; which CTs run on this host; how many containers on this node; LXC guests of a node with cpu, memory, swap, disk, uptime; stopped CTs here; tags of each CT; locked containers on node',
  'POST /nodes/{node}/lxc':
    'create container; Create CT button; pct create; new CT from template; spin up LXC; make container from Debian or Ubuntu template; restore container backup; pct restore; restore a CT from backup over the existing one',
  'DELETE /nodes/{node}/lxc/{vmid}': 'delete container; get rid of CT; pct destroy; More > Remove CT; remove CT and its volumes; purge CT from backup and replication jobs; decommission container',
  'GET /nodes/{node}/lxc/{vmid}': '',
  'GET /nodes/{node}/lxc/{vmid}/config':
    'pct config; container settings; how much RAM does the CT have; CT hostname, cores, memory, swap, rootfs, mount points, NICs; Resources, Network, DNS, Options panels; is the CT unprivileged; CT conf file /etc/pve/lxc/<vmid>.conf; what is configured on a CT',
  'PUT /nodes/{node}/lxc/{vmid}/config':
    'change container settings; pct set; give CT more RAM or swap; add mount point or bind mount; change CT hostname, IP, DNS; enable nesting or keyctl; set tags; delete or revert a CT option; more memory or cores for a container; set CT memory in MB',
  'GET /nodes/{node}/lxc/{vmid}/status': '',
  'GET /nodes/{node}/lxc/{vmid}/status/current':
    "is this container running; is the CT up; one CT's state; container uptime; CT memory, swap and disk usage now; how much RAM is the CT using; pct status; HA state of this CT; is the CT locked",
  'POST /nodes/{node}/lxc/{vmid}/status/start': 'start container; Start button for CT; pct start; boot CT; bring LXC up; turn on container; start CT with debug log',
  'POST /nodes/{node}/lxc/{vmid}/status/stop': 'kill container; hard stop CT; Stop button for CT; pct stop; force off container; abort all CT processes; CT hung; stop CT immediately without waiting',
  'POST /nodes/{node}/lxc/{vmid}/status/shutdown': 'graceful container shutdown; turn off CT properly; Shutdown button for CT; pct shutdown; clean stop of CT; let init shut down the container',
  'POST /nodes/{node}/lxc/{vmid}/status/suspend': 'freeze container; pct suspend; pause CT processes; freeze LXC (experimental)',
  'POST /nodes/{node}/lxc/{vmid}/status/resume': 'unfreeze container; pct resume; resume paused CT; continue suspended LXC',
  'POST /nodes/{node}/lxc/{vmid}/status/reboot': 'reboot container; restart CT; Reboot button for CT; pct reboot; bounce container; apply pending CT changes',
  'GET /nodes/{node}/lxc/{vmid}/snapshot': 'container snapshots; Snapshots panel of a CT; pct listsnapshot; which CT snapshots exist; does this container have snapshots; snapshot tree with dates',
  'POST /nodes/{node}/lxc/{vmid}/snapshot': 'take container snapshot; Take Snapshot for CT; pct snapshot; checkpoint CT before upgrade; snapshot LXC',
  'DELETE /nodes/{node}/lxc/{vmid}/snapshot/{snapname}': 'delete container snapshot; pct delsnapshot; remove old CT snapshot; clean up LXC snapshot',
  'GET /nodes/{node}/lxc/{vmid}/snapshot/{snapname}': '',
  'POST /nodes/{node}/lxc/{vmid}/snapshot/{snapname}/rollback':
    'revert container to snapshot; Rollback for CT; pct rollback; restore CT snapshot; undo CT changes; return or put a container back to a snapshot',
  'GET /nodes/{node}/lxc/{vmid}/snapshot/{snapname}/config': "container config saved in a snapshot; CT settings at snapshot time; what the CT looked like in a snapshot; snapshot's CT conf",
  'PUT /nodes/{node}/lxc/{vmid}/snapshot/{snapname}/config': 'edit container snapshot description; change CT snapshot notes; annotate LXC snapshot; snapshot comment',
  'GET /nodes/{node}/lxc/{vmid}/rrd': 'container usage graph image; PNG chart of CT CPU or memory; rendered LXC performance graph; picture of CT load',
  'GET /nodes/{node}/lxc/{vmid}/rrddata':
    'container metrics history; CT CPU, memory, disk and network over time; how busy was the CT last week; usage trend for one CT; hourly/daily/weekly CT stats; data behind CT Summary graphs',
  'POST /nodes/{node}/lxc/{vmid}/vncproxy': 'open container console; Console button for CT; noVNC ticket for CT; VNC access to LXC; CT console port and password',
  'POST /nodes/{node}/lxc/{vmid}/termproxy': 'container shell; get a shell in CT; pct console; pct enter; xterm.js terminal for CT; text login to container',
  'GET /nodes/{node}/lxc/{vmid}/vncwebsocket': 'container noVNC websocket stream',
  'POST /nodes/{node}/lxc/{vmid}/spiceproxy': 'SPICE console for container; remote-viewer .vv file for CT; virt-viewer to LXC; CT SPICE ticket',
  'POST /nodes/{node}/lxc/{vmid}/remote_migrate': 'migrate container to another cluster; cross-cluster CT move; pct remote-migrate; move LXC to different datacenter',
  'GET /nodes/{node}/lxc/{vmid}/migrate': 'can this container migrate; why can I not migrate this CT; CT migration preconditions; allowed target nodes for CT; what blocks CT migration',
  'POST /nodes/{node}/lxc/{vmid}/migrate': 'migrate container to another node; Migrate button for CT; pct migrate; restart migration of CT; move CT between hosts',
  'GET /nodes/{node}/lxc/{vmid}/feature': 'can this container be snapshotted; can CT be cloned or copied; snapshot support on CT storage; CT capability check',
  'POST /nodes/{node}/lxc/{vmid}/template': 'convert container to template; Convert to template for CT; pct template; make CT golden image; mark LXC as template',
  'POST /nodes/{node}/lxc/{vmid}/clone': 'clone container; copy CT; make copy of container; duplicate LXC; pct clone; full or linked clone of CT',
  'PUT /nodes/{node}/lxc/{vmid}/resize': 'grow container disk; make CT disk bigger; enlarge rootfs; pct resize; Volume Action > Resize; extend mount point; add space to CT',
  'POST /nodes/{node}/lxc/{vmid}/move_volume': 'move container volume to another storage; Volume Action > Move Storage; pct move-volume; relocate rootfs or mount point; reassign volume to another CT',
  'GET /nodes/{node}/lxc/{vmid}/pending':
    'container pending changes; unapplied CT settings; what waits for CT reboot; why does the CT need a restart; current vs pending values of CT; queued container settings',
  'GET /nodes/{node}/lxc/{vmid}/interfaces': 'container IP address; what IP does the CT have; which IP did DHCP give the container; CT NICs with IPv4/IPv6 and MAC; interfaces inside LXC',
  'POST /nodes/{node}/lxc/{vmid}/mtunnel': 'internal container migration tunnel',
  'GET /nodes/{node}/lxc/{vmid}/mtunnelwebsocket': 'internal container migration tunnel websocket',
  'GET /nodes/{node}/ceph': '',
  'GET /nodes/{node}/ceph/cfg': '',
  'GET /nodes/{node}/ceph/cfg/raw': 'ceph.conf contents; where is ceph.conf; ceph config file text; cat /etc/pve/ceph.conf; raw ceph configuration; Ceph > Configuration left pane',
  'GET /nodes/{node}/ceph/cfg/db': 'ceph config dump; ceph configuration database; Configuration Database pane; runtime ceph options; which settings can change live; mon config db',
  'GET /nodes/{node}/ceph/cfg/value': 'value of specific ceph options; look up ceph config keys by section; read one ceph setting; ceph config get; what is osd_memory_target set to',
  'GET /nodes/{node}/ceph/osd': 'ceph osd tree; OSD list; OSD panel; which OSDs are down or out; how many OSDs; disks in ceph per host; OSD usage percent, latency and device class',
  'POST /nodes/{node}/ceph/osd': 'create OSD; add disk to ceph; Create: OSD button; turn a new disk into an OSD; pveceph osd create; new OSD with DB/WAL device; encrypted OSD',
  'DELETE /nodes/{node}/ceph/osd/{osdid}': 'destroy OSD; remove disk from ceph; pveceph osd destroy; retire failed OSD; wipe OSD disk and partitions; More > Destroy OSD',
  'GET /nodes/{node}/ceph/osd/{osdid}': '',
  'GET /nodes/{node}/ceph/osd/{osdid}/metadata': "one OSD's details; OSD Details window; OSD backing device, host, pid, memory; what disk an OSD uses; ceph osd metadata",
  'GET /nodes/{node}/ceph/osd/{osdid}/lv-info': 'OSD LVM volume; which LV and VG back an OSD; block, DB or WAL volume size; ceph-volume lvm info',
  'POST /nodes/{node}/ceph/osd/{osdid}/in': 'mark OSD in; OSD In button; ceph osd in; bring OSD back into data placement; re-add OSD after maintenance',
  'POST /nodes/{node}/ceph/osd/{osdid}/out': 'mark OSD out; OSD Out button; ceph osd out; drain OSD; move data off a disk before removal',
  'POST /nodes/{node}/ceph/osd/{osdid}/scrub': 'scrub OSD; deep scrub one OSD; Scrub or Deep Scrub button; check OSD data consistency; ceph osd scrub; ceph osd deep-scrub',
  'GET /nodes/{node}/ceph/mds': 'ceph metadata servers; MDS list; CephFS MDS state; active and standby MDS; which node runs the MDS',
  'DELETE /nodes/{node}/ceph/mds/{name}': 'destroy MDS; remove ceph metadata server; pveceph mds destroy; delete CephFS MDS',
  'POST /nodes/{node}/ceph/mds/{name}': 'create MDS; add metadata server for CephFS; pveceph mds create; hot standby MDS',
  'GET /nodes/{node}/ceph/mgr': 'ceph managers; mgr list; which mgr is active or standby; manager daemons per host',
  'DELETE /nodes/{node}/ceph/mgr/{id}': 'destroy ceph manager; remove mgr; pveceph mgr destroy; delete manager daemon',
  'POST /nodes/{node}/ceph/mgr/{id}': 'create ceph manager; add mgr daemon; pveceph mgr create; add standby manager',
  'GET /nodes/{node}/ceph/mon': 'ceph monitors; mon list; Ceph > Monitor panel; which mons are in quorum; is a mon out of quorum; monitor addresses and versions; where are the ceph monitors running',
  'DELETE /nodes/{node}/ceph/mon/{monid}': 'destroy ceph monitor; remove mon; pveceph mon destroy; shrink mon quorum',
  'POST /nodes/{node}/ceph/mon/{monid}': 'create ceph monitor; add mon; pveceph mon create; grow mon quorum',
  'GET /nodes/{node}/ceph/fs': 'CephFS filesystems; which CephFS exist; CephFS panel; data and metadata pool of CephFS; ceph fs ls',
  'POST /nodes/{node}/ceph/fs/{name}': 'create CephFS; Create CephFS button; pveceph fs create; new ceph filesystem; shared file storage on ceph; add CephFS as storage',
  'GET /nodes/{node}/ceph/pool':
    'ceph pools; RBD pools; Pools panel; how full is each ceph pool; pool usage percent and bytes used; replica size and min_size; PG count; autoscale status; pveceph pool ls',
  'POST /nodes/{node}/ceph/pool': 'create ceph pool; pveceph pool create; new RBD pool; erasure coded pool; set replicas of a new pool; add pool as VM storage',
  'DELETE /nodes/{node}/ceph/pool/{name}': 'destroy ceph pool; delete RBD pool; pveceph pool destroy; remove pool and its storages',
  'GET /nodes/{node}/ceph/pool/{name}': '',
  'PUT /nodes/{node}/ceph/pool/{name}': 'change ceph pool settings; pveceph pool set; set pool size or min_size; change replica count; change pg_num; autoscale mode; crush rule of pool; target size',
  'GET /nodes/{node}/ceph/pool/{name}/status': "one ceph pool's settings and stats; pveceph pool get; pool Detail window; pool flags (nodelete, nosizechange); pg_num and size of a pool",
  'POST /nodes/{node}/ceph/init': 'initialize ceph; pveceph init; first-time ceph setup; ceph setup wizard configuration step; set ceph public and cluster network',
  'POST /nodes/{node}/ceph/stop': 'stop ceph services on a node; stop OSD or mon daemon; ceph.target down; halt ceph on host',
  'POST /nodes/{node}/ceph/start': 'start ceph services on a node; start OSD or mon daemon; bring ceph up; start ceph.target',
  'POST /nodes/{node}/ceph/restart': 'restart ceph services on a node; bounce OSD, mon, mgr or mds daemon; restart ceph.target; reload ceph daemon',
  'GET /nodes/{node}/ceph/status': 'ceph status from a specific node; ceph -s run on this node; ceph health via one node; node Ceph > Status panel; ceph state as seen from node X',
  'GET /nodes/{node}/ceph/crush': 'crush map; decompiled crushmap; Configuration > Crush Map tab; ceph data placement hierarchy; ceph osd getcrushmap',
  'GET /nodes/{node}/ceph/log': 'ceph cluster log; see the ceph log; ceph.log lines; Ceph > Log panel; ceph warnings history; recent ceph events',
  'GET /nodes/{node}/ceph/rules': 'crush rules; replicated_rule; which placement rules exist for pools; ceph osd crush rule ls',
  'GET /nodes/{node}/ceph/cmd-safety': 'is it safe to stop this OSD or mon; ok-to-stop; safe-to-destroy check; will stopping break ceph',
  'GET /storage':
    'storage definitions; which storages are defined in the datacenter; Datacenter > Storage panel; storage.cfg entries; storage types (NFS, ZFS, LVM, RBD, PBS); filter storages by type',
  'POST /storage':
    'add storage; pvesm add; Datacenter > Storage > Add; mount NFS share; add CIFS/SMB; connect PBS datastore; add iSCSI, LVM-thin or RBD; connect NAS; new datastore; make an NFS export available to every node as storage',
  'DELETE /storage/{storage}': 'remove storage definition; pvesm remove; Storage Remove button; detach datastore from datacenter (data stays); drop storage entry',
  'GET /storage/{storage}': "one storage's settings; storage.cfg entry; allowed content types; nodes it is restricted to; server and path; values in the storage Edit dialog",
  'PUT /storage/{storage}':
    'edit storage; pvesm set; storage Edit dialog; change content types; restrict storage to nodes; disable or enable storage; set backup retention (prune settings); change NFS options',
  'DELETE /pools': 'delete resource pool; remove VM group; drop empty pool; pveum pool delete; remove nested pool',
  'GET /pools':
    "resource pools; Datacenter > Permissions > Pools; pool members; which VMs and storages are in a pool; which pool is this VM in; guest groups; one pool's contents; nested pools; pveum pool list",
  'POST /pools': 'create resource pool; new VM group; pool for grouping guests and permissions; pveum pool add',
  'PUT /pools': 'add VM to resource pool; remove guest from pool; add storage to pool; Members tab Add or Remove; move guest between pools; pool comment; pveum pool modify',
  'DELETE /pools/{poolid}': 'legacy delete of a resource pool by path; old-style pool removal',
  'GET /pools/{poolid}': "legacy single-pool read by path; one resource pool's members and comment (old form)",
  'PUT /pools/{poolid}': 'legacy pool update by path; add or remove VM in a resource pool (old form); old-style pool edit',
  'GET /version': 'Proxmox VE version; which PVE version am I running; what version is this server; which PVE release; release and repoid; API version; default console viewer',
};
