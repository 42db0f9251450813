/* What a file holds (file_kind.h). Eight bytes are every magic's length. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_format.h"
#include "file_kind.h"
#include "profile.h"
#include "trace_format.h"

enum pp__file_kind pp__fd_kind(int fd)
{
	struct stat st;
	char head[8];
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return PP__FILE_NONE;
	if (pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head)
		return PP__FILE_OTHER;
	if (!memcmp(head, PP_PROFILE_MAGIC, sizeof head))
		return PP__FILE_PROFILE;
	if (!memcmp(head, PP_TRACE_MAGIC, sizeof head))
		return PP__FILE_TRACE;
	if (!memcmp(head, PP_CAP_MAGIC, sizeof head))
		return PP__FILE_CAPTURE;
	return PP__FILE_OTHER;
}

enum pp__file_kind pp__file_kind(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return PP__FILE_NONE;
	enum pp__file_kind k = pp__fd_kind(fd);
	close(fd);
	return k;
}
