/**
 * The guest configuration options the simulator understands, described in PVE's schema dialect.
 * They are the parameters of config updates and guest creation, and their declared types decide
 * how a value is stored (Perl typing: integers and booleans as numbers, everything else as a
 * string). Indexed options are declared one by one (`net0`, `net1`…) so validation is exact.
 */
import type { SchemaNode } from '../../schema/model.js';
import { bool, int, num, opt, str } from './endpoints/schema.js';
import type { GuestType } from './types.js';

type Options = Record<string, SchemaNode>;

function indexed(base: string, count: number, node: (i: number) => SchemaNode): Options {
  const out: Options = {};
  for (let i = 0; i < count; i++) out[`${base}${i}`] = node(i);
  return out;
}

const diskFile = { type: 'string', format: 'pve-volume-id-or-qm-path', default_key: 1, description: 'Volume ID, or STORAGE:SIZE_GiB to allocate a new disk.' };

/** Disk property-string keys: the common ones for every bus, plus bus-specific extras. */
function qemuDiskFormat(bus: 'scsi' | 'virtio' | 'sata' | 'ide'): Record<string, SchemaNode> {
  const f: Record<string, SchemaNode> = {
    file: diskFile,
    volume: { alias: 'file' },
    size: opt(str('Disk size (informational; use resize to change it).', { format: 'disk-size' })),
    media: opt(str('Drive media kind.', { enum: ['cdrom', 'disk'], default: 'disk' })),
    cache: opt(str('Host cache mode.', { enum: ['none', 'writethrough', 'writeback', 'unsafe', 'directsync'] })),
    discard: opt(str('Pass discard/trim requests to the storage.', { enum: ['ignore', 'on'] })),
    backup: opt(bool('Include the drive in backups.')),
    replicate: opt(bool('Include the drive in replication jobs.', { default: 1 })),
    format: opt(str('On-disk image format.', { enum: ['raw', 'qcow', 'qed', 'qcow2', 'vmdk', 'cloop'] })),
    aio: opt(str('Asynchronous I/O backend.', { enum: ['native', 'threads', 'io_uring'] })),
    'import-from': opt(str('Create the disk as a copy of this image.', { format: 'pve-volume-id-or-absolute-path' })),
    serial: opt(str('Serial number shown to the guest.', { format: 'urlencoded', maxLength: 60 })),
    snapshot: opt(bool('Discard writes when the VM stops (temporary snapshot mode).')),
    detect_zeroes: opt(bool('Turn zero writes into discards.')),
  };
  if (bus !== 'virtio') f.ssd = opt(bool('Present the drive as an SSD.'));
  if (bus === 'scsi' || bus === 'virtio') {
    f.iothread = opt(bool('Give the drive its own I/O thread.'));
    f.ro = opt(bool('Attach the drive read-only.'));
  }
  return f;
}

const qemuNetFormat: Record<string, SchemaNode> = {
  model: str('NIC model.', {
    default_key: 1,
    enum: ['e1000', 'e1000-82540em', 'e1000-82544gc', 'e1000-82545em', 'e1000e', 'i82551', 'i82557b', 'i82559er', 'ne2k_isa', 'ne2k_pci', 'pcnet', 'rtl8139', 'virtio', 'vmxnet3'],
  }),
  virtio: { alias: 'macaddr', keyAlias: 'model' },
  e1000: { alias: 'macaddr', keyAlias: 'model' },
  vmxnet3: { alias: 'macaddr', keyAlias: 'model' },
  rtl8139: { alias: 'macaddr', keyAlias: 'model' },
  macaddr: opt(str('MAC address (a random one when left out).', { format: 'mac-addr' })),
  bridge: opt(str('Host bridge to attach to.', { format: 'pve-bridge-id' })),
  firewall: opt(bool('Filter this NIC with the PVE firewall.')),
  link_down: opt(bool('Start with the link disconnected.')),
  tag: opt(int('VLAN tag for the port.', { minimum: 1, maximum: 4094 })),
  mtu: opt(int('MTU (1 = take it from the bridge).', { minimum: 1, maximum: 65520 })),
  queues: opt(int('Packet queues (multiqueue).', { minimum: 0, maximum: 64 })),
  rate: opt(num('Rate limit in MB/s.', { minimum: 0 })),
};

