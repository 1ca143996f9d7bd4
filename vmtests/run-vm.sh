#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run a command in a VM on a stock distribution kernel, the way virtme(-ng)
# does: the host's root filesystem shared read-only over 9p, this checkout
# shared read-write at the same path, the command run as root, then power
# off.  Prints the command's output and exits with its status.
#
#   vmtests/run-vm.sh [--kernel VMLINUZ] [--timeout SECONDS] [--mem MB] -- COMMAND...
#
# Default kernel: the newest /boot/vmlinuz-* of Debian's linux-image-amd64
# (EDGEQ_VM_KERNEL overrides; any kernel whose modules are installed under
# /lib/modules/<version> works, e.g. a self-built one: docs/vmtests.md).
# virtme-ng (vng) is used when installed; otherwise qemu directly.  KVM when
# /dev/kvm exists and the CPU has VMX/SVM (EDGEQ_VM_ACCEL=kvm|tcg forces it),
# TCG otherwise, as on this project's machines, whose KVM (PVM) cannot run
# a stock kernel.  A guest that does not finish in time is killed with a
# message saying so, and the run fails.
#
# Run as root with /dev/net/tun (qemu path), the guest also gets two
# virtio-net NICs with EDGEQ_VM_NIC_QUEUES (default 2) queue pairs each,
# joined on this host by a bridge of their own with no address (their taps
# and bridge carry the run's PID, and go when it ends): the multi-queue
# NICs of tests/vm/test_virtio_mq.sh.  EDGEQ_VM_NIC_QUEUES=0: none.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=${EDGEQ_VM_KERNEL:-}
timeout_s=${EDGEQ_VM_TIMEOUT:-3300}	# TCG: the VM layer took 25-30 min, and more than 40 on a slow day (2026-11-28)
mem=${EDGEQ_VM_MEM:-2048}
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: run-vm.sh [--kernel VMLINUZ] [--timeout S] [--mem MB] -- COMMAND..." >&2; exit 2; }
if [ -z "$kernel" ]; then
	kernel=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
fi
[ -r "$kernel" ] || { echo "vm: no kernel image (install linux-image-amd64: 'make deps')" >&2; exit 1; }
kver=${kernel##*/vmlinuz-}
command -v qemu-system-x86_64 >/dev/null || { echo "vm: qemu-system-x86 is missing ('make deps')" >&2; exit 1; }

run=$(mktemp -d "$top/build/vm-run.XXXXXX") || exit 1
nic_br= nic_taps=()
nics_down() {
	local t
	for t in "${nic_taps[@]}"; do ip link del "$t" 2>/dev/null; done
	[ -n "$nic_br" ] && ip link del "$nic_br" 2>/dev/null
	nic_taps=() nic_br=
}
trap 'nics_down; rm -rf "$run"' EXIT
trap 'exit 130' INT TERM

# A run killed outright (SIGKILL: no trap runs) leaves its bridge and taps,
# named by its pid: remove those of runs that are gone.
for l in $(ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' |
	   grep -E '^eqvm(br|[01]-)[0-9]+$'); do
	pid=${l##*[!0-9]}
	kill -0 "$pid" 2>/dev/null || ip link del "$l" 2>/dev/null
done

# nics_up QUEUES: two multi-queue taps on a bridge; sets NIC_ARGS (qemu's).
NIC_ARGS=()
nics_up() {
	local q=$1 i t
	nic_br=eqvmbr$$
	ip link add "$nic_br" type bridge 2>/dev/null || { nic_br=; return 1; }
	sysctl -qw "net.ipv6.conf.$nic_br.disable_ipv6=1" 2>/dev/null
	for i in 0 1; do
		t=eqvm$i-$$
		ip tuntap add dev "$t" mode tap multi_queue 2>/dev/null || return 1
		nic_taps+=("$t")
		sysctl -qw "net.ipv6.conf.$t.disable_ipv6=1" 2>/dev/null
		ip link set "$t" master "$nic_br" up || return 1
		# mq needs 2 vectors per queue pair, one for config, one for control.
		NIC_ARGS+=(-netdev "tap,id=nic$i,ifname=$t,script=no,downscript=no,queues=$q,vhost=off"
			   -device "virtio-net-pci,netdev=nic$i,mq=on,vectors=$((2 * q + 2)),mac=52:54:00:e9:00:0$((i + 1))")
	done
	ip link set "$nic_br" up
}
{
	echo "cd '$top' || exit 1"
	echo ". vmtests/guest-setup.sh"
	printf '%q ' "$@"; echo
} >"$run/cmd.sh"
# The guest writes its output and exit status into the share.
cat >"$run/guest.sh" <<EOF2
sh '$run/cmd.sh' >'$run/out' 2>&1
echo \$? >'$run/rc'
sync
EOF2

accel=${EDGEQ_VM_ACCEL:-auto}
if [ "$accel" = auto ]; then
	accel=tcg
	[ -w /dev/kvm ] && grep -qw -e vmx -e svm /proc/cpuinfo && accel=kvm
fi
echo "vm: kernel $kver, accel $accel, ${mem} MB, timeout ${timeout_s} s: $*"

if command -v vng >/dev/null && [ -z "${EDGEQ_VM_NO_VNG:-}" ]; then
	# virtme-ng shares the host root and the cwd the same way.
	(cd "$top" && timeout -k 10 "$timeout_s" vng --run "$kernel" --rw --memory "${mem}M" \
		$([ "$accel" = tcg ] && echo --disable-kvm) --exec "sh $run/guest.sh") >"$run/console" 2>&1
	status=$?
else
	initrd=$top/build/vm/initrd-$kver.gz
	if [ ! -s "$initrd" ] || [ "$initrd" -ot "$top/vmtests/mkinitrd.sh" ]; then
		mkdir -p "$top/build/vm"
		"$top/vmtests/mkinitrd.sh" "$kver" "$top" "$initrd" || exit 1
	fi
	if [ "$accel" = kvm ]; then A=(-enable-kvm -cpu host); else A=(-accel tcg,thread=multi -cpu max); fi
	nq=${EDGEQ_VM_NIC_QUEUES:-2}
	if [ "$nq" != 0 ] && [ "$(id -u)" = 0 ] && [ -c /dev/net/tun ]; then
		if nics_up "$nq"; then
			echo "vm: two virtio-net NICs, $nq queue pairs each, bridged on the host ($nic_br)"
		else
			echo "vm: could not create the taps and bridge for the guest's NICs: none"
			nics_down; NIC_ARGS=()
		fi
	fi
	timeout -k 10 "$timeout_s" qemu-system-x86_64 "${A[@]}" -m "$mem" -smp 2 \
		-nographic -no-reboot -nodefaults -serial stdio \
		-kernel "$kernel" -initrd "$initrd" \
		-fsdev local,id=root,path=/,readonly=on,security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=root,mount_tag=hostroot \
		-fsdev local,id=work,path="$top",security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=work,mount_tag=work \
		"${NIC_ARGS[@]}" \
		-append "console=ttyS0 panic=-1 quiet loglevel=3 vmscript=$run/guest.sh" \
		</dev/null >"$run/console" 2>&1
	status=$?
fi
[ -f "$run/out" ] && cat "$run/out"
if [ -f "$run/rc" ]; then
	exit "$(cat "$run/rc")"
fi
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
	echo "vm: the guest did not finish within ${timeout_s} s and was killed (EDGEQ_VM_TIMEOUT raises it)"
else
	echo "vm: the guest stopped without running the command (qemu exit $status); its console:"
fi
tail -30 "$run/console"
exit 1
