/* Shared types of the feed example: a market-data feed handler that decodes
 * messages, keeps a small price-level book, derives a trading signal and sends
 * orders. The call tree per message type is fixed (see expect.c), so the exact
 * count of every path follows from --seed and --messages. */
#ifndef FEED_H
#define FEED_H

#include <stddef.h>
#include <stdint.h>
#include "gate.h"

enum msg_type { MSG_ADD, MSG_CANCEL, MSG_TRADE, MSG_HEARTBEAT, MSG_SNAPSHOT, MSG_NTYPES };

enum side { SIDE_BID = 0, SIDE_ASK = 1 };

#define SNAP_MAX 8    /* price levels in one snapshot */
#define WIRE_MAX 128  /* largest encoded message */
#define PRICE_MID 1000u
#define PRICE_SPAN 64u /* prices stay within PRICE_MID +- PRICE_SPAN */
#define QTY_MAX 100u

/* A block trade moves the signal; an order above the fat-finger limit is
 * rejected by the risk check. The generator draws trade sizes in 1..QTY_MAX. */
#define SIGNAL_MIN_QTY 60u
#define RISK_MAX_QTY 90u

typedef struct level {
	uint8_t side;
	uint32_t price;
	uint32_t qty;
} level_t;

typedef struct msg {
	uint8_t type;
	uint8_t side;
	uint8_t nlevels;
	uint32_t seq;
	uint64_t id;
	uint32_t price;
	uint32_t qty;
	level_t levels[SNAP_MAX];
} msg_t;

/* gen.c: the seeded message source (never gated). */
typedef struct gen gen_t;
gen_t *gen_create(uint64_t seed);
void gen_destroy(gen_t *g);
void gen_next(gen_t *g, msg_t *m);
size_t wire_encode(const msg_t *m, uint8_t *buf);
extern const char *const msg_type_name[MSG_NTYPES];

/* expect.c: the oracle */
int expect_print(uint64_t seed, uint64_t n, int types_only);

/* decode.c */
int decode(const uint8_t *buf, size_t len, msg_t *m);

/* book.c */
void book_add(uint64_t id, int side, uint32_t price, uint32_t qty);
void book_cancel(uint64_t id);
void book_trade(int side, uint32_t price, uint32_t qty);
void book_snapshot(const msg_t *m);
void book_clear(void);
uint32_t book_best(int side);
uint64_t book_digest(void);

/* strategy.c */
void signal_update(int side, uint32_t price, uint32_t qty);
void risk_check(int side, uint32_t price, uint32_t qty);
void send_order(int side, uint32_t price, uint32_t qty);

typedef struct feed_stats {
	uint64_t signals, rejects, orders;
	uint64_t order_digest;
} feed_stats_t;
extern feed_stats_t feed_stats;

static inline HELPER int signal_fires(uint32_t qty)
{
	return qty >= SIGNAL_MIN_QTY;
}

static inline HELPER int risk_ok(uint32_t qty)
{
	return qty <= RISK_MAX_QTY;
}

#endif
