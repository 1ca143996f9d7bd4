# SPDX-License-Identifier: GPL-2.0-only
# Sourced inside the VM before the command: what a test host needs that the
# guest kernel keeps in modules, and the mounts the host root does not bring.
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# Terminals (tmux, for edgeq top's test): devtmpfs brings /dev/ptmx, not
# the devpts it opens into.
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts 2>/dev/null
for m in veth virtio_net sch_ingress cls_bpf sch_netem sch_fq sch_tbf ipv6; do
	modprobe -q "$m" 2>/dev/null
done
ip link set lo up
export EDGEQ_IN_VM=1 HOME=/tmp
echo "vm: $(uname -r), $(nproc) CPUs"
