/* The seeded message source and the wire encoder: a fixed sequence of feed
 * messages for a given seed. It stands in for the network, so none of it is
 * gated; the same sequence drives both the run and the --expect oracle. */
#include <stdlib.h>
#include <string.h>
#include "feed.h"

#define LIVE_MAX 512 /* resting orders the generator keeps track of */

struct gen {
	uint64_t state;
	uint64_t next_id;
	uint32_t seq;
	uint32_t nlive;
	uint64_t live[LIVE_MAX];
};

const char *const msg_type_name[MSG_NTYPES] = {
	[MSG_ADD] = "add", [MSG_CANCEL] = "cancel", [MSG_TRADE] = "trade",
	[MSG_HEARTBEAT] = "heartbeat", [MSG_SNAPSHOT] = "snapshot",
};

/* splitmix64: tiny, and every seed (0 included) gives a good stream. */
static HELPER uint64_t rnd(gen_t *g)
{
	uint64_t z = (g->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static HELPER uint32_t below(gen_t *g, uint32_t n)
{
	return (uint32_t)(rnd(g) % n);
}

HELPER gen_t *gen_create(uint64_t seed)
{
	gen_t *g = calloc(1, sizeof *g);
	if (g) {
		g->state = seed;
		g->next_id = 1;
	}
	return g;
}

HELPER void gen_destroy(gen_t *g)
{
	free(g);
}

/* Bids below the mid, asks above, so the book never crosses. */
static HELPER uint32_t quote_price(gen_t *g, int side)
{
	uint32_t off = 1 + below(g, PRICE_SPAN);
	return side == SIDE_BID ? PRICE_MID - off : PRICE_MID + off;
}

/* Mix: 40% add, 25% cancel, 20% trade, 10% heartbeat, 5% snapshot. A cancel
 * with nothing resting becomes an add, an add with the table full a cancel. */
HELPER void gen_next(gen_t *g, msg_t *m)
{
	memset(m, 0, sizeof *m);
	uint32_t r = below(g, 100);
	int t = r < 40 ? MSG_ADD : r < 65 ? MSG_CANCEL : r < 85 ? MSG_TRADE : r < 95 ? MSG_HEARTBEAT : MSG_SNAPSHOT;
	if (t == MSG_CANCEL && g->nlive == 0)
		t = MSG_ADD;
	else if (t == MSG_ADD && g->nlive == LIVE_MAX)
		t = MSG_CANCEL;
	m->type = (uint8_t)t;
	m->seq = ++g->seq;
	switch (t) {
	case MSG_ADD:
		m->id = g->next_id++;
		m->side = (uint8_t)below(g, 2);
		m->price = quote_price(g, m->side);
		m->qty = 1 + below(g, QTY_MAX);
		g->live[g->nlive++] = m->id;
		break;
	case MSG_CANCEL: {
		uint32_t i = below(g, g->nlive);
		m->id = g->live[i];
		g->live[i] = g->live[--g->nlive];
		break;
	}
	case MSG_TRADE:
		/* the aggressor trades at the passive side's price */
		m->side = (uint8_t)below(g, 2);
		m->price = quote_price(g, !m->side);
		m->qty = 1 + below(g, QTY_MAX);
		break;
	case MSG_HEARTBEAT:
		break;
	case MSG_SNAPSHOT:
		/* a snapshot replaces the book: resting orders are gone */
		g->nlive = 0;
		m->nlevels = (uint8_t)(1 + below(g, SNAP_MAX));
		for (uint32_t i = 0; i < m->nlevels; i++) {
			level_t *l = &m->levels[i];
			l->side = (uint8_t)(i & 1);
			l->price = quote_price(g, l->side);
			l->qty = 1 + below(g, QTY_MAX);
		}
		break;
	}
}

static HELPER uint8_t *put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

/* Wire layout, little-endian: type u8, length u8 (whole message), seq u32,
 * type-specific body, then a one-byte sum of everything before it. */
HELPER size_t wire_encode(const msg_t *m, uint8_t *buf)
{
	uint8_t *p = buf + 2;
	p = put(p, m->seq, 4);
	switch (m->type) {
	case MSG_ADD:
		p = put(p, m->id, 8);
		p = put(p, m->side, 1);
		p = put(p, m->price, 4);
		p = put(p, m->qty, 4);
		break;
	case MSG_CANCEL:
		p = put(p, m->id, 8);
		break;
	case MSG_TRADE:
		p = put(p, m->side, 1);
		p = put(p, m->price, 4);
		p = put(p, m->qty, 4);
		break;
	case MSG_SNAPSHOT:
		p = put(p, m->nlevels, 1);
		for (uint32_t i = 0; i < m->nlevels; i++) {
			p = put(p, m->levels[i].side, 1);
			p = put(p, m->levels[i].price, 4);
			p = put(p, m->levels[i].qty, 4);
		}
		break;
	}
	size_t len = (size_t)(p - buf) + 1;
	buf[0] = m->type;
	buf[1] = (uint8_t)len;
	uint8_t sum = 0;
	for (size_t i = 0; i + 1 < len; i++)
		sum = (uint8_t)(sum + buf[i]);
	buf[len - 1] = sum;
	return len;
}
