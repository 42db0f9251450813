/* The API capture trace (pathprof capture, docs/guides/capture.md): what a
 * generated shim records of every call a program makes into a C library,
 * written by runtime/capture/recorder.c inside the program and read by
 * tools/capture/replay.c, which calls the same functions again through
 * libffi. The file is self-describing: each function's signature (the kind
 * of each argument, decided by `pathprof capture gen` from the header) comes
 * before its first call, so replay needs no header.
 *
 * File: the 8-byte magic, then records, each a type byte and fields:
 *   FUNC  fn, name, return kind and size, nparams, then per parameter:
 *         kind, aux, filled (pathprof/capture.h says what they mean; a
 *         buffer's kind byte also holds its element's size, which a trace
 *         written before there were typed buffers has as 0: bytes)
 *   CALL  seq, tid, fn, then each parameter's value before the call, the
 *         return value, then each out parameter's value after the call
 *   END   calls recorded (at exit: a trace without it was cut)
 * Numbers are LEB128 varints (signed ones zigzag), strings and buffers a
 * presence byte, a varint length and the bytes. */
#ifndef PP_CAPTURE_FORMAT_H
#define PP_CAPTURE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include <pathprof/capture.h>

#define PP_CAP_MAGIC "PPCAPT1\n"
#define PP_CAP_NAME_MAX 128

enum pp_cap_record { PP_CAP_FUNC = 1, PP_CAP_CALL = 2, PP_CAP_END = 3 };

static inline uint8_t *pp__cap_put_var(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint64_t pp__cap_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t pp__cap_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#endif
