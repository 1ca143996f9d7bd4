/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Time in eqload: CLOCK_MONOTONIC nanoseconds, everywhere.  That clock is
 * one per machine, shared by every network namespace, and the fabric's
 * switch stamps its telemetry with it, so the files of all hosts and of
 * the switch line up without any conversion.
 */
#ifndef EDGEQ_LOAD_CLOCK_H
#define EDGEQ_LOAD_CLOCK_H

#include <stdint.h>
#include <time.h>

#define EQL_NS_PER_SEC	1000000000ULL

static inline uint64_t eql_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * EQL_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static inline struct timespec eql_timespec(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / EQL_NS_PER_SEC),
				  .tv_nsec = (long)(ns % EQL_NS_PER_SEC) };
}

/* Sleeps until CLOCK_MONOTONIC reaches t.  Returns 0, or -1 when a stop
 * was requested (SIGINT/SIGTERM) before then. */
int eql_sleep_until(uint64_t t);

/*
 * --start-at: waits for t (0: no wait) and returns the time started, or 0
 * when a stop was requested while waiting.  A t in the past starts at once
 * and says so on stderr, naming the mode.
 */
uint64_t eql_start_at(uint64_t t, const char *mode);

#endif
