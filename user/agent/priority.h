/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's scheduling (`agent_priority`, docs/agent.md): the agent is
 * the tunnel's control loop, and a host that keeps it off the CPU for a
 * millisecond stalls every tunnel's credit for that long.
 */
#ifndef EDGEQ_AGENT_PRIORITY_H
#define EDGEQ_AGENT_PRIORITY_H

#include <stddef.h>
#include <stdint.h>

/* Runs the calling thread under SCHED_FIFO at prio (1-99); 0 leaves it as
 * it is.  -1 with the reason in err when the kernel refuses. */
int eq_agent_set_priority(uint32_t prio, char *err, size_t len);

#endif
