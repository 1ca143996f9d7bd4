/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inner TCP/UDP checksums left to offload.  A host whose interface has
 * checksum offload on (every NIC and virtio-net, and veth, by default)
 * hands the kernel's TCP and UDP packets to TC with the checksum field
 * holding only the pseudo-header sum (CHECKSUM_PARTIAL): the device, or
 * the stack of a virtual peer trusting the skb's metadata, completes it.
 * A fast send goes to the wire as it is; where nothing on the way
 * completes it (a veth pair: the metadata crosses, the sum does not) the
 * receiver's XDP hands its agent the bytes without the metadata, and the
 * packet the agent delivers would fail the stack's check.
 *
 * The agent therefore completes, before delivery, an inner checksum that
 * still holds exactly the pseudo-header sum.  A complete checksum equals
 * that value only by chance (1 in 65536), and recomputing it then gives
 * the same value for intact data: the rule never breaks a good packet.
 * Pure functions over bytes: tests/unit/test_agent_l4csum.c.
 */
#ifndef EDGEQ_AGENT_L4CSUM_H
#define EDGEQ_AGENT_L4CSUM_H

#include <stdbool.h>
#include <stdint.h>

/* The inner IP packet ip[0, len): if it is an unfragmented TCP or UDP
 * packet (IPv4, or IPv6 with no extension header) whose checksum field
 * holds the pseudo-header sum only, write the full checksum.  True if it
 * did. */
bool eq_l4csum_complete(uint8_t *ip, uint32_t len);

/* The full TCP/UDP checksum of the same packet, as it should be (the
 * field's own value ignored): for tests and for eq_l4csum_complete(). */
uint16_t eq_l4csum_compute(const uint8_t *ip, uint32_t len);

/* The pseudo-header sum as the kernel leaves it in the field for offload
 * (not complemented): what eq_l4csum_complete() looks for. */
uint16_t eq_l4csum_partial(const uint8_t *ip, uint32_t len);

#endif
