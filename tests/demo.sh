#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The demo behind `make demo` (README's first command): an N -> 1 incast
# on the test fabric (docs/fabric.md), a software switch with real queues
# built in network namespaces on this machine, run with plain Linux TCP
# (cubic) and with edgeq (scheme eqds: the agents on every host, trimming
# mode and RTS mode) side by side in one run.  It prints the table and
# writes the plots to build/demo/.  Everything it creates is removed when
# it ends, however it ends.  DEMO_N (default 8) senders of DEMO_SIZE (1m)
# on DEMO_RATE (200mbit) links; DEMO_TRANSPORTS (default "cubic edgeq
# edgeq-rts": any congestion control the kernel offers, edgeq, edgeq-rts).
set -u
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] || { echo "demo: run as root (network namespaces, AF_XDP)" >&2; exit 1; }
out=build/demo
mkdir -p "$out"
export SC_TRANSPORTS=${DEMO_TRANSPORTS:-cubic edgeq edgeq-rts}
echo "demo: ${DEMO_N:-8} senders -> 1 receiver on one ${DEMO_RATE:-200mbit} switch port," \
	"${DEMO_SIZE:-1m} each; transports: $SC_TRANSPORTS"
SC_RESULTS=$out SC_N=${DEMO_N:-8} SC_SIZE=${DEMO_SIZE:-1m} SC_RATE=${DEMO_RATE:-200mbit} \
	SC_COMMAND="make demo" bash tests/scenarios/incast.sh ||
	{ echo "demo: the incast run failed" >&2; exit 1; }
echo
sed -n '/^| N |/,/^!/p' "$out/incast.md" | grep -v '^!'
echo "demo: edgeq keeps the switch queue short (queue columns) where TCP fills it;" \
	"on this machine its agents share 2 vCPUs with every host and the switch, which" \
	"costs completion time (docs/agent.md, \"Figures\", says how much and why)"
echo "demo: report $out/incast.md; plots:"
ls "$out"/incast/*.png | sed 's/^/    /'
echo "demo: the tunnel itself (attach, tshark view of the wire, status): make demo-tunnel"
