/* Writes the seed profiles of the profile and CLI fuzz targets into a
 * directory: the sample profile untimed and timed, an empty one, and one that
 * carries an optional section this reader does not know (it must be skipped).
 * The build runs it (mkseeds.sh) into its own seeds/profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "fuzz.h"

static void write_profile(const pp_profile_t *p, const char *dir, const char *name)
{
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (pp__profile_write(p, path, err, sizeof err))
		fz_fail("%s", err);
}

/* Splice an optional section of type 99, with its checksum, in front of the
 * END section, which is the last 20 bytes of a file (header and checksum). */
static void add_unknown_section(const char *dir, const char *from, const char *to)
{
	char in[4096], out[4096];
	snprintf(in, sizeof in, "%s/%s", dir, from);
	snprintf(out, sizeof out, "%s/%s", dir, to);
	FILE *f = fopen(in, "rb");
	if (!f)
		fz_fail("cannot open %s", in);
	static unsigned char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	if (n < 36 || n == sizeof buf)
		fz_fail("%s: unexpected size %zu", in, n);
	unsigned char sec[23] = { 99, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 'x', 'y', 'z' };
	uint32_t crc = pp__crc32(sec, 19, 0);
	for (int i = 0; i < 4; i++)
		sec[19 + i] = (unsigned char)(crc >> (8 * i));
	f = fopen(out, "wb");
	if (!f || fwrite(buf, 1, n - 20, f) != n - 20 || fwrite(sec, 1, sizeof sec, f) != sizeof sec ||
	    fwrite(buf + n - 20, 1, 20, f) != 20 || fclose(f))
		fz_fail("cannot write %s", out);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: mkseeds DIR\n", stderr);
		return 2;
	}
	pp_profile_t p;
	fz_sample(&p, 0);
	write_profile(&p, argv[1], "untimed");
	pp__profile_free(&p);
	fz_sample(&p, 1);
	write_profile(&p, argv[1], "timed");
	pp__profile_free(&p);
	memset(&p, 0, sizeof p);
	p.version = PP_PROFILE_VERSION;
	p.frontend = "cyg";
	p.command = "";
	write_profile(&p, argv[1], "empty");
	add_unknown_section(argv[1], "untimed", "unknown-section");
	return 0;
}
