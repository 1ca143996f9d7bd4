#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The demo behind `make demo` (README's first command): an N -> 1 incast
# on the test fabric (docs/fabric.md), a software switch with real queues
# built in network namespaces on this machine, run with plain Linux TCP
# (each congestion control the kernel offers) and, once its agent exists
# (issue 4), with edgeq, side by side in one run.  It prints the table and
# writes the plots to build/demo/.  Everything it creates is removed when
# it ends, however it ends.  DEMO_N (default 8) senders of DEMO_SIZE (1m).
set -u
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] || { echo "demo: run as root (network namespaces, AF_XDP)" >&2; exit 1; }
out=build/demo
mkdir -p "$out"
echo "demo: ${DEMO_N:-8} senders -> 1 receiver on one 1 Gbit/s switch port, ${DEMO_SIZE:-1m} each;" \
	"transports: $(. tests/scenarios/lib.sh >/dev/null 2>&1; sc_transports)"
SC_RESULTS=$out SC_N=${DEMO_N:-8} SC_SIZE=${DEMO_SIZE:-1m} SC_COMMAND="make demo" \
	bash tests/scenarios/incast.sh || { echo "demo: the incast run failed" >&2; exit 1; }
echo
sed -n '/^| N |/,/^$/p' "$out/incast.md"
echo "demo: report $out/incast.md; plots:"
ls "$out"/incast/*.png | sed 's/^/    /'
echo "demo: the tunnel itself (attach, tshark view of the wire, status): make demo-tunnel"
