// SPDX-License-Identifier: GPL-2.0-only
/* The packet pool: one allocation, a free list through the slots. */
#include <stdlib.h>
#include "switch/pkt.h"

int pool_init(struct pool *pl, uint32_t nslots)
{
	pl->slots = calloc(nslots, sizeof(struct pkt));
	if (!pl->slots)
		return -1;
	pl->free = NULL;
	pl->nfree = 0;
	pl->nslots = nslots;
	for (uint32_t i = nslots; i-- > 0;)
		pool_put(pl, &pl->slots[i]);
	return 0;
}

void pool_fini(struct pool *pl)
{
	free(pl->slots);
	pl->slots = pl->free = NULL;
	pl->nslots = pl->nfree = 0;
}
