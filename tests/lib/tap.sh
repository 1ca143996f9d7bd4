# SPDX-License-Identifier: GPL-2.0-only
# TAP output for shell tests: source it, call ok/not_ok/skip, end with tap_done.
_tap_n=0
_tap_failed=0
ok()     { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_failed=1; echo "not ok $_tap_n - $*"; }
skip()   { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $*"; }
# check DESCRIPTION COMMAND...: ok when the command succeeds (and returns
# non-zero when it fails, for `check ... || show_more`).
check()  { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; return 1; fi; }
tap_done() { echo "1..$_tap_n"; return $_tap_failed; }
