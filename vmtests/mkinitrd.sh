#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the small initramfs the VM boots with, the way virtme does it:
# busybox plus the modules needed to mount the host's root over 9p
# (virtio-pci, 9pnet_virtio, 9p, in modprobe's dependency order).  /init
# mounts the host root read-only and the checkout read-write, then
# switch_roots into the host's own userspace and runs the script named by
# vmscript= on the kernel command line.
#
# usage: mkinitrd.sh KERNEL_VERSION WORKDIR OUTPUT
set -eu
kver=$1 workdir=$2 out=$3
busybox=$(command -v busybox) || { echo "mkinitrd: busybox-static is missing ('make deps')" >&2; exit 1; }
[ -d "/lib/modules/$kver" ] || { echo "mkinitrd: no /lib/modules/$kver" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/mods" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/newroot"
cp "$busybox" "$tmp/bin/busybox"
: >"$tmp/mods/order"
for m in virtio_pci 9pnet_virtio 9p; do
	modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
	case $ko in
	*.ko) cp "$ko" "$tmp/mods/" ;;
	*.ko.xz) xz -dc "$ko" >"$tmp/mods/$(basename "$ko" .xz)"; ko=${ko%.xz} ;;
	*.ko.zst) zstd -qdc "$ko" >"$tmp/mods/$(basename "$ko" .zst)"; ko=${ko%.zst} ;;
	esac
	basename "$ko" >>"$tmp/mods/order"
done
cat >"$tmp/init" <<INIT
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
script=\$(/bin/busybox sed -n 's/.*vmscript=\([^ ]*\).*/\1/p' /proc/cmdline)
for m in \$(/bin/busybox cat /mods/order); do /bin/busybox insmod /mods/\$m; done
/bin/busybox mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 hostroot /newroot ||
	{ echo "vm-init: cannot mount the host root over 9p"; /bin/busybox poweroff -f; }
for d in proc sys dev; do /bin/busybox mount --move /\$d /newroot/\$d; done
for d in tmp run var/tmp; do /bin/busybox mount -t tmpfs tmpfs /newroot/\$d; done
# After the tmpfs mounts: a checkout under /tmp (as in CI) needs its mount
# point made inside the new tmpfs.
/bin/busybox mkdir -p /newroot$workdir
/bin/busybox mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 work /newroot$workdir ||
	{ echo "vm-init: cannot mount the work share at $workdir"; /bin/busybox poweroff -f; }
exec /bin/busybox switch_root /newroot /bin/sh -c \\
	"export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp; sh \$script; echo o > /proc/sysrq-trigger; sleep 30"
INIT
chmod +x "$tmp/init"
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
