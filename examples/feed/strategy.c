/* The strategy: a block trade moves a price signal, which proposes an order
 * that the risk check may refuse; accepted orders are encoded for the exchange.
 * This is the deep end of the call tree (trade: up to five gates). */
#include "feed.h"

feed_stats_t feed_stats;

static struct {
	int64_t ewma;     /* trade price, 1/8 weight, in 1/256 ticks */
	int64_t position; /* signed, in lots */
	uint8_t out[64];  /* last outbound order, as it would go on the wire */
	uint32_t next_order;
} strat;

static HELPER uint64_t fold(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* Every trade updates the signal; only a block trade acts on it. The order
 * leans against the aggressor when the trade printed through the average. */
GATED void signal_update(int side, uint32_t price, uint32_t qty)
{
	GATE();
	int64_t px = (int64_t)price << 8;
	strat.ewma += (px - strat.ewma) / 8;
	if (!signal_fires(qty))
		return;
	feed_stats.signals++;
	int through = side == SIDE_BID ? px > strat.ewma : px < strat.ewma;
	int our_side = through ? !side : side;
	uint32_t best = book_best(our_side);
	risk_check(our_side, best ? best : price, qty);
	feed_stats.order_digest = fold(feed_stats.order_digest, (uint64_t)strat.position);
}

/* Fat-finger limit: an order above RISK_MAX_QTY never leaves. */
GATED void risk_check(int side, uint32_t price, uint32_t qty)
{
	GATE();
	if (!risk_ok(qty)) {
		feed_stats.rejects++;
		return;
	}
	send_order(side, price, qty);
	strat.position += side == SIDE_BID ? (int64_t)qty : -(int64_t)qty;
}

GATED void send_order(int side, uint32_t price, uint32_t qty)
{
	GATE();
	msg_t o = {.type = MSG_ADD, .side = (uint8_t)side, .seq = ++strat.next_order,
		   .id = strat.next_order, .price = price, .qty = qty};
	size_t n = wire_encode(&o, strat.out);
	for (size_t i = 0; i < n; i++)
		feed_stats.order_digest = fold(feed_stats.order_digest, strat.out[i]);
	feed_stats.orders++;
}
