/**
 * Common names for network and firewall (SDN, datacenter/host/guest firewall, node network): what
 * operators call these operations, in our own words; indexed beside the schema's text
 * (src/search/document.ts).
 */
export const NETWORK_FIREWALL_NAMES: Readonly<Record<string, string>> = {
  'GET /cluster/firewall': '',
  'GET /cluster/firewall/groups':
    'security groups; firewall groups; which security groups exist; how many sg are defined; reusable named rule sets for VMs, CTs and hosts; group names and comments; Datacenter > Firewall > Security Group panel',
  'POST /cluster/firewall/groups':
    'create security group; new firewall group; make a reusable group of firewall rules; template of rules for many VMs; rename security group or change its comment; Security Group Create button',
  'DELETE /cluster/firewall/groups/{group}':
    'remove a security group; delete firewall group; drop unused rule set; get rid of an empty security group; why does deleting a sg fail (it still has rules); Security Group Remove button',
  'GET /cluster/firewall/groups/{group}':
    'rules inside a security group; what does this security group allow or block; which ports does the group open; group rule table in order; sg contents; cluster.fw [group] section',
  'POST /cluster/firewall/groups/{group}':
    'add rule to security group; open port in firewall group; allow or block in sg; append rule to group; put new ACCEPT or DROP line into a group; let a port through on every guest that uses the sg',
  'DELETE /cluster/firewall/groups/{group}/{pos}': 'remove rule from security group; delete group rule at position; drop line from sg; stop group from opening a port; take one rule out of a group',
  'GET /cluster/firewall/groups/{group}/{pos}':
    'one rule of a security group; group rule number N; inspect single sg rule; action, port, source of group rule; is this group rule enabled; what does line N of the sg do',
  'PUT /cluster/firewall/groups/{group}/{pos}':
    'edit security group rule; change port in group rule; move or reorder sg rule; drag rule up or down in group; disable group rule; toggle rule in group on or off',
  'GET /cluster/firewall/rules':
    'datacenter firewall rules; cluster-wide rules; global firewall rule table; what is allowed or blocked for the whole cluster; which ports are open at datacenter level; cluster.fw rules; Datacenter > Firewall panel',
  'POST /cluster/firewall/rules':
    'add datacenter firewall rule; open port cluster wide; allow ip to every node; block address for whole cluster; global allow or deny rule; insert security group at datacenter level; Datacenter > Firewall Add button',
  'DELETE /cluster/firewall/rules/{pos}':
    'delete datacenter firewall rule; remove cluster-wide rule by position; close global open port; drop global rule; remove rule number N from cluster.fw; Datacenter > Firewall Remove button',
  'GET /cluster/firewall/rules/{pos}':
    'one datacenter firewall rule; cluster rule number N; inspect single global rule; action, ports, source, dest of a cluster rule; is this global rule enabled; what does datacenter rule N do',
  'PUT /cluster/firewall/rules/{pos}':
    'edit datacenter firewall rule; change cluster-wide rule; move or reorder global rule; drag datacenter rule up or down; disable or enable global rule; change port or source of cluster rule',
  'GET /cluster/firewall/ipset':
    'datacenter ipsets; cluster ip sets; address groups; named lists of IPs and subnets; blacklist and management sets; which ipsets exist cluster wide; how many ipsets; Datacenter > Firewall > IPSet panel',
  'POST /cluster/firewall/ipset':
    'create datacenter ipset; new cluster ip set; new address group; make blacklist or management set; rename ipset or change its comment; IPSet Create button; group many IPs under one name',
  'DELETE /cluster/firewall/ipset/{name}': 'delete datacenter ipset; remove cluster ip set; drop address group; force delete non-empty ipset with all its entries; IPSet Remove button',
  'GET /cluster/firewall/ipset/{name}':
    'members of a datacenter ipset; IPs and subnets in cluster ip set; which addresses are in the blacklist; who is in the management ipset; how many IPs are in the set; nomatch flags',
  'POST /cluster/firewall/ipset/{name}':
    'add IP to datacenter ipset; add subnet to cluster ip set; blacklist an address; ban an IP cluster wide; whitelist a network; put my admin IP in management set; append CIDR to address group; add an address to an existing ipset',
  'DELETE /cluster/firewall/ipset/{name}/{cidr}':
    'remove IP from datacenter ipset; take subnet out of cluster ip set; unblacklist address; unban IP; delete CIDR entry from cluster set; take an IP out of management set',
  'GET /cluster/firewall/ipset/{name}/{cidr}': 'one entry of datacenter ipset; single CIDR in cluster ip set; is this address in the set; is this IP blacklisted; comment and nomatch flag of an entry',
  'PUT /cluster/firewall/ipset/{name}/{cidr}':
    'edit datacenter ipset entry; change comment on IP in cluster ip set; set nomatch exclusion on CIDR; exempt address from set; punch a hole in a blacklisted range',
  'GET /cluster/firewall/aliases':
    'datacenter firewall aliases; cluster ip aliases; named addresses; host and network nicknames used in rules; alias to CIDR mapping; which aliases exist; Datacenter > Firewall > Alias panel',
  'POST /cluster/firewall/aliases': 'create datacenter alias; name an IP or subnet cluster wide; new firewall alias; give address a name for rules; label my office network; Alias Add button',
  'DELETE /cluster/firewall/aliases/{name}': 'delete datacenter alias; remove cluster ip alias; drop named address; forget host nickname; Alias Remove button',
  'GET /cluster/firewall/aliases/{name}': 'one datacenter alias; what IP does this cluster alias point to; resolve alias to CIDR; which network is behind the name; alias comment',
  'PUT /cluster/firewall/aliases/{name}': 'edit datacenter alias; change IP behind cluster alias; rename alias; repoint named address to new subnet; office IP changed, update alias',
  'GET /cluster/firewall/options':
    'datacenter firewall settings; is the firewall switched on for the cluster at all; default inbound and outbound policy; forward policy; is ebtables on; current log rate limit; Datacenter > Firewall > Options',
  'PUT /cluster/firewall/options':
    'turn on datacenter firewall; master firewall switch; enable or disable firewall cluster wide; switch off firewall everywhere; set default input policy drop; set output or forward policy; toggle ebtables; change log rate limit',
  'GET /cluster/firewall/macros':
    'firewall macros; predefined service presets; SSH, HTTP, Ping, DNS macros; which service shortcuts can rules use; port bundles by name; macro dropdown in rule dialog; what ports does a macro open',
  'GET /cluster/firewall/refs':
    'aliases and ipsets usable in datacenter rules; what can I put as rule source or destination; +ipset and alias references; cluster-level names for rules; source/dest dropdown choices',
  'GET /cluster/sdn': '',
  'PUT /cluster/sdn':
    'apply SDN changes; commit pending SDN config; push software-defined network to all nodes; reload sdn; Datacenter > SDN Apply button; pvesh set /cluster/sdn; make new vnet or zone take effect on nodes',
  'GET /cluster/sdn/vnets':
    'SDN vnets; virtual networks; which vnets exist; how many vnets; vnet VLAN tag and zone; SDN bridges for guests; which vnets have pending changes; Datacenter > SDN > VNets panel',
  'POST /cluster/sdn/vnets': 'create vnet; add SDN virtual network; new vnet in zone with vlan tag or vxlan id; define guest network in SDN; VNets Create button; make a network for VMs on every node',
  'DELETE /cluster/sdn/vnets/{vnet}': 'delete vnet; remove SDN virtual network; drop vnet from zone; get rid of guest network; VNets Remove button',
  'GET /cluster/sdn/vnets/{vnet}':
    'one vnet config; which zone and tag a vnet uses; is this vnet vlan aware; isolated ports, alias of vnet; pending vs running vnet; is this vnet edited but not yet applied',
  'PUT /cluster/sdn/vnets/{vnet}': 'edit vnet; change vnet tag or zone; rename vnet alias; turn on port isolation; make vnet vlan-aware; move vnet to other zone; VNets Edit dialog',
  'GET /cluster/sdn/vnets/{vnet}/firewall': '',
  'GET /cluster/sdn/vnets/{vnet}/firewall/rules':
    'vnet firewall rules; forward rules on SDN vnet; what traffic is allowed through the vnet bridge; vnet rule table; what may pass through this vnet; VNets > Firewall panel',
  'POST /cluster/sdn/vnets/{vnet}/firewall/rules':
    'add vnet firewall rule; allow or block forwarded traffic on vnet; new forward rule for SDN network; filter between guests on vnet; block a port for traffic crossing the vnet',
  'DELETE /cluster/sdn/vnets/{vnet}/firewall/rules/{pos}':
    'delete vnet firewall rule; remove forward rule from SDN vnet; drop vnet rule by position; unblock traffic on vnet; VNets > Firewall Remove button',
  'GET /cluster/sdn/vnets/{vnet}/firewall/rules/{pos}': 'one vnet firewall rule; vnet rule number N; inspect single forward rule on vnet; action and ports of vnet rule; is this vnet rule enabled',
  'PUT /cluster/sdn/vnets/{vnet}/firewall/rules/{pos}': 'edit vnet firewall rule; move or reorder vnet forward rule; disable rule on vnet; change port on vnet rule; turn off one vnet rule',
  'GET /cluster/sdn/vnets/{vnet}/firewall/options':
    'vnet firewall settings; is firewall on for this vnet; vnet forward policy; forward log level of vnet; does this vnet drop forwarded traffic by default',
  'PUT /cluster/sdn/vnets/{vnet}/firewall/options':
    'enable vnet firewall; turn off firewall on vnet; set vnet forward policy to drop or accept; change vnet forward log level; log forwarded packets on vnet',
  'GET /cluster/sdn/vnets/{vnet}/subnets':
    'subnets of a vnet; SDN subnet list; gateway and CIDR of vnet; DHCP ranges; SNAT on vnet subnets; which subnets does this vnet have; Subnets panel under VNets',
  'POST /cluster/sdn/vnets/{vnet}/subnets': 'create SDN subnet; add CIDR to vnet; set gateway, SNAT and DHCP range for vnet; new IP range for vnet; give vnet an IP network; Subnets Create button',
  'DELETE /cluster/sdn/vnets/{vnet}/subnets/{subnet}': 'delete SDN subnet; remove CIDR from vnet; drop vnet subnet; remove gateway and DHCP range; Subnets Remove button',
  'GET /cluster/sdn/vnets/{vnet}/subnets/{subnet}': 'one SDN subnet config; gateway of vnet subnet; is SNAT on; DHCP range of subnet; DNS zone prefix; which DNS server does the vnet DHCP hand out',
  'PUT /cluster/sdn/vnets/{vnet}/subnets/{subnet}': 'edit SDN subnet; change gateway; turn SNAT on or off; NAT or masquerade guests to internet; change DHCP pool range; set DHCP DNS server',
  'DELETE /cluster/sdn/vnets/{vnet}/ips': 'release IP in vnet; delete MAC to IP mapping; remove DHCP reservation; free address in SDN IPAM; drop stale IPAM entry of a deleted guest',
  'POST /cluster/sdn/vnets/{vnet}/ips': 'reserve IP in vnet; static DHCP lease; pin MAC to IP address; add IPAM mapping for guest; fixed IP for a VM on SDN',
  'PUT /cluster/sdn/vnets/{vnet}/ips': 'change IP reservation in vnet; update MAC to IP mapping; reassign DHCP lease to guest vmid; move static lease; give a VM a different fixed IP on the vnet',
  'GET /cluster/sdn/zones': 'SDN zones; which zones exist; simple, VLAN, QinQ, VXLAN, EVPN zones; zone type, bridge, MTU, nodes; which zones have pending changes; Datacenter > SDN > Zones panel',
  'POST /cluster/sdn/zones': 'create SDN zone; add VLAN or VXLAN or EVPN zone; new simple zone with DHCP; define overlay network zone; Zones Add button',
  'DELETE /cluster/sdn/zones/{zone}': 'delete SDN zone; remove SDN zone; drop VXLAN or EVPN zone; tear down VLAN zone; Zones Remove button',
  'GET /cluster/sdn/zones/{zone}':
    'one SDN zone config; zone type and bridge; peers and MTU of zone; IPAM and DNS of a zone; which nodes a zone spans; exit nodes of EVPN zone; is this zone edited but not applied',
  'PUT /cluster/sdn/zones/{zone}': 'edit SDN zone; change zone MTU or bridge; restrict zone to nodes; change zone peers or exit nodes; set zone IPAM or DNS; Zones Edit dialog',
  'GET /cluster/sdn/controllers': 'SDN controllers; EVPN and BGP controllers; ISIS routing; FRR routing setup; ASN and peers of controllers; which controllers exist; SDN > Options > Controllers',
  'POST /cluster/sdn/controllers': 'create SDN controller; add EVPN controller; add BGP peer controller; set ASN; add ISIS controller; peer the nodes with my upstream router',
  'DELETE /cluster/sdn/controllers/{controller}': 'remove an SDN controller; delete EVPN controller; remove BGP controller; drop ISIS routing; stop BGP peering of the nodes',
  'GET /cluster/sdn/controllers/{controller}': 'one SDN controller config; ASN of controller; BGP peers; loopback and ebgp settings; which fabric an EVPN controller rides on',
  'PUT /cluster/sdn/controllers/{controller}': 'edit SDN controller; change ASN or BGP peers; change EVPN controller; ebgp multihop; ISIS settings; add a peer to BGP controller',
  'GET /cluster/sdn/ipams': 'IPAM plugins; IP address management backends; pve, NetBox, phpIPAM integrations; which IPAM is configured; SDN > Options > IPAM',
  'POST /cluster/sdn/ipams': 'add IPAM; connect NetBox; connect phpIPAM; configure IP address management plugin with URL and token; use NetBox for guest addresses; SDN > Options > IPAM Add',
  'DELETE /cluster/sdn/ipams/{ipam}': 'delete IPAM; remove NetBox integration; remove phpIPAM integration; drop IPAM plugin; stop syncing IPs to NetBox',
  'GET /cluster/sdn/ipams/{ipam}': 'one IPAM config; NetBox URL; phpIPAM section; IPAM token and type; where does this IPAM plugin point',
  'PUT /cluster/sdn/ipams/{ipam}': 'edit IPAM; change NetBox URL or API token; update phpIPAM section; rotate IPAM credentials; NetBox token expired',
  'GET /cluster/sdn/ipams/{ipam}/status':
    'IPAM entries; which IPs are allocated; used addresses per vnet; DHCP leases MAC IP vmid; who has which IP in SDN; which VM got this address; Datacenter > SDN > IPAM panel',
  'GET /cluster/sdn/dns': 'SDN DNS plugins; PowerDNS servers; which DNS integration is configured; automatic DNS records for guests; SDN > Options > DNS',
  'POST /cluster/sdn/dns': 'add PowerDNS; connect DNS server to SDN; configure DNS plugin with URL and key; ttl for auto records; register guest hostnames automatically; SDN > Options > DNS Add',
  'DELETE /cluster/sdn/dns/{dns}': 'delete SDN DNS plugin; remove PowerDNS integration; stop automatic DNS records; drop DNS server; disconnect PowerDNS',
  'GET /cluster/sdn/dns/{dns}': 'one SDN DNS config; PowerDNS URL; record TTL; reverse zone mask; PowerDNS certificate fingerprint',
  'PUT /cluster/sdn/dns/{dns}': 'edit SDN DNS plugin; change PowerDNS URL; rotate PowerDNS API key; change record TTL; PowerDNS key changed',
  'GET /cluster/sdn/fabrics': '',
  'GET /cluster/sdn/fabrics/fabric': 'SDN fabrics; underlay routing fabrics; OpenFabric and OSPF fabrics; fabric IP prefix and area; which fabrics exist; Datacenter > SDN > Fabrics',
  'POST /cluster/sdn/fabrics/fabric': 'create fabric; add OpenFabric or OSPF underlay; new routed mesh network; set fabric IP prefix; full mesh for Ceph without switch',
  'DELETE /cluster/sdn/fabrics/fabric/{id}': 'delete fabric; remove OpenFabric underlay; remove OSPF fabric; tear down routed mesh; get rid of a fabric',
  'GET /cluster/sdn/fabrics/fabric/{id}': 'one fabric config; fabric protocol and area; hello interval; IP prefix of a fabric; is this fabric OSPF or OpenFabric',
  'PUT /cluster/sdn/fabrics/fabric/{id}': 'edit fabric; change fabric IP prefix; change OSPF area; tune hello or CSNP interval; move fabric to another prefix',
  'GET /cluster/sdn/fabrics/node': 'fabric members of all fabrics; which nodes are in each fabric; node router IPs across fabrics; fabric interfaces per host; every fabric node entry',
  'GET /cluster/sdn/fabrics/node/{fabric_id}': 'nodes in one fabric; members of this fabric; router IP per node for a fabric; interfaces each host uses; how many nodes in this mesh',
  'POST /cluster/sdn/fabrics/node/{fabric_id}': 'add node to fabric; join host to OpenFabric or OSPF mesh; set node router IP; pick fabric interfaces for host; add this server to the mesh',
  'DELETE /cluster/sdn/fabrics/node/{fabric_id}/{node_id}': 'remove node from fabric; take host out of routed mesh; leave fabric; drop fabric member; node leaves the mesh before decommission',
  'GET /cluster/sdn/fabrics/node/{fabric_id}/{node_id}':
    'one node fabric config; router IP a host uses in a fabric; fabric interfaces of one node; IPv6 of fabric member; which IP does this node have in the fabric',
  'PUT /cluster/sdn/fabrics/node/{fabric_id}/{node_id}':
    'edit fabric node; change node router IP in fabric; change interfaces a host uses in mesh; update fabric member; node got a new NIC for the mesh',
  'GET /cluster/sdn/fabrics/all': 'all fabrics with their nodes; full fabric overview in one call; every fabric and every member; whole underlay topology; how many fabrics and members',
  'DELETE /cluster/sdn/lock': 'release SDN lock; unlock SDN config; force remove stale SDN lock; hand back lock token; SDN stuck locked',
  'POST /cluster/sdn/lock': 'take SDN lock; lock SDN config before editing; get lock token for SDN changes; stop others editing SDN; reserve SDN config for an automation run',
  'POST /cluster/sdn/rollback': 'discard pending SDN changes; revert SDN edits; undo unapplied SDN config; throw away SDN changes; cancel SDN edits before apply',
  'GET /cluster/sdn/dry-run': 'preview SDN apply; what would SDN apply change; diff of pending SDN config; FRR and interfaces diff per node; what happens if I press Apply',
  'GET /nodes/{node}/qemu/{vmid}/firewall': '',
  'GET /nodes/{node}/qemu/{vmid}/firewall/rules':
    'VM firewall rules; VM rule table; what ports are open on this VM; which traffic is allowed to the KVM guest; security groups applied to VM; VM > Firewall panel',
  'POST /nodes/{node}/qemu/{vmid}/firewall/rules':
    'add VM firewall rule; open port on VM; allow ip to KVM guest; block address on VM; apply security group to VM; allow ping or SSH to virtual machine',
  'DELETE /nodes/{node}/qemu/{vmid}/firewall/rules/{pos}': 'delete VM firewall rule; remove rule from VM by position; close port on KVM guest; drop VM rule; VM > Firewall Remove button',
  'GET /nodes/{node}/qemu/{vmid}/firewall/rules/{pos}': 'one VM firewall rule; VM rule number N; inspect single KVM guest rule; action, port, source of VM rule; is this VM rule enabled',
  'PUT /nodes/{node}/qemu/{vmid}/firewall/rules/{pos}': 'edit VM firewall rule; move or reorder VM rule; disable rule on KVM guest; change port or source on VM rule; turn off one VM rule',
  'GET /nodes/{node}/qemu/{vmid}/firewall/aliases': 'VM firewall aliases; VM-local ip aliases; named addresses for one KVM guest; VM alias to CIDR mapping; VM > Firewall > Alias',
  'POST /nodes/{node}/qemu/{vmid}/firewall/aliases': 'create VM alias; name an IP for VM rules; new KVM guest-level alias; add VM named address; VM > Firewall > Alias Add',
  'DELETE /nodes/{node}/qemu/{vmid}/firewall/aliases/{name}': 'delete VM alias; remove VM-local ip alias; drop named address on KVM guest; forget VM alias',
  'GET /nodes/{node}/qemu/{vmid}/firewall/aliases/{name}': 'one VM alias; what IP does this VM alias point to; resolve KVM guest alias; VM alias comment',
  'PUT /nodes/{node}/qemu/{vmid}/firewall/aliases/{name}': 'edit VM alias; change IP behind VM alias; rename KVM guest alias; repoint VM named address',
  'GET /nodes/{node}/qemu/{vmid}/firewall/ipset':
    'VM ipsets; VM ip sets; ipfilter-net0 sets; allowed source IPs of KVM guest; anti-spoofing sets; which ipsets does this VM have; VM > Firewall > IPSet',
  'POST /nodes/{node}/qemu/{vmid}/firewall/ipset': 'create VM ipset; new VM ip set; add ipfilter set against IP spoofing on KVM guest; rename VM ipset; limit which IPs the VM may send from',
  'DELETE /nodes/{node}/qemu/{vmid}/firewall/ipset/{name}': 'delete VM ipset; remove VM ip set; drop ipfilter set on KVM guest; force delete VM ipset with entries',
  'GET /nodes/{node}/qemu/{vmid}/firewall/ipset/{name}': 'members of a VM ipset; addresses in VM ip set; which IPs may KVM guest use; VM ipset entries; how many IPs may this VM use',
  'POST /nodes/{node}/qemu/{vmid}/firewall/ipset/{name}': 'add IP to VM ipset; allow address in VM ipfilter; append CIDR to KVM guest ip set; permit extra IP on VM; VM needs a second IP',
  'DELETE /nodes/{node}/qemu/{vmid}/firewall/ipset/{name}/{cidr}': 'remove IP from VM ipset; take CIDR out of VM ip set; delete KVM guest ipset entry; revoke address on VM',
  'GET /nodes/{node}/qemu/{vmid}/firewall/ipset/{name}/{cidr}': 'one entry of VM ipset; single CIDR in VM ip set; is this IP in the KVM guest set; comment and nomatch of entry',
  'PUT /nodes/{node}/qemu/{vmid}/firewall/ipset/{name}/{cidr}': 'edit VM ipset entry; change comment on VM ip set address; set nomatch on KVM guest CIDR; exclude one address from the VM set',
  'GET /nodes/{node}/qemu/{vmid}/firewall/options':
    'VM firewall settings; is firewall enabled on this VM; KVM guest input and output policy; MAC filter, IP filter, DHCP, NDP, router advertisement; in and out log levels; VM > Firewall > Options',
  'PUT /nodes/{node}/qemu/{vmid}/firewall/options':
    'enable firewall on VM; turn off VM firewall; set KVM guest default policy drop; toggle MAC filter or IP filter; allow DHCP or router advertisement on VM; VM > Firewall > Options Edit',
  'GET /nodes/{node}/qemu/{vmid}/firewall/log':
    'VM firewall log; dropped packets for VM; blocked connections to KVM guest; tail VM firewall log since time; what did the firewall drop for this VM; VM > Firewall > Log',
  'GET /nodes/{node}/qemu/{vmid}/firewall/refs': 'aliases and ipsets usable in VM rules; what can be source or destination on VM rules; KVM guest plus datacenter references; VM rule picker names',
  'GET /nodes/{node}/lxc/{vmid}/firewall': '',
  'GET /nodes/{node}/lxc/{vmid}/firewall/rules':
    'container firewall rules; CT rule table; what ports are open on this container; which traffic is allowed to the LXC guest; security groups applied to CT; CT > Firewall panel',
  'POST /nodes/{node}/lxc/{vmid}/firewall/rules':
    'add container firewall rule; open port on CT; allow ip to LXC guest; block address on container; apply security group to CT; allow ping or SSH to container',
  'DELETE /nodes/{node}/lxc/{vmid}/firewall/rules/{pos}': 'delete container firewall rule; remove rule from CT by position; close port on LXC guest; drop container rule; CT > Firewall Remove button',
  'GET /nodes/{node}/lxc/{vmid}/firewall/rules/{pos}': 'one container firewall rule; CT rule number N; inspect single LXC guest rule; action, port, source of CT rule; is this CT rule enabled',
  'PUT /nodes/{node}/lxc/{vmid}/firewall/rules/{pos}':
    'edit container firewall rule; move or reorder CT rule; disable rule on LXC guest; change port or source on container rule; turn off one CT rule',
  'GET /nodes/{node}/lxc/{vmid}/firewall/aliases': 'container firewall aliases; CT-local ip aliases; named addresses for one LXC guest; CT alias to CIDR mapping; CT > Firewall > Alias',
  'POST /nodes/{node}/lxc/{vmid}/firewall/aliases': 'create container alias; name an IP for CT rules; new LXC guest-level alias; add CT named address; CT > Firewall > Alias Add',
  'DELETE /nodes/{node}/lxc/{vmid}/firewall/aliases/{name}': 'delete container alias; remove CT-local ip alias; drop named address on LXC guest; forget CT alias',
  'GET /nodes/{node}/lxc/{vmid}/firewall/aliases/{name}': 'one container alias; what IP does this CT alias point to; resolve LXC guest alias; CT alias comment',
  'PUT /nodes/{node}/lxc/{vmid}/firewall/aliases/{name}': 'edit container alias; change IP behind CT alias; rename LXC guest alias; repoint CT named address',
  'GET /nodes/{node}/lxc/{vmid}/firewall/ipset':
    'container ipsets; CT ip sets; ipfilter-net0 sets; allowed source IPs of LXC guest; anti-spoofing sets; which ipsets does this CT have; CT > Firewall > IPSet',
  'POST /nodes/{node}/lxc/{vmid}/firewall/ipset':
    'create container ipset; new CT ip set; add ipfilter set against IP spoofing on LXC guest; rename CT ipset; limit which IPs the container may send from',
  'DELETE /nodes/{node}/lxc/{vmid}/firewall/ipset/{name}': 'delete container ipset; remove CT ip set; drop ipfilter set on LXC guest; force delete CT ipset with entries',
  'GET /nodes/{node}/lxc/{vmid}/firewall/ipset/{name}': 'members of a container ipset; addresses in CT ip set; which IPs may LXC guest use; CT ipset entries; how many IPs may this container use',
  'POST /nodes/{node}/lxc/{vmid}/firewall/ipset/{name}': 'add IP to container ipset; allow address in CT ipfilter; append CIDR to LXC guest ip set; permit extra IP on CT; container needs a second IP',
  'DELETE /nodes/{node}/lxc/{vmid}/firewall/ipset/{name}/{cidr}': 'remove IP from container ipset; take CIDR out of CT ip set; delete LXC guest ipset entry; revoke address on CT',
  'GET /nodes/{node}/lxc/{vmid}/firewall/ipset/{name}/{cidr}': 'one entry of container ipset; single CIDR in CT ip set; is this IP in the LXC guest set; comment and nomatch of entry',
  'PUT /nodes/{node}/lxc/{vmid}/firewall/ipset/{name}/{cidr}': 'edit container ipset entry; change comment on CT ip set address; set nomatch on LXC guest CIDR; exclude one address from the CT set',
  'GET /nodes/{node}/lxc/{vmid}/firewall/options':
    'container firewall settings; is firewall enabled on this CT; LXC guest input and output policy; MAC filter, IP filter, DHCP, NDP, router advertisement; in and out log levels; CT > Firewall > Options',
  'PUT /nodes/{node}/lxc/{vmid}/firewall/options':
    'enable firewall on container; turn off CT firewall; set LXC guest default policy drop; toggle MAC filter or IP filter; allow DHCP or router advertisement on CT; CT > Firewall > Options Edit',
  'GET /nodes/{node}/lxc/{vmid}/firewall/log':
    'container firewall log; dropped packets for CT; blocked connections to LXC guest; tail CT firewall log since time; what did the firewall drop for this container; CT > Firewall > Log',
  'GET /nodes/{node}/lxc/{vmid}/firewall/refs':
    'aliases and ipsets usable in container rules; what can be source or destination on CT rules; LXC guest plus datacenter references; CT rule picker names',
  'DELETE /nodes/{node}/network':
    'revert pending network changes; discard unapplied interface edits; undo staged /etc/network/interfaces.new; cancel network changes on host; System > Network Revert button',
  'GET /nodes/{node}/network':
    'host network interfaces; all NICs, bridges, bonds, VLANs on a node; which vmbr exist; what IP does the server have; is interface active; ip addr of host; System > Network panel; how many network cards',
  'POST /nodes/{node}/network':
    'create bridge on node; add vmbr; add bond or LACP; add VLAN interface; new OVS bridge; configure NIC on host; Create: Linux Bridge, Linux Bond, Linux VLAN; make a new bridge for VMs; new Linux bridge with a physical NIC as its port',
  'PUT /nodes/{node}/network': 'apply network config; ifreload; activate pending interface changes; Apply Configuration button; reload host networking without reboot; make new bridge take effect',
  'DELETE /nodes/{node}/network/{iface}': 'delete host network interface; remove bridge or bond from node; drop VLAN interface; remove vmbr; System > Network Remove button',
  'GET /nodes/{node}/network/{iface}':
    'one host interface config; IP and netmask of a NIC; gateway of vmbr; bridge ports and bond mode; MTU of one interface; which physical NIC is behind vmbr0; how is bond0 or vmbr0 set up',
  'PUT /nodes/{node}/network/{iface}': 'edit host interface; change node IP address or gateway; set MTU; change bridge ports; switch bond mode; make bridge vlan aware; change management IP of server',
  'GET /nodes/{node}/firewall': '',
  'GET /nodes/{node}/firewall/rules':
    'hypervisor firewall rules; node firewall rule table; what is allowed to the hypervisor itself; open ports on the PVE host; node-level rules; host.fw rules; Node > Firewall panel; host-level firewall rules of one node',
  'POST /nodes/{node}/firewall/rules': 'add host firewall rule; open port on the node; allow SSH or web GUI to hypervisor; block ip on host; node-level allow or deny; open 8006 on this server',
  'DELETE /nodes/{node}/firewall/rules/{pos}': 'delete host firewall rule; remove node rule by position; close port on hypervisor; drop rule from node; Node > Firewall Remove button',
  'GET /nodes/{node}/firewall/rules/{pos}': 'one host firewall rule; node rule number N; inspect single hypervisor rule; action and ports of host rule; is this host rule enabled',
  'PUT /nodes/{node}/firewall/rules/{pos}': 'edit host firewall rule; move or reorder node rule; disable rule on hypervisor; change port on host rule; turn off one node rule',
  'GET /nodes/{node}/firewall/options':
    'host firewall settings; is firewall on for this node; nftables or iptables backend; conntrack max and timeouts; SYN flood protection; smurf and tcp flags filter; log levels; Node > Firewall > Options',
  'PUT /nodes/{node}/firewall/options':
    'turn on firewall for this host; turn off node firewall; switch node to nftables; raise conntrack max; turn on SYN flood protection; set tcp flags filter; change host firewall log level',
  'GET /nodes/{node}/firewall/log':
    'host firewall log; whole pve-firewall.log of node, all guests included; dropped packets on hypervisor; what did the firewall reject on this server; Node > Firewall > Log',
  'GET /nodes/{node}/sdn': '',
  'GET /nodes/{node}/sdn/fabrics/{fabric}': '',
  'GET /nodes/{node}/sdn/fabrics/{fabric}/routes':
    'fabric routes on node; routing table learned via OpenFabric or OSPF; next hops for fabric prefixes; how does this host reach other nodes; vtysh show route; which routes a fabric installed on a node',
  'GET /nodes/{node}/sdn/fabrics/{fabric}/neighbors':
    'fabric neighbors; adjacencies up on node; OSPF or OpenFabric peers; is the neighbor up and for how long; which peers does this host see; vtysh show neighbor',
  'GET /nodes/{node}/sdn/fabrics/{fabric}/interfaces':
    'fabric interfaces on node; which links take part in the mesh; link state per fabric port; is fabric link down; which NICs does the fabric use on this node',
  'GET /nodes/{node}/sdn/zones': 'SDN zone status on node; which zones are available on this host; zones pending or in error; did SDN apply work here; zone icons under node in tree',
  'GET /nodes/{node}/sdn/zones/{zone}': '',
  'GET /nodes/{node}/sdn/zones/{zone}/content': 'vnets of a zone on node; vnet status per host; which vnets failed in this zone; vnet error message; why is vnet in error',
  'GET /nodes/{node}/sdn/zones/{zone}/bridges':
    'zone bridges on node; vnet bridges and attached ports; which guest taps are plugged into a vnet; localnetwork vmbr ports; which VM NICs sit on this bridge right now; vlan filtering',
  'GET /nodes/{node}/sdn/zones/{zone}/ip-vrf': 'EVPN IP VRF; zone routing table on node; L3 routes and next hops for EVPN zone; type-5 routes; vtysh show ip route vrf',
  'GET /nodes/{node}/sdn/vnets/{vnet}': '',
  'GET /nodes/{node}/sdn/vnets/{vnet}/mac-vrf': 'EVPN MAC VRF; learned MAC addresses in vnet; MAC to IP and VTEP next hop; bridge forwarding table for vnet; where is this MAC; vtysh show evpn mac',
};