function qemuOptions(): Options {
  return {
    name: opt(str('VM name (a DNS-style label).', { format: 'dns-name' })),
    description: opt(str('Free-form notes, shown in the web UI.', { maxLength: 8192 })),
    tags: opt(str('Tags, separated by semicolons.', { format: 'pve-tag-list' })),
    memory: opt(str('RAM in MiB.', { format: { current: int('RAM in MiB.', { minimum: 16, default: 512, default_key: 1 }) } })),
    balloon: opt(int('Minimum RAM in MiB the balloon driver may shrink to (0 disables ballooning).', { minimum: 0 })),
    cores: opt(int('Cores per socket.', { minimum: 1, default: 1 })),
    sockets: opt(int('CPU sockets.', { minimum: 1, default: 1 })),
    vcpus: opt(int('Hot-plugged vCPUs (at most cores × sockets).', { minimum: 1, default: 0 })),
    cpu: opt(str('Emulated CPU type and flags.', { format: 'pve-vm-cpu-conf' })),
    cpulimit: opt(num('CPU time limit in cores (0 = none).', { minimum: 0, maximum: 128, default: 0 })),
    cpuunits: opt(int('Relative CPU weight.', { minimum: 1, maximum: 262144 })),
    numa: opt(bool('Expose a NUMA topology.', { default: 0 })),
    ostype: opt(
      str('Guest OS family, used for OS-specific tweaks.', { enum: ['other', 'wxp', 'w2k', 'w2k3', 'w2k8', 'wvista', 'win7', 'win8', 'win10', 'win11', 'l24', 'l26', 'solaris'], default: 'other' }),
    ),
    bios: opt(str('Firmware.', { enum: ['seabios', 'ovmf'], default: 'seabios' })),
    machine: opt(str('QEMU machine type.', { format: { type: opt(str('Machine type name, optionally versioned.', { default_key: 1, maxLength: 40 })) } })),
    scsihw: opt(str('SCSI controller model.', { enum: ['lsi', 'lsi53c810', 'virtio-scsi-pci', 'virtio-scsi-single', 'megasas', 'pvscsi'], default: 'lsi' })),
    boot: opt(str('Boot order, e.g. order=scsi0;net0.', { format: 'pve-qm-boot' })),
    agent: opt(
      str('QEMU guest agent settings.', {
        format: {
          enabled: bool('Talk to a guest agent in the VM.', { default: 0, default_key: 1 }),
          'freeze-fs': opt(bool('Freeze guest filesystems for consistent snapshots and backups.', { default: 1 })),
          'freeze-fs-on-backup': { alias: 'freeze-fs' },
          'guest-fsfreeze': { alias: 'freeze-fs' },
          fstrim_cloned_disks: opt(bool('Trim disks after a clone or move.', { default: 0 })),
          type: opt(str('Agent transport.', { enum: ['virtio', 'isa'], default: 'virtio' })),
        },
      }),
    ),
    onboot: opt(bool('Start the VM when the node boots.', { default: 0 })),
    startup: opt(str('Boot order and delays for onboot, e.g. order=1,up=30.', { format: 'pve-startup-order' })),
    protection: opt(bool('Refuse removal of the VM and its disks.', { default: 0 })),
    template: opt(bool('Mark the VM as a template.', { default: 0 })),
    acpi: opt(bool('Enable ACPI.', { default: 1 })),
    kvm: opt(bool('Use hardware virtualization.', { default: 1 })),
    tablet: opt(bool('Add a USB tablet for absolute pointer positioning.', { default: 1 })),
    localtime: opt(bool('Run the RTC in local time.')),
    hotplug: opt(str('Device classes that may be hot-plugged.', { format: 'pve-hotplug-features', default: 'network,disk,usb' })),
    smbios1: opt(str('SMBIOS type 1 fields (uuid, serial…).', { format: 'pve-qm-smbios1', maxLength: 512 })),
    vmgenid: opt(str('VM generation ID (1 = generate).', { pattern: '(?:[a-fA-F0-9]{8}(?:-[a-fA-F0-9]{4}){3}-[a-fA-F0-9]{12}|[01])' })),
    efidisk0: opt(
      str('Disk holding the EFI variables.', {
        format: {
          file: diskFile,
          volume: { alias: 'file' },
          size: opt(str('Disk size.', { format: 'disk-size' })),
          format: opt(str('Image format.', { enum: ['raw', 'qcow', 'qed', 'qcow2', 'vmdk', 'cloop'] })),
          efitype: opt(str('Size class of the EFI vars disk.', { enum: ['2m', '4m'], default: '2m' })),
          'pre-enrolled-keys': opt(bool('Pre-enroll distribution and Microsoft secure-boot keys.', { default: 0 })),
          'import-from': opt(str('Create the disk as a copy of this image.', { format: 'pve-volume-id-or-absolute-path' })),
        },
      }),
    ),
    tpmstate0: opt(
      str('Disk holding the TPM state.', {
        format: {
          file: diskFile,
          volume: { alias: 'file' },
          size: opt(str('Disk size.', { format: 'disk-size' })),
          version: opt(str('TPM interface version.', { enum: ['v1.2', 'v2.0'], default: 'v1.2' })),
        },
      }),
    ),
    ciuser: opt(str('cloud-init: user to create (instead of the image default user).')),
    cipassword: opt(str('cloud-init: password for the user; stored as a crypt hash.')),
    sshkeys: opt(str('cloud-init: public SSH keys, one per line, URL-encoded.', { format: 'urlencoded' })),
    citype: opt(str('cloud-init: configuration format (default by OS type).', { enum: ['configdrive2', 'nocloud', 'opennebula'] })),
    ciupgrade: opt(bool('cloud-init: upgrade packages on first boot.', { default: 1 })),
    cicustom: opt(str('cloud-init: custom snippet files replacing the generated ones.', { format: 'pve-qm-cicustom' })),
    nameserver: opt(str("cloud-init: DNS servers (default: the node's).", { format: 'address-list' })),
    searchdomain: opt(str("cloud-init: DNS search domains (default: the node's).")),
    ...indexed('ipconfig', 32, () => opt(str('cloud-init: addresses and gateways of the matching NIC (ip=CIDR|dhcp,gw=…,ip6=…,gw6=…).', { format: 'pve-qm-ipconfig' }))),
    ...indexed('net', 32, () => opt(str('Network device.', { format: qemuNetFormat }))),
    ...indexed('scsi', 31, () => opt(str('SCSI disk or CD-ROM.', { format: qemuDiskFormat('scsi') }))),
    ...indexed('virtio', 16, () => opt(str('VirtIO block disk.', { format: qemuDiskFormat('virtio') }))),
    ...indexed('sata', 6, () => opt(str('SATA disk or CD-ROM.', { format: qemuDiskFormat('sata') }))),
    ...indexed('ide', 4, () => opt(str('IDE disk or CD-ROM.', { format: qemuDiskFormat('ide') }))),
    ...indexed('unused', 32, () => opt(str('Detached disk still owned by the VM.', { format: { file: { ...diskFile, format: 'pve-volume-id' }, volume: { alias: 'file' } } }))),
  };
}

