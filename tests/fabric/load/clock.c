// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sleeping on CLOCK_MONOTONIC (see clock.h).
 */
#include <errno.h>
#include <stdio.h>
#include "load/clock.h"
#include "load/stop.h"

int eql_sleep_until(uint64_t t)
{
	for (;;) {
		uint64_t now = eql_now_ns(), until;
		struct timespec ts;

		if (eql_stop_requested)
			return -1;
		if (now >= t)
			return 0;
		/* In slices, so that a signal that lands just before the call
		 * (and so does not interrupt it) is seen soon anyway. */
		until = t - now > EQL_STOP_POLL_NS ? now + EQL_STOP_POLL_NS : t;
		ts = eql_timespec(until);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR &&
		       !eql_stop_requested)
			;
	}
}

uint64_t eql_start_at(uint64_t t, const char *mode)
{
	uint64_t now = eql_now_ns();

	if (t && t < now)
		fprintf(stderr, "eqload %s: --start-at %llu is %.3f s in the past; starting now\n",
			mode, (unsigned long long)t, (double)(now - t) / 1e9);
	else if (t && eql_sleep_until(t))
		return 0;
	return eql_stop_requested ? 0 : eql_now_ns();
}
