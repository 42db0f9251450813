/* Checks that code addresses of this process resolve to their exact function
 * names: global, static (.symtab only), in a linked shared library, mid-
 * function, and the fallbacks (unknown address, stripped file, deleted file,
 * vdso). Run as "full" on the built binary and as "stripped" on a copy
 * stripped of .symtab, where only .dynsym names may resolve. */
#define _GNU_SOURCE
#include "symbolize.h"
#include "symlib.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

static int failures;

#define NOINLINE __attribute__((noinline))

int pp_symtest_global(int x);
int pp_symtest_exported(int x);
int _ZN2ns3rawEv(void);

/* Bodies are kept longer than the +4 probe and distinct so no two fold. */
NOINLINE int pp_symtest_global(int x)
{
	volatile int v = x;
	v = v * 7 + 3;
	v ^= 0x55;
	return v;
}

/* Reaches .dynsym through --export-dynamic-symbol, so it survives strip. */
NOINLINE int pp_symtest_exported(int x)
{
	volatile int v = x;
	v = v * 11 + 5;
	v ^= 0x66;
	return v;
}

NOINLINE static int local_fn(int x)
{
	volatile int v = x;
	v = v * 13 + 9;
	v ^= 0x77;
	return v;
}

/* A C function whose name looks mangled: a C program (no __cxa_demangle
 * loaded) must show it raw. */
NOINLINE int _ZN2ns3rawEv(void)
{
	volatile int v = 17;
	v = v * 19 + 1;
	return v;
}

/* Every function entry of every module (the executable, the libraries,
 * libc with its many aliases): the symbolizer's answer is libdwfl's own
 * lookup's, whichever way it found it (its table of symbol starts, or
 * libdwfl where several symbols start at one address). Mangled names are
 * left out: the symbolizer demangles them. */
struct sweep {
	pp__symbolizer_t *s;
	unsigned checked, bad;
};

static int sweep_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
			void *arg)
{
	(void)userdata, (void)name, (void)start;
	struct sweep *w = arg;
	int n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym, got;
		GElf_Addr at;
		GElf_Off off;
		const char *nm = dwfl_module_getsym_info(mod, i, &sym, &at, NULL, NULL, NULL);
		if (!nm || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size)
			continue;
		const char *want = dwfl_module_addrinfo(mod, at, &off, &got, NULL, NULL, NULL);
		if (!want || !strncmp(want, "_Z", 2))
			continue;
		char buf[512];
		pp__symbolize(w->s, at, buf, sizeof buf);
		w->checked++;
		if (strcmp(buf, want) && w->bad++ < 5)
			printf("FAIL entry 0x%" PRIx64 ": \"%s\", libdwfl names it \"%s\"\n", (uint64_t)at, buf,
			       want);
	}
	return DWARF_CB_OK;
}

static uint64_t addr_of(int (*fn)(int))
{
	return (uint64_t)(uintptr_t)fn;
}

static void expect(pp__symbolizer_t *s, const char *what, uint64_t addr,
	int want_rc, const char *want)
{
	char buf[256];
	memset(buf, 'X', sizeof buf);
	int rc = pp__symbolize(s, addr, buf, sizeof buf);
	if (rc != want_rc || strcmp(buf, want) != 0) {
		printf("FAIL %s: 0x%" PRIx64 " -> rc %d \"%s\", want rc %d \"%s\"\n",
			what, addr, rc, buf, want_rc, want);
		failures++;
	} else {
		printf("ok   %s: %s\n", what, buf);
	}
}

struct find_bias {
	uint64_t addr;
	uint64_t bias;
	int found;
};

static int bias_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find_bias *f = arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && f->addr >= lo && f->addr < lo + ph->p_memsz) {
			f->bias = info->dlpi_addr;
			f->found = 1;
			return 1;
		}
	}
	return 0;
}

/* What the fallback must print for an address of the module named base. */
static void fallback(const char *base, uint64_t addr, char *out, size_t n)
{
	struct find_bias f = { .addr = addr };
	dl_iterate_phdr(bias_cb, &f);
	if (!f.found) {
		printf("FAIL no loaded object holds 0x%" PRIx64 "\n", addr);
		failures++;
	}
	snprintf(out, n, "%s+0x%" PRIx64, base, addr - f.bias);
}

static void exe_fallback(uint64_t addr, char *out, size_t n)
{
	char path[4096];
	ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);
	path[len > 0 ? len : 0] = '\0';
	const char *base = strrchr(path, '/');
	fallback(base ? base + 1 : path, addr, out, n);
}

/* Whether this process may open /proc/self/map_files links (root, or
 * CAP_CHECKPOINT_RESTORE), which is how a deleted file stays readable. */
static int map_files_open(void)
{
	DIR *dir = opendir("/proc/self/map_files");
	if (!dir)
		return 0;
	int ok = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		char path[64 + sizeof e->d_name];
		snprintf(path, sizeof path, "/proc/self/map_files/%s", e->d_name);
		int fd = open(path, O_RDONLY);
		ok = fd >= 0;
		if (fd >= 0)
			close(fd);
		break;
	}
	closedir(dir);
	return ok;
}

static char gone_base[64];

/* Copies the library to a temporary file, loads it and removes the file:
 * the mapping then reads "(deleted)" in /proc/self/maps. */
