/* Wire decoding: the first stage every message goes through. decode() is a
 * gate and a leaf (every message's first path is on_message>decode); the byte
 * readers below it are helpers, so the gate count does not depend on the body. */
#include <string.h>
#include "feed.h"

typedef struct reader {
	const uint8_t *p, *end;
	int bad;
} reader_t;

static HELPER uint64_t get(reader_t *r, int n)
{
	if (r->end - r->p < n) {
		r->bad = 1;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static HELPER int checksum_ok(const uint8_t *buf, size_t len)
{
	uint8_t sum = 0;
	for (size_t i = 0; i + 1 < len; i++)
		sum = (uint8_t)(sum + buf[i]);
	return sum == buf[len - 1];
}

/* Returns 0, or -1 for a malformed message (wrong length, bad sum, bad field). */
GATED int decode(const uint8_t *buf, size_t len, msg_t *m)
{
	GATE();
	if (len < 7 || buf[1] != len || !checksum_ok(buf, len))
		return -1;
	memset(m, 0, sizeof *m);
	reader_t r = {buf + 2, buf + len - 1, 0};
	m->type = buf[0];
	m->seq = (uint32_t)get(&r, 4);
	switch (m->type) {
	case MSG_ADD:
		m->id = get(&r, 8);
		m->side = (uint8_t)get(&r, 1);
		m->price = (uint32_t)get(&r, 4);
		m->qty = (uint32_t)get(&r, 4);
		break;
	case MSG_CANCEL:
		m->id = get(&r, 8);
		break;
	case MSG_TRADE:
		m->side = (uint8_t)get(&r, 1);
		m->price = (uint32_t)get(&r, 4);
		m->qty = (uint32_t)get(&r, 4);
		break;
	case MSG_HEARTBEAT:
		break;
	case MSG_SNAPSHOT:
		m->nlevels = (uint8_t)get(&r, 1);
		if (m->nlevels > SNAP_MAX)
			return -1;
		for (uint32_t i = 0; i < m->nlevels; i++) {
			m->levels[i].side = (uint8_t)get(&r, 1);
			m->levels[i].price = (uint32_t)get(&r, 4);
			m->levels[i].qty = (uint32_t)get(&r, 4);
			if (m->levels[i].side > SIDE_ASK)
				r.bad = 1;
		}
		break;
	default:
		return -1;
	}
	if (r.bad || r.p != r.end || m->side > SIDE_ASK)
		return -1;
	return 0;
}
