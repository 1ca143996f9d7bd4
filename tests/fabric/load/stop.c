// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stop on SIGINT/SIGTERM (see stop.h).
 */
#include <string.h>
#include "load/stop.h"

volatile sig_atomic_t eql_stop_requested;

static void on_stop(int sig)
{
	eql_stop_requested = 1;
}

void eql_stop_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}
