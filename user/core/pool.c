// SPDX-License-Identifier: GPL-2.0-only
/* The packet pool and FIFO queues of the transport core (eqt.h). */
#include <errno.h>
#include <stdlib.h>
#include "eqt.h"

int eqt_pool_init_sized(struct eqt_pool *pool, uint32_t npkts, uint32_t frame_max)
{
	/* Each packet on a cache line boundary. */
	size_t stride = (sizeof(struct eqt_pkt) + frame_max + 63) & ~(size_t)63;

	pool->mem = calloc(npkts, stride);
	pool->free = NULL;
	pool->size = pool->in_use = 0;
	pool->frame_max = frame_max;
	pool->stride = (uint32_t)stride;
	if (!pool->mem)
		return -ENOMEM;
	for (uint32_t i = npkts; i-- > 0;) {
		struct eqt_pkt *p = (struct eqt_pkt *)((char *)pool->mem + i * stride);

		p->next = pool->free;
		pool->free = p;
	}
	pool->size = npkts;
	return 0;
}

void eqt_pool_fini(struct eqt_pool *pool)
{
	free(pool->mem);
	pool->mem = pool->free = NULL;
	pool->size = pool->in_use = 0;
}

struct eqt_pkt *eqt_pkt_get(struct eqt_pool *pool)
{
	struct eqt_pkt *p = pool->free;

	if (!p)
		return NULL;
	pool->free = p->next;
	pool->in_use++;
	p->next = NULL;
	p->t_ns = 0;
	p->seq = 0;
	p->len = p->l3_off = 0;
	p->cls = p->tx_count = p->flags = p->flow = 0;
	return p;
}

void eqt_pkt_put(struct eqt_pool *pool, struct eqt_pkt *p)
{
	p->next = pool->free;
	pool->free = p;
	pool->in_use--;
}

void eqt_q_push(struct eqt_q *q, struct eqt_pkt *p)
{
	if (q->flows && !q->flows[p->flow]++) {
		/* Sparse: behind what went ahead before it, if anything did. */
		struct eqt_pkt *prev = q->sparse_tail;

		if (prev) {
			p->next = prev->next;
			prev->next = p;
		} else {
			p->next = q->head;
			q->head = p;
		}
		if (q->tail == prev)
			q->tail = p;
		q->sparse_tail = p;
		q->pkts++;
		q->bytes += p->len;
		return;
	}
	p->next = NULL;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->pkts++;
	q->bytes += p->len;
}

void eqt_q_push_head(struct eqt_q *q, struct eqt_pkt *p)
{
	if (q->flows)
		q->flows[p->flow]++;
	p->next = q->head;
	q->head = p;
	if (!q->tail)
		q->tail = p;
	q->pkts++;
	q->bytes += p->len;
}

struct eqt_pkt *eqt_q_pop(struct eqt_q *q)
{
	struct eqt_pkt *p = q->head;

	if (!p)
		return NULL;
	q->head = p->next;
	if (!q->head)
		q->tail = NULL;
	if (q->sparse_tail == p)
		q->sparse_tail = NULL;
	if (q->flows)
		q->flows[p->flow]--;
	q->pkts--;
	q->bytes -= p->len;
	p->next = NULL;
	return p;
}

void eqt_q_drain(struct eqt_q *q, struct eqt_pool *pool)
{
	struct eqt_pkt *p;

	while ((p = eqt_q_pop(q)))
		eqt_pkt_put(pool, p);
}