static uint64_t load_deleted(const char *src)
{
	char tmp[] = "/tmp/pp-symtest-XXXXXX.so";
	int out = mkstemps(tmp, 3);
	int in = open(src, O_RDONLY);
	if (out < 0 || in < 0) {
		printf("FAIL cannot copy %s\n", src);
		failures++;
		return 0;
	}
	char chunk[65536];
	ssize_t got;
	while ((got = read(in, chunk, sizeof chunk)) > 0) {
		if (write(out, chunk, (size_t)got) != got) {
			printf("FAIL short write to %s\n", tmp);
			failures++;
			break;
		}
	}
	close(in);
	close(out);
	snprintf(gone_base, sizeof gone_base, "%s", tmp + strlen("/tmp/"));
	void *h = dlopen(tmp, RTLD_NOW | RTLD_LOCAL);
	unlink(tmp);
	void *fn = h ? dlsym(h, "pp_symtest_gone_fn") : NULL;
	if (!fn) {
		printf("FAIL cannot load copy of %s: %s\n", src, dlerror());
		failures++;
		return 0;
	}
	return (uint64_t)(uintptr_t)fn;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "full") && strcmp(argv[1], "stripped"))) {
		fprintf(stderr, "usage: %s full|stripped GONELIB.so\n", argv[0]);
		return 2;
	}
	int stripped = strcmp(argv[1], "stripped") == 0;
	/* Every module must be loaded before the symbolizer lists them. */
	uint64_t gone = load_deleted(argv[2]);

	char err[256] = "";
	pp__symbolizer_t *s = pp__symbolizer_open(err, sizeof err);
	if (!s) {
		printf("FAIL open: %s\n", err);
		return 1;
	}

	char want[4200];
	expect(s, "library function", addr_of(pp_symtest_lib_fn), 0, "pp_symtest_lib_fn");
	expect(s, "library function +4", addr_of(pp_symtest_lib_fn) + 4, 0, "pp_symtest_lib_fn");
	expect(s, "exported (.dynsym)", addr_of(pp_symtest_exported), 0, "pp_symtest_exported");
	expect(s, "unknown address", 0x10, 1, "0x10");
	if (gone && map_files_open()) {
		expect(s, "deleted library", gone, 0, "pp_symtest_gone_fn");
	} else if (gone) {
		fallback(gone_base, gone, want, sizeof want);
		expect(s, "deleted library (unreadable)", gone, 1, want);
	}

	if (!stripped) {
		expect(s, "global function", addr_of(pp_symtest_global), 0, "pp_symtest_global");
		expect(s, "static function", addr_of(local_fn), 0, "local_fn");
		expect(s, "global function +4", addr_of(pp_symtest_global) + 4, 0, "pp_symtest_global");
		expect(s, "static function +4", addr_of(local_fn) + 4, 0, "local_fn");
		/* Asked twice: the second answer comes from the cache. */
		expect(s, "static function again", addr_of(local_fn), 0, "local_fn");
		int has_demangler = dlsym(RTLD_DEFAULT, "__cxa_demangle") != NULL;
		uint64_t raw = (uint64_t)(uintptr_t)_ZN2ns3rawEv;
		expect(s, "mangled-looking C name", raw, 0,
			has_demangler ? "ns::raw()" : "_ZN2ns3rawEv");
	} else {
		exe_fallback(addr_of(pp_symtest_global), want, sizeof want);
		expect(s, "stripped global", addr_of(pp_symtest_global), 1, want);
		exe_fallback(addr_of(local_fn), want, sizeof want);
		expect(s, "stripped static", addr_of(local_fn), 1, want);
		expect(s, "stripped static again", addr_of(local_fn), 1, want);
	}

	struct sweep w = { s, 0, 0 };
	dwfl_getmodules(pp__symbolizer_dwfl(s), sweep_module, &w, 0);
	if (w.bad || w.checked < 1000) {
		printf("FAIL function entries: %u of %u named otherwise than libdwfl names them\n", w.bad,
		       w.checked);
		failures++;
	} else {
		printf("ok   function entries: %u named as libdwfl names them\n", w.checked);
	}

	/* Truncation keeps the NUL; n == 0 writes nothing. */
	char small[5] = "abcd";
	int rc = pp__symbolize(s, addr_of(pp_symtest_lib_fn), small, sizeof small);
	if (rc != 0 || strcmp(small, "pp_s") != 0) {
		printf("FAIL truncation: rc %d \"%s\"\n", rc, small);
		failures++;
	}
	char untouched = 'Q';
	pp__symbolize(s, addr_of(pp_symtest_lib_fn), &untouched, 0);
	if (untouched != 'Q') {
		printf("FAIL n == 0 wrote to the buffer\n");
		failures++;
	}

	/* The vdso has no file behind it: either a symbol of its .dynsym or the
	 * run-independent fallback, never the pid that libdwfl puts in its name. */
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
	if (vdso) {
		char buf[256] = "";
		rc = pp__symbolize(s, vdso + 0x700, buf, sizeof buf);
		int ok = rc == 0 ? buf[0] != '\0' && !strchr(buf, '[') : strcmp(buf, "[vdso]+0x700") == 0;
		printf("%s vdso: rc %d \"%s\"\n", ok ? "ok  " : "FAIL", rc, buf);
		if (!ok)
			failures++;
	}

	pp__symbolizer_close(s);
	pp__symbolizer_close(NULL);
	printf("%s: %d failure(s)\n", argv[1], failures);
	return failures ? 1 : 0;
}
