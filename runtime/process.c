/* Who this process is, for the labels fleet tools group by: the service
 * (PATHPROF_SERVICE, else the program's name), the host name and the build
 * id of the main executable (its GNU build-id note, read from memory, so no
 * file is opened). Computed once at start-up; the profile and the live
 * segment carry them (docs/guides/fleet.md). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

/* A service name is a label value: printable ASCII, no quotes or
 * backslashes, so that it reads the same in every format. */
static int service_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= sizeof pp__g.service)
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~' || *s == '"' || *s == '\\')
			return 0;
	return 1;
}

void pp__phdr_build_id(const struct dl_phdr_info *info, char *out, size_t n)
{
	out[0] = '\0';
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
			const char *name = p + sizeof *nh;
			const unsigned char *desc =
				(const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
			if ((const char *)desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4)) {
				size_t k = nh->n_descsz;
				if (k * 2 >= n)
					k = (n - 1) / 2;
				/* by hand: it runs for every module the live
				 * segment lists, at the first gate */
				static const char hex[] = "0123456789abcdef";
				for (size_t j = 0; j < k; j++) {
					out[2 * j] = hex[desc[j] >> 4];
					out[2 * j + 1] = hex[desc[j] & 15];
				}
				out[2 * k] = '\0';
				return;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

static int note_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	pp__phdr_build_id(info, pp__g.build_id, sizeof pp__g.build_id);
	return 1; /* the first object is the main executable: it only */
}

void pp__process_init(void)
{
	const char *s = getenv("PATHPROF_SERVICE");
	if (s && *s && service_ok(s)) {
		snprintf(pp__g.service, sizeof pp__g.service, "%s", s);
	} else {
		if (s && *s)
			pp__warn("PATHPROF_SERVICE=%s: expected 1-%zu printable characters without "
				 "spaces, quotes or backslashes; using the program's name",
				 s, sizeof pp__g.service - 1);
		snprintf(pp__g.service, sizeof pp__g.service, "%s", program_invocation_short_name);
	}
	if (gethostname(pp__g.host, sizeof pp__g.host) != 0)
		pp__g.host[0] = '\0';
	pp__g.host[sizeof pp__g.host - 1] = '\0';
	pp__g.build_id[0] = '\0';
	dl_iterate_phdr(note_build_id, NULL);
}
