/* Another build of zlib for tests/capture/zlib.sh: compress2 always
 * compresses at level 1, so its output and the length it sets through
 * destLen differ from level 6's; every other function is libz's own (this
 * library is linked against it). */
#include <zlib.h>

int compress2(Bytef *dest, uLongf *destLen, const Bytef *source, uLong sourceLen, int level)
{
	z_stream s = { 0 };
	(void)level;
	if (deflateInit(&s, 1) != Z_OK)
		return Z_STREAM_ERROR;
	s.next_in = (Bytef *)source;
	s.avail_in = (uInt)sourceLen;
	s.next_out = dest;
	s.avail_out = (uInt)*destLen;
	int r = deflate(&s, Z_FINISH);
	*destLen = s.total_out;
	deflateEnd(&s);
	return r == Z_STREAM_END ? Z_OK : Z_BUF_ERROR;
}
