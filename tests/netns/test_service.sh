#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Installing edgeq and running it as a service (docs/operations.md):
#  1. `make install DESTDIR=... PREFIX=/usr` puts the binaries, the
#     systemd unit, completion, dissector and docs where they belong, and
#     the installed edgeq runs; `make uninstall` takes them away again;
#  2. the unit, installed under a prefix of its own (so that the programs
#     it names exist), passes `systemd-analyze verify` without a word;
#  3. run as a service (its stderr systemd's journal stream, which
#     $JOURNAL_STREAM names), `edgeq attach` leaves the agent's log on that
#     stream instead of /run/edgeq, and says so.  No systemd runs here: the
#     stream is a file whose device and inode $JOURNAL_STREAM gives, as
#     systemd does for a service's stderr.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

T=$(mktemp -d /tmp/edgeq-install.XXXXXX)
trap 'rm -rf "$T"' EXIT

# The binaries as built (-o: never rebuilt here, whatever changed since).
OLD=(-o build/edgeq -o build/edgeqd)
make -s "${OLD[@]}" install DESTDIR="$T/dest" PREFIX=/usr >"$T/install.log" 2>&1
rc=$?
as_comment <"$T/install.log"
check "make install DESTDIR=... PREFIX=/usr (exit $rc)" [ "$rc" = 0 ]
missing=
for f in usr/sbin/edgeq usr/sbin/edgeqd usr/lib/systemd/system/edgeq@.service \
	usr/share/bash-completion/completions/edgeq usr/share/edgeq/wireshark/edgeq.lua \
	usr/share/doc/edgeq/README.md usr/share/doc/edgeq/docs/operations.md; do
	[ -f "$T/dest/$f" ] || missing+=" $f"
done
check "binaries, unit, completion, dissector and docs installed (missing:${missing:- none})" \
	[ -z "$missing" ]
check "the unit's config directory is /etc/edgeq" test -d "$T/dest/etc/edgeq"
"$T/dest/usr/sbin/edgeq" help >/dev/null
check "the installed edgeq runs (help: $?)" [ $? = 0 ]
unit=$(cat "$T/dest/usr/lib/systemd/system/edgeq@.service" 2>/dev/null)
check "the unit runs /usr/sbin/edgeq with /etc/edgeq/IFACE.conf, placeholders filled" \
	bash -c "grep -q '^ExecStart=/usr/sbin/edgeq attach %I --config /etc/edgeq/%I.conf$' <<<\"\$1\" &&
		 ! grep -q @ <<<\"\$(grep -v '^#' <<<\"\$1\" | sed 's/edgeq@//g')\"" _ "$unit"
make -s uninstall DESTDIR="$T/dest" PREFIX=/usr >/dev/null 2>&1
left=$(find "$T/dest" -type f | sed "s|^$T/dest||")
check "make uninstall removes every file (left: ${left:-none})" [ -z "$left" ]

if command -v systemd-analyze >/dev/null; then
	make -s "${OLD[@]}" install PREFIX="$T/pfx" SYSCONFDIR="$T/pfx/etc" >/dev/null 2>&1
	out=$(systemd-analyze verify "$T/pfx/lib/systemd/system/edgeq@eth0.service" 2>&1); rc=$?
	echo "$out" | as_comment
	check "systemd-analyze verify edgeq@eth0.service: exit $rc, nothing said" \
		[ "$rc" = 0 -a -z "$out" ]
	# And it can fail: a unit naming a program that is not there.
	sed 's|^ExecStart=[^ ]*|ExecStart=/nonexistent/edgeq|' "$T/pfx/lib/systemd/system/edgeq@.service" \
		>"$T/edgeq@.service"
	systemd-analyze verify "$T/edgeq@eth0.service" >/dev/null 2>&1
	check "... and refuses a unit whose program is missing" [ $? -ne 0 ]
else
	not_ok "systemd-analyze is installed (make deps: systemd)"
fi

tb_start
printf 'scheme eqds\n' >>"$TB_TMP/a.conf"
err=$TB_TMP/journal
: >"$err"
JOURNAL_STREAM=$(stat -c '%d:%i' "$err") eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf" \
	>"$TB_TMP/attach.out" 2>>"$err"
rc=$?
as_comment <"$err"
as_comment <"$TB_TMP/attach.out"
check "attach as a service (stderr the journal's stream): exit $rc, says the agent logs to the journal" \
	bash -c "[ $rc = 0 ] && grep -q 'agent edgeqd running, log the journal' '$TB_TMP/attach.out'"
pin=$(basename "$TB_PIN_A")
for i in $(seq 50); do grep -q "edgeqd: $TB_IFA:" "$err" && break; sleep 0.1; done
check "the agent's log lines go to the journal's stream" grep -q "edgeqd: $TB_IFA:" "$err"
check "... and no log file under /run/edgeq" test ! -e "/run/edgeq/$pin.log"
check "detach" eq_a detach "$TB_IFA"
tap_done