const lxcMount = (withPath: boolean): Record<string, SchemaNode> => ({
  volume: str('Volume ID, or STORAGE:SIZE_GiB to allocate a new one.', { format: 'pve-lxc-mp-string', default_key: 1 }),
  ...(withPath ? { mp: str('Path inside the container.', { format: 'pve-lxc-mp-string' }), backup: opt(bool('Include in backups.')) } : {}),
  size: opt(str('Volume size (informational; use resize to change it).', { format: 'disk-size' })),
  acl: opt(bool('Enable POSIX ACLs.')),
  quota: opt(bool('Enable user quotas.')),
  ro: opt(bool('Mount read-only.')),
  replicate: opt(bool('Include in replication jobs.', { default: 1 })),
  shared: opt(bool('The volume is reachable from every node.', { default: 0 })),
});

const lxcNetFormat: Record<string, SchemaNode> = {
  name: str('Interface name inside the container (eth0).', { pattern: '[-_.\\w\\d]+' }),
  bridge: opt(str('Host bridge to attach to.', { pattern: '[-_.\\w\\d]+' })),
  hwaddr: opt(str('MAC address.', { format: 'mac-addr' })),
  ip: opt(str('IPv4 address in CIDR form, dhcp or manual.', { format: 'pve-ipv4-config' })),
  gw: opt(str('IPv4 gateway.', { format: 'ipv4' })),
  ip6: opt(str('IPv6 address in CIDR form, auto, dhcp or manual.', { format: 'pve-ipv6-config' })),
  gw6: opt(str('IPv6 gateway.', { format: 'ipv6' })),
  firewall: opt(bool('Filter this interface with the PVE firewall.')),
  link_down: opt(bool('Start with the link disconnected.')),
  tag: opt(int('VLAN tag.', { minimum: 1, maximum: 4094 })),
  mtu: opt(int('MTU.', { minimum: 64, maximum: 65535 })),
  rate: opt(num('Rate limit in MB/s.')),
  type: opt(str('Interface type.', { enum: ['veth'] })),
};

