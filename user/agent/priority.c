// SPDX-License-Identifier: GPL-2.0-only
/* The agent's scheduling class (priority.h). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include "priority.h"

int eq_agent_set_priority(uint32_t prio, char *err, size_t len)
{
	struct sched_param sp = { .sched_priority = (int)prio };

	if (!prio)
		return 0;
	/* Reset on fork: whatever the agent might start runs as usual. */
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp)) {
		int e = errno;

		snprintf(err, len, "agent_priority %u: cannot run under SCHED_FIFO: %s%s", prio,
			 strerror(e), e == EPERM ? " (needs CAP_SYS_NICE, and in a cgroup with "
			 "its own real-time budget, some of it; or set agent_priority 0)" : "");
		return -1;
	}
	return 0;
}
