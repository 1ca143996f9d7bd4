/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Packets inside the switch: fixed-size slots from one pool, linked into
 * FIFOs.  A slot holds a whole frame, so a packet is copied once on the
 * way in (from the ingress socket's UMEM) and once on the way out.
 */
#ifndef EDGEQ_FABRIC_PKT_H
#define EDGEQ_FABRIC_PKT_H

#include <stdint.h>
#include <stddef.h>
#include "switch/frame.h"

struct pkt {
	struct pkt *next;
	uint64_t t_arrive;	/* entered the current port's queue */
	uint64_t t_ready;	/* on the wire: reaches the far end at this time */
	uint32_t len;
	uint8_t  cls;		/* enum frame_class */
	uint8_t  prio;		/* in the priority queue */
	uint16_t pad;
	struct frame_info fi;
	uint8_t data[FRAME_MAX];
};

struct fifo {
	struct pkt *head, *tail;
	uint64_t bytes;
	uint32_t pkts;
};

static inline void fifo_push(struct fifo *q, struct pkt *p)
{
	p->next = NULL;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->bytes += p->len;
	q->pkts++;
}

static inline struct pkt *fifo_pop(struct fifo *q)
{
	struct pkt *p = q->head;

	if (!p)
		return NULL;
	q->head = p->next;
	if (!q->head)
		q->tail = NULL;
	q->bytes -= p->len;
	q->pkts--;
	p->next = NULL;
	return p;
}

struct pool {
	struct pkt *slots;
	struct pkt *free;
	uint32_t nslots, nfree;
};

int pool_init(struct pool *pl, uint32_t nslots);
void pool_fini(struct pool *pl);

static inline struct pkt *pool_get(struct pool *pl)
{
	struct pkt *p = pl->free;

	if (p) {
		pl->free = p->next;
		pl->nfree--;
	}
	return p;
}

static inline void pool_put(struct pool *pl, struct pkt *p)
{
	p->next = pl->free;
	pl->free = p;
	pl->nfree++;
}

#endif
