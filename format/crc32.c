/* CRC-32 (the IEEE polynomial, reflected, as zlib computes it), needing no
 * zlib in the profiled program. A profile is checksummed at every dump and
 * trace chunks as they are written, so the CRC is in the exit dump's cost:
 * a byte a step through one table took 9 instructions a byte (9 M of the
 * 81 M a SQLite run's exit dump took, #29), eight bytes a step through
 * eight tables ("slicing by 8") 4.4, 3.7 M of its 26 M. Where the CPU
 * multiplies without carries (x86-64's PCLMULQDQ), 64 bytes a step are
 * folded into four 128-bit remainders instead, well under an instruction
 * a byte; the tables finish what is left. */
#include <pthread.h>

#include "crc32.h"

/* table[0] is the byte-at-a-time table; table[k][i] is the CRC of byte i
 * followed by k zero bytes, so eight lookups advance eight bytes. */
static uint32_t table[8][256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__) && defined(__GNUC__)
#define PP_CRC_CLMUL 1
#include <immintrin.h>
static int have_clmul;
#endif

static void fill(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int k = 1; k < 8; k++)
			table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
#ifdef PP_CRC_CLMUL
	__builtin_cpu_init();
	have_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
#endif
}

/* Four bytes as a little-endian number, on any host. */
static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The register (not inverted) after n more bytes, through the tables. */
static uint32_t by_tables(const uint8_t *b, size_t n, uint32_t crc)
{
	for (; n >= 8; n -= 8, b += 8) {
		uint32_t lo = crc ^ le32(b), hi = le32(b + 4);
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
		      table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
	}
	while (n--)
		crc = table[0][(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return crc;
}

#ifdef PP_CRC_CLMUL
/* Folding, in the reflected order the CRC works in: a 16-byte block is a
 * polynomial whose first byte's lowest bit is its highest term, so its low
 * 64 bits are the high half H, its high 64 bits the low half L. Moving a
 * block d bits further on multiplies it by x^d; modulo the CRC's
 * polynomial P that is H * (x^(d+64) mod P) + L * (x^d mod P), a product of
 * at most 95 terms that fits the block it is added to. Each constant is
 * x^(e-1) mod P bit-reflected into 64 bits (term t at bit 63 - t): a
 * carry-less product of two such reflected numbers lands one bit lower
 * than the block's order, which the e - 1 makes up. Computed from P alone
 * (tests/profile/test_ids.c checks every length against a bit-at-a-time
 * CRC). */
#define K_512_H 0x653d982200000000ull /* x^575 mod P: 64 bytes on, high half */
#define K_512_L 0xcad38e8f00000000ull /* x^511 mod P: ... low half */
#define K_128_H 0x65673b4600000000ull /* x^191 mod P: 16 bytes on, high half */
#define K_128_L 0x9ba54c6f00000000ull /* x^127 mod P: ... low half */

__attribute__((target("pclmul,sse4.1"))) static inline __m128i fold(__m128i x, __m128i k)
{
	/* k holds the high half's constant low, the low half's high */
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* n >= 64: the register after the bytes a multiple of 16 covers, whose
 * count goes to *done. Starting from crc is the same as starting from 0
 * with crc added into the first four bytes. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t by_folding(const uint8_t *b, size_t n,
								    uint32_t crc, size_t *done)
{
	const __m128i k512 = _mm_set_epi64x((long long)K_512_L, (long long)K_512_H);
	const __m128i k128 = _mm_set_epi64x((long long)K_128_L, (long long)K_128_H);
	__m128i x0 = _mm_loadu_si128((const __m128i *)b);
	__m128i x1 = _mm_loadu_si128((const __m128i *)(b + 16));
	__m128i x2 = _mm_loadu_si128((const __m128i *)(b + 32));
	__m128i x3 = _mm_loadu_si128((const __m128i *)(b + 48));
	x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)crc));
	size_t at = 64;
	for (; n - at >= 64; at += 64) {
		x0 = _mm_xor_si128(fold(x0, k512), _mm_loadu_si128((const __m128i *)(b + at)));
		x1 = _mm_xor_si128(fold(x1, k512), _mm_loadu_si128((const __m128i *)(b + at + 16)));
		x2 = _mm_xor_si128(fold(x2, k512), _mm_loadu_si128((const __m128i *)(b + at + 32)));
		x3 = _mm_xor_si128(fold(x3, k512), _mm_loadu_si128((const __m128i *)(b + at + 48)));
	}
	/* the four into one, each one block on into the next */
	x1 = _mm_xor_si128(x1, fold(x0, k128));
	x2 = _mm_xor_si128(x2, fold(x1, k128));
	x3 = _mm_xor_si128(x3, fold(x2, k128));
	for (; n - at >= 16; at += 16)
		x3 = _mm_xor_si128(fold(x3, k128), _mm_loadu_si128((const __m128i *)(b + at)));
	/* x3 is congruent to every byte so far, as the last 16 of them: their
	 * CRC from a zero register is the message's register */
	uint8_t last[16];
	_mm_storeu_si128((__m128i *)last, x3);
	*done = at;
	return by_tables(last, 16, 0);
}
#endif

uint32_t pp__crc32(const void *p, size_t n, uint32_t crc)
{
	pthread_once(&once, fill);
	const uint8_t *b = p;
	crc = ~crc;
#ifdef PP_CRC_CLMUL
	if (have_clmul && n >= 64) {
		size_t done;
		crc = by_folding(b, n, crc, &done);
		b += done;
		n -= done;
	}
#endif
	return ~by_tables(b, n, crc);
}
