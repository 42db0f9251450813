/* See input.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"

static int refuse(char *err, size_t errlen, const char *path, const char *what, int e)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s%s%s", path, what, e ? ": " : "", e ? strerror(e) : "");
	return -1;
}

/* A stream: read until its end, but stop after the first bytes when they
 * are not the magic (the reader then says "bad magic" from them). */
static int read_stream(pp__input_t *in, int fd, const char *path, const char *magic,
		       size_t magic_len, char *err, size_t errlen)
{
	size_t cap = 65536, n = 0;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return refuse(err, errlen, path, "cannot read", ENOMEM);
	for (;;) {
		if (n == cap) {
			uint8_t *m = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
			if (!m) {
				free(buf);
				return refuse(err, errlen, path, "cannot read", ENOMEM);
			}
			buf = m;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return refuse(err, errlen, path, "cannot read", e);
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n >= magic_len && memcmp(buf, magic, magic_len) != 0)
			break;
	}
	in->heap = buf;
	in->data = buf;
	in->size = n;
	return 0;
}

int pp__input_open(pp__input_t *in, const char *path, const char *magic, size_t magic_len,
		   char *err, size_t errlen)
{
	memset(in, 0, sizeof *in);
	int std = !strcmp(path, "-");
	int fd = std ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return refuse(err, errlen, path, "cannot open", errno);
	if (fstat(fd, &st) != 0) {
		int e = errno;
		if (!std)
			close(fd);
		return refuse(err, errlen, path, "cannot open", e);
	}
	int rc;
	if (S_ISREG(st.st_mode) && st.st_size == 0 && lseek(fd, 0, SEEK_END) != 0) {
		/* a file that says it is empty but is not (/proc, /sys): its
		 * bytes are only there to be read */
		lseek(fd, 0, SEEK_SET);
		rc = read_stream(in, fd, path, magic, magic_len, err, errlen);
	} else if (S_ISREG(st.st_mode)) {
		in->size = (size_t)st.st_size;
		if (in->size) {
			void *m = mmap(NULL, in->size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (m == MAP_FAILED) {
				rc = refuse(err, errlen, path, "cannot read", errno);
				goto out;
			}
			in->map = m;
			in->data = m;
		}
		rc = 0;
	} else if (S_ISFIFO(st.st_mode) || (std && (S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode)))) {
		rc = read_stream(in, fd, path, magic, magic_len, err, errlen);
	} else {
		rc = refuse(err, errlen, path,
			    S_ISDIR(st.st_mode) ? "is a directory, not a file"
						: "not a regular file or a pipe (use '-' for standard input)",
			    0);
	}
out:
	if (!std)
		close(fd);
	return rc;
}

void pp__input_close(pp__input_t *in)
{
	if (in->map)
		munmap(in->map, in->size);
	free(in->heap);
	memset(in, 0, sizeof *in);
}
