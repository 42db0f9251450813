/* What a file holds (file_kind.h). Eight bytes are every magic's length. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_format.h"
#include "file_kind.h"
#include "profile.h"
#include "trace_format.h"

enum pp__file_kind pp__head_kind(const void *head, size_t n)
{
	if (n < 8)
		return PP__FILE_OTHER;
	if (!memcmp(head, PP_PROFILE_MAGIC, 8))
		return PP__FILE_PROFILE;
	if (!memcmp(head, PP_TRACE_MAGIC, 8))
		return PP__FILE_TRACE;
	if (!memcmp(head, PP_CAP_MAGIC, 8))
		return PP__FILE_CAPTURE;
	return PP__FILE_OTHER;
}

const char *pp__file_kind_hint(enum pp__file_kind got, enum pp__file_kind want)
{
	/* [got][want is profile, trace, anything else] */
	static const char *const hint[3][3] = {
		{ NULL, "a pathprof profile, not a trace ('pathprof report' reads it)",
		  "a pathprof profile ('pathprof report' reads it)" },
		{ "a pathprof trace, not a profile ('pathprof replay TRACE -o FILE' makes one of it)", NULL,
		  "a pathprof trace ('pathprof replay TRACE -o FILE' makes a profile of it)" },
		{ "a pathprof capture, not a profile ('pathprof capture replay' replays its calls)",
		  "a pathprof capture, not a trace ('pathprof capture replay' replays its calls)",
		  "a pathprof capture ('pathprof capture replay' replays its calls)" },
	};
	if (got < PP__FILE_PROFILE || got > PP__FILE_CAPTURE || got == want)
		return NULL;
	int w = want == PP__FILE_PROFILE ? 0 : want == PP__FILE_TRACE ? 1 : 2;
	return hint[got - PP__FILE_PROFILE][w];
}

/* of the open descriptor fd (pread: its offset stays) */
static enum pp__file_kind fd_kind(int fd)
{
	struct stat st;
	char head[8];
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return PP__FILE_NONE;
	ssize_t n = pread(fd, head, sizeof head, 0);
	return pp__head_kind(head, n > 0 ? (size_t)n : 0);
}

enum pp__file_kind pp__file_kind(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return PP__FILE_NONE;
	enum pp__file_kind k = fd_kind(fd);
	close(fd);
	return k;
}