function lxcOptions(): Options {
  return {
    hostname: opt(str('Container hostname.', { format: 'dns-name', maxLength: 255 })),
    description: opt(str('Free-form notes, shown in the web UI.', { maxLength: 8192 })),
    tags: opt(str('Tags, separated by semicolons.', { format: 'pve-tag-list' })),
    memory: opt(int('RAM limit in MiB.', { minimum: 16, default: 512 })),
    swap: opt(int('Swap limit in MiB.', { minimum: 0, default: 512 })),
    cores: opt(int('CPU cores visible to the container.', { minimum: 1, maximum: 8192 })),
    cpulimit: opt(num('CPU time limit in cores (0 = none).', { minimum: 0, maximum: 8192, default: 0 })),
    cpuunits: opt(int('Relative CPU weight.', { minimum: 0, maximum: 500000 })),
    arch: opt(str('OS architecture.', { enum: ['amd64', 'i386', 'arm64', 'armhf', 'riscv32', 'riscv64'], default: 'amd64' })),
    ostype: opt(
      str('Distribution inside the container, used for setup scripts.', {
        enum: ['debian', 'devuan', 'ubuntu', 'centos', 'fedora', 'opensuse', 'archlinux', 'alpine', 'gentoo', 'nixos', 'unmanaged'],
      }),
    ),
    onboot: opt(bool('Start the container when the node boots.', { default: 0 })),
    startup: opt(str('Boot order and delays for onboot.', { format: 'pve-startup-order' })),
    protection: opt(bool('Refuse removal of the container and its volumes.', { default: 0 })),
    template: opt(bool('Mark the container as a template.', { default: 0 })),
    unprivileged: opt(bool('Run with user-namespace isolation.', { default: 0 })),
    console: opt(bool('Attach a console device.', { default: 1 })),
    tty: opt(int('Number of ttys.', { minimum: 0, maximum: 6, default: 2 })),
    features: opt(
      str('Extra container capabilities.', {
        format: {
          nesting: opt(bool('Allow nested containers (needed by systemd in newer distributions).', { default: 0 })),
          keyctl: opt(bool('Allow the keyctl() system call.', { default: 0 })),
          fuse: opt(bool('Allow FUSE mounts.', { default: 0 })),
          mknod: opt(bool('Allow mknod() for some device nodes.', { default: 0 })),
          force_rw_sys: opt(bool('Mount /sys read-write in unprivileged containers.', { default: 0 })),
        },
      }),
    ),
    nameserver: opt(str('DNS servers for the container.', { format: 'lxc-ip-with-ll-iface-list' })),
    searchdomain: opt(str('DNS search domains.', { format: 'dns-name-list' })),
    rootfs: opt(str('Root filesystem volume.', { format: lxcMount(false) })),
    ...indexed('mp', 32, () => opt(str('Additional mount point.', { format: lxcMount(true) }))),
    ...indexed('net', 32, () => opt(str('Network interface.', { format: lxcNetFormat }))),
    ...indexed('unused', 32, () => opt(str('Detached volume still owned by the container.', { format: { volume: str('Volume ID.', { format: 'pve-volume-id', default_key: 1 }) } }))),
  };
}

const TABLES: Record<GuestType, Options> = { qemu: qemuOptions(), lxc: lxcOptions() };

export function guestOptions(type: GuestType): Options {
  return TABLES[type];
}

/**
 * The stored JSON type of an option value: integers and booleans become numbers; `number`
 * options and strings stay strings (PVE's Perl quirk). Unknown keys keep their given type.
 */
export function storedValue(type: GuestType, key: string, value: unknown): string | number {
  const schema = TABLES[type][key];
  const t = schema?.type;
  if (t === 'integer' || t === 'boolean') {
    if (value === true) return 1;
    if (value === false) return 0;
    return Number(value);
  }
  return String(value);
}
