/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SIGINT and SIGTERM ask every mode to stop: the handler only sets a
 * flag, which the loops check at least every EQL_STOP_POLL_NS, then they
 * write the summary of what they measured.  The handlers are installed
 * without SA_RESTART, so a blocking call returns EINTR at once.  SIGPIPE
 * is ignored: a peer that goes away is an error to report, not a death.
 */
#ifndef EDGEQ_LOAD_STOP_H
#define EDGEQ_LOAD_STOP_H

#include <signal.h>

#define EQL_STOP_POLL_NS	100000000ULL	/* 100 ms */
#define EQL_STOP_POLL_MS	100

extern volatile sig_atomic_t eql_stop_requested;

void eql_stop_install(void);

#endif
