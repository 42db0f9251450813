/* The order book: aggregated quantity per price level on each side, plus the
 * resting orders by id so a cancel knows what to take away. book_add,
 * book_cancel, book_trade, book_snapshot and book_clear are gates; the table
 * probing and level arithmetic under them are helpers. */
#include <string.h>
#include "feed.h"

#define NLEVELS ((int)(2 * PRICE_SPAN + 1))
#define ORDER_CAP 2048 /* power of two, 4x the generator's resting orders */

typedef struct order {
	uint64_t id; /* 0 = empty slot */
	uint8_t side;
	uint32_t price;
	uint32_t qty;
} order_t;

static struct {
	uint64_t qty[2][NLEVELS];
	order_t orders[ORDER_CAP];
	uint64_t traded, trades;
	uint32_t last_price;
} book;

static HELPER int level_of(uint32_t price)
{
	uint32_t lo = PRICE_MID - PRICE_SPAN;
	if (price < lo || price - lo >= (uint32_t)NLEVELS)
		return -1;
	return (int)(price - lo);
}

static HELPER uint32_t slot_of(uint64_t id)
{
	return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 53) & (ORDER_CAP - 1);
}

static HELPER order_t *order_find(uint64_t id)
{
	for (uint32_t i = slot_of(id), n = 0; n < ORDER_CAP; i = (i + 1) & (ORDER_CAP - 1), n++) {
		if (book.orders[i].id == id)
			return &book.orders[i];
		if (book.orders[i].id == 0)
			return NULL;
	}
	return NULL;
}

static HELPER order_t *order_insert(uint64_t id)
{
	for (uint32_t i = slot_of(id), n = 0; n < ORDER_CAP; i = (i + 1) & (ORDER_CAP - 1), n++)
		if (book.orders[i].id == 0 || book.orders[i].id == id)
			return &book.orders[i];
	return NULL;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static HELPER void order_erase(order_t *o)
{
	uint32_t hole = (uint32_t)(o - book.orders);
	for (uint32_t i = (hole + 1) & (ORDER_CAP - 1);; i = (i + 1) & (ORDER_CAP - 1)) {
		order_t *x = &book.orders[i];
		if (x->id == 0)
			break;
		uint32_t home = slot_of(x->id);
		/* x may move into the hole when its home is not in (hole, i] */
		if (((i - home) & (ORDER_CAP - 1)) >= ((i - hole) & (ORDER_CAP - 1))) {
			book.orders[hole] = *x;
			hole = i;
		}
	}
	book.orders[hole].id = 0;
}

static HELPER void level_take(int side, int lv, uint64_t qty)
{
	uint64_t *q = &book.qty[side][lv];
	*q = *q > qty ? *q - qty : 0;
}

/* id 0 adds quantity that no later cancel refers to (snapshot levels). */
GATED void book_add(uint64_t id, int side, uint32_t price, uint32_t qty)
{
	GATE();
	int lv = level_of(price);
	if (lv < 0)
		return;
	if (id) {
		order_t *o = order_insert(id);
		if (!o)
			return;
		*o = (order_t){id, (uint8_t)side, price, qty};
	}
	book.qty[side][lv] += qty;
}

GATED void book_cancel(uint64_t id)
{
	GATE();
	order_t *o = order_find(id);
	if (!o)
		return;
	level_take(o->side, level_of(o->price), o->qty);
	order_erase(o);
}

/* The aggressor takes liquidity at price from the other side; the strategy
 * sees every trade once the book reflects it. */
GATED void book_trade(int side, uint32_t price, uint32_t qty)
{
	GATE();
	int lv = level_of(price);
	if (lv >= 0)
		level_take(!side, lv, qty);
	book.traded += qty;
	book.last_price = price;
	signal_update(side, price, qty);
	book.trades++;
}

GATED void book_clear(void)
{
	GATE();
	memset(&book, 0, sizeof book);
}

GATED void book_snapshot(const msg_t *m)
{
	GATE();
	book_clear();
	for (uint32_t i = 0; i < m->nlevels; i++)
		book_add(0, m->levels[i].side, m->levels[i].price, m->levels[i].qty);
}

/* Best bid (highest) or best ask (lowest) with quantity, 0 when empty. */
HELPER uint32_t book_best(int side)
{
	for (int i = 0; i < NLEVELS; i++) {
		int lv = side == SIDE_BID ? NLEVELS - 1 - i : i;
		if (book.qty[side][lv])
			return PRICE_MID - PRICE_SPAN + (uint32_t)lv;
	}
	return 0;
}

/* A fingerprint of the book's state, printed at exit so two runs (or two
 * front-ends) can be checked to have done the same work. */
HELPER uint64_t book_digest(void)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < NLEVELS; i++)
			h = (h ^ book.qty[s][i]) * 0x100000001b3ull;
	return (h ^ book.traded ^ book.trades ^ book.last_price) * 0x100000001b3ull;
}
