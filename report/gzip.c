/* gzip writer (gzip.h). DEFLATE with fixed Huffman codes needs no code
 * tables in the stream: each match becomes a length symbol and a distance
 * symbol plus extra bits, each other byte a literal. Matches are found with
 * hash chains over a 32 KiB window, greedily, at most CHAIN candidates per
 * position: bounded time, ratio close enough to zlib's for this data. */
#include <stdlib.h>
#include <string.h>

#include "gzip.h"

#define WINDOW 32768u
#define HASH_BITS 15
#define CHAIN 64
#define MIN_MATCH 3
#define MAX_MATCH 258

static const uint16_t len_base[29] = {
	3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
	35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
};
static const uint8_t len_extra[29] = {
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
	3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
};
static const uint16_t dist_base[30] = {
	1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
	257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
};
static const uint8_t dist_extra[30] = {
	0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
	7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
};

/* DEFLATE packs bits from the least significant end of each byte. */
typedef struct bits {
	FILE *out;
	uint64_t buf;
	unsigned n;
} bits_t;

static void put_bits(bits_t *b, uint32_t v, unsigned n)
{
	b->buf |= (uint64_t)v << b->n;
	b->n += n;
	while (b->n >= 8) {
		putc((int)(b->buf & 0xff), b->out);
		b->buf >>= 8;
		b->n -= 8;
	}
}

/* Huffman codes are defined most significant bit first. */
static void put_code(bits_t *b, uint32_t code, unsigned n)
{
	uint32_t r = 0;
	for (unsigned i = 0; i < n; i++)
		r |= ((code >> i) & 1u) << (n - 1 - i);
	put_bits(b, r, n);
}

/* The fixed literal/length code of RFC 1951 3.2.6. */
static void put_sym(bits_t *b, unsigned s)
{
	if (s < 144)
		put_code(b, 0x30 + s, 8);
	else if (s < 256)
		put_code(b, 0x190 + (s - 144), 9);
	else if (s < 280)
		put_code(b, s - 256, 7);
	else
		put_code(b, 0xc0 + (s - 280), 8);
}

static void put_match(bits_t *b, unsigned len, unsigned dist)
{
	unsigned i = 28;
	while (len_base[i] > len)
		i--;
	put_sym(b, 257 + i);
	put_bits(b, len - len_base[i], len_extra[i]);
	i = 29;
	while (dist_base[i] > dist)
		i--;
	put_code(b, i, 5);
	put_bits(b, dist - dist_base[i], dist_extra[i]);
}

static uint32_t crc32(const uint8_t *p, size_t n)
{
	uint32_t table[256], c = 0xffffffffu;
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t v = i;
		for (int k = 0; k < 8; k++)
			v = v & 1 ? 0xedb88320u ^ (v >> 1) : v >> 1;
		table[i] = v;
	}
	for (size_t i = 0; i < n; i++)
		c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

static uint32_t hash3(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
	return (v * 2654435761u) >> (32 - HASH_BITS);
}

static void put_le32(FILE *out, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		putc((int)(v >> (8 * i) & 0xff), out);
}

int pp__gzip_write(FILE *out, const uint8_t *data, size_t len)
{
	/* Positions are stored +1 so that 0 means "none". */
	size_t *head = calloc((size_t)1 << HASH_BITS, sizeof *head);
	size_t *prev = calloc(WINDOW, sizeof *prev);
	bits_t b = { .out = out };
	static const uint8_t header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };

	if (!head || !prev) {
		free(head);
		free(prev);
		return -1;
	}
	fwrite(header, 1, sizeof header, out); /* deflate, no name, mtime 0, Unix */
	put_bits(&b, 1, 1); /* BFINAL: the only block */
	put_bits(&b, 1, 2); /* BTYPE 01: fixed Huffman codes */

	for (size_t i = 0; i < len;) {
		unsigned best = 0, dist = 0;
		if (i + MIN_MATCH <= len) {
			uint32_t h = hash3(data + i);
			size_t cand = head[h];
			unsigned max = len - i < MAX_MATCH ? (unsigned)(len - i) : MAX_MATCH;
			for (int k = 0; k < CHAIN && cand && i - (cand - 1) <= WINDOW; k++) {
				size_t c = cand - 1;
				unsigned l = 0;
				while (l < max && data[c + l] == data[i + l])
					l++;
				if (l > best) {
					best = l, dist = (unsigned)(i - c);
					if (l == max)
						break;
				}
				size_t next = prev[c % WINDOW];
				if (next >= cand) /* the slot was reused by a newer position */
					break;
				cand = next;
			}
		}
		size_t step = best >= MIN_MATCH ? best : 1;
		if (best >= MIN_MATCH)
			put_match(&b, best, dist);
		else
			put_sym(&b, data[i]);
		for (size_t j = i; j < i + step; j++) {
			if (j + MIN_MATCH > len)
				break;
			uint32_t h = hash3(data + j);
			prev[j % WINDOW] = head[h];
			head[h] = j + 1;
		}
		i += step;
	}
	put_sym(&b, 256); /* end of block */
	if (b.n)
		put_bits(&b, 0, 8 - b.n);
	put_le32(out, crc32(data, len));
	put_le32(out, (uint32_t)len); /* ISIZE: length modulo 2^32 */
	free(head);
	free(prev);
	return 0;
}
