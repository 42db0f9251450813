/* Code address -> function name for cyg keys, resolved at dump time through
 * elfutils' libdwfl over this process's own modules: the .symtab of the file
 * or of its separate debug file (so static functions resolve without
 * -rdynamic), else .dynsym. Answers are cached per address because a dump asks
 * for the same few addresses once per path that contains them.
 *
 * libdwfl looks an address up by reading every symbol of its module, each
 * time: on SQLite (1 000 keys, 3 000 symbols) a third of the process's run
 * went there, in the namer and the dump. A key is a function's entry, so
 * each module's symbols are read once into a table sorted by address; an
 * address that starts exactly one symbol of non-zero size is named from
 * it, anything else (no symbol there, or several: aliases, whose choice is
 * libdwfl's) is asked of libdwfl as before, so the names do not change. */
#define _GNU_SOURCE
#include "symbolize.h"
#include "fd_high.h"
#include "map.h"

#include <dirent.h>
#include <errno.h>
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Not thread-safe by design: the only caller is the dump path, which already
 * holds its own lock while it resolves names, and libdwfl itself is not safe
 * to share between threads. */

typedef char *(*demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

struct answer {
	char *name;
	int rc;
};

/* A module's symbols by address (struct pp__symbolizer's index): where a
 * symbol of non-zero size starts, its name, and whether it is the only one
 * starting there. */
struct start {
	uint64_t addr;
	const char *name;
	int only;
};

struct module_index {
	Dwfl_Module *mod;
	struct start *v; /* NULL: the module's symbols could not be read */
	size_t n;
};

struct pp__symbolizer {
	Dwfl *dwfl;
	char *debuginfo_path;	/* libdwfl keeps a pointer to this field */
	Dwfl_Callbacks callbacks;
	demangle_fn demangle;
	pp__map_t cache;	/* address -> index in answers */
	struct answer *answers;
	size_t nanswers, cap;
	struct module_index *modules; /* one per module asked about */
	size_t nmodules;
};

static const char deleted_tag[] = " (deleted)";

static int is_deleted(const char *name)
{
	size_t len = strlen(name), tag = sizeof deleted_tag - 1;
	return len > tag && strcmp(name + len - tag, deleted_tag) == 0;
}

/* A file deleted after it was mapped (a library upgraded under a running
 * program) is gone by name, but /proc/self/map_files still reaches the inode.
 * Opening those links needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE, so
 * unprivileged runs fall back to module+offset. */
static int open_deleted(Dwfl_Module *mod)
{
	Dwarf_Addr low = 0;
	dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
	DIR *dir = opendir("/proc/self/map_files");
	if (!dir)
		return -1;
	int fd = -1;
	struct dirent *e;
	while (fd < 0 && (e = readdir(dir))) {
		char *dash;
		unsigned long long start = strtoull(e->d_name, &dash, 16);
		if (*dash != '-' || start != low)
			continue;
		char path[64 + sizeof e->d_name];
		snprintf(path, sizeof path, "/proc/self/map_files/%s", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	closedir(dir);
	return fd;
}

/* The descriptors a symbolizer opens live in the process's table while
 * it lives, and the symbolizers that name keys on the program's threads (a
 * trace's or a selection's first sights, the exit dump) live in the
 * program's table. A daemon closing every descriptor and opening its own
 * files gets those numbers back: libdwfl's close of its module files at
 * dwfl_end then closed the program's log (a selection reopened after a
 * dlopen(): the program's next write failed, EBADF). So every such
 * descriptor is moved to a number near the top of the table, where a
 * program's lowest-free open does not reach, and is closed only while it
 * is still the file it was (device and inode): the module's own file by
 * us (libdwfl gets only its Elf), a separate debug file by libdwfl's
 * dwfl_end, which is not called when one of those changed hands (the
 * session is left unfreed instead: memory, never the program's file). */
struct owned {
	int fd, debug_fd;
	dev_t dev, debug_dev;
	ino_t ino, debug_ino;
};

/* fd moved where the program's opens do not reach; its identity. */
static int own_fd(int fd, dev_t *dev, ino_t *ino)
{
	fd = pp__fd_high(fd);
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	*dev = st.st_dev;
	*ino = st.st_ino;
	return fd;
}

static int still_ours(int fd, dev_t dev, ino_t ino)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

static struct owned *owned_of(void **userdata)
{
	if (!*userdata) {
		struct owned *o = calloc(1, sizeof *o);
		if (o) {
			o->fd = o->debug_fd = -1;
			*userdata = o;
		}
	}
	return *userdata;
}

/* The file is read, not mapped. libelf maps it privately by default, and
 * such a copy of a library's file, when it lands next to the library, reads
 * in /proc/self/maps as part of it: another symbolizer listing the modules
 * meanwhile (the trace naming keys at first sight, the live namer, the
 * dump) would place the library's symbols at the wrong addresses. libelf is
 * loaded with libdw; elf_begin is looked up rather than linked so that the
 * runtime's link lines need no -lelf. libdwfl gets the Elf and no
 * descriptor (-1): the module's userdata keeps it (struct owned). */
typedef Elf *(*elf_begin_fn)(int fd, Elf_Cmd cmd, Elf *ref);

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name,
	Dwarf_Addr base, char **file_name, Elf **elfp)
{
	static elf_begin_fn begin;
	int fd = dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	if (fd < 0 && !*elfp && is_deleted(name))
		fd = open_deleted(mod);
	if (fd < 0 || *elfp)
		return fd;
	elf_begin_fn fn = __atomic_load_n(&begin, __ATOMIC_RELAXED);
	if (!fn) {
		void *sym = dlsym(RTLD_DEFAULT, "elf_begin");
		memcpy(&fn, &sym, sizeof fn);
		__atomic_store_n(&begin, fn, __ATOMIC_RELAXED);
	}
	struct owned *o = owned_of(userdata);
	if (!fn || !o || o->fd >= 0)
		return fd; /* libdwfl opens and owns it, as it would without us */
	if ((fd = own_fd(fd, &o->dev, &o->ino)) < 0)
		return -1;
	if (!(*elfp = fn(fd, ELF_C_READ, NULL))) {
		close(fd);
		return -1;
	}
	o->fd = fd;
	return -1;
}

/* A separate debug file, found as libdwfl finds it; libdwfl owns the
 * descriptor (it reads the file through it) and closes it at dwfl_end. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					      debuglink_crc, debuginfo_file_name);
	struct owned *o;
	if (fd < 0 || !(o = owned_of(userdata)) || o->debug_fd >= 0)
		return fd;
	if ((fd = own_fd(fd, &o->debug_dev, &o->debug_ino)) >= 0)
		o->debug_fd = fd;
	return fd;
}

/* dwfl_getmodules: whether libdwfl may close every debug file it holds
 * (*arg cleared when not): each is still the file it opened, or no file
 * at all (libdwfl gave it up early: its close then meets nothing). */
static int debug_files_ours(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
			    void *arg)
{
	(void)mod, (void)name, (void)start;
	const struct owned *o = *userdata;
	struct stat st;
	if (o && o->debug_fd >= 0 && !still_ours(o->debug_fd, o->debug_dev, o->debug_ino) &&
	    !(fstat(o->debug_fd, &st) != 0 && errno == EBADF))
		*(int *)arg = 0;
	return DWARF_CB_OK;
}

/* dwfl_getmodules: a module's own file closed while it is still ours. */
static int close_owned(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
		       void *arg)
{
	(void)mod, (void)name, (void)start, (void)arg;
	struct owned *o = *userdata;
	if (o && still_ours(o->fd, o->dev, o->ino))
		close(o->fd);
	free(o);
	*userdata = NULL;
	return DWARF_CB_OK;
}

/* A symbolizer with libdwfl started and no module reported yet. */
static pp__symbolizer_t *symbolizer_begin(char *err, size_t errlen)
{
	pp__symbolizer_t *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "symbolize: out of memory");
		return NULL;
	}
	s->callbacks.find_elf = find_elf;
	s->callbacks.find_debuginfo = find_debuginfo;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	s->dwfl = dwfl_begin(&s->callbacks);
	if (!s->dwfl) {
		snprintf(err, errlen, "symbolize: cannot start libdwfl: %s",
			dwfl_errmsg(-1));
		free(s);
		return NULL;
	}
	/* Looked up rather than linked so the runtime does not drag libstdc++
	 * into C programs; those have no mangled names to show anyway. */
	void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	memcpy(&s->demangle, &sym, sizeof s->demangle);
	return s;
}

/* rc from dwfl_report_end or a report: an errno value, or -1 with the
 * reason in dwfl_errmsg. */
static pp__symbolizer_t *symbolizer_ready(pp__symbolizer_t *s, int rc, const char *what, char *err,
					  size_t errlen)
{
	if (rc == 0)
		return s;
	snprintf(err, errlen, "symbolize: cannot list %s: %s", what,
		 rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
	dwfl_end(s->dwfl);
	free(s);
	return NULL;
}

pp__symbolizer_t *pp__symbolizer_open(char *err, size_t errlen)
{
	pp__symbolizer_t *s = symbolizer_begin(err, errlen);
	if (!s)
		return NULL;
	int rc = dwfl_linux_proc_report(s->dwfl, getpid());
	if (rc == 0)
		rc = dwfl_report_end(s->dwfl, NULL, NULL);
	return symbolizer_ready(s, rc, "this process's modules", err, errlen);
}

pp__symbolizer_t *pp__symbolizer_open_files(const char *const *paths, const uint64_t *bias, size_t n,
					    char *err, size_t errlen)
{
	pp__symbolizer_t *s = symbolizer_begin(err, errlen);
	if (!s)
		return NULL;
	/* The tool, a C program, has no demangler of its own. */
	if (!s->demangle) {
		void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		void *sym = lib ? dlsym(lib, "__cxa_demangle") : NULL;
		memcpy(&s->demangle, &sym, sizeof s->demangle);
	}
	/* A file that cannot be read is left out: its addresses stay
	 * unnamed, the others are named. The bias is where the writer had
	 * the file's address 0 (add_p_vaddr: as a dynamic loader places it). */
	for (size_t i = 0; i < n; i++)
		dwfl_report_elf(s->dwfl, paths[i], paths[i], -1, bias[i], true);
	return symbolizer_ready(s, dwfl_report_end(s->dwfl, NULL, NULL), "the files", err, errlen);
}

struct Dwfl *pp__symbolizer_dwfl(pp__symbolizer_t *s)
{
	return s->dwfl;
}

void pp__symbolizer_close(pp__symbolizer_t *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nanswers; i++)
		free(s->answers[i].name);
	free(s->answers);
	pp__map_free(&s->cache);
	for (size_t i = 0; i < s->nmodules; i++)
		free(s->modules[i].v);
	free(s->modules);
	int ours = 1;
	dwfl_getmodules(s->dwfl, debug_files_ours, &ours, 0);
	/* libelf never closes a descriptor nor reads at elf_end: the
	 * modules' own files may close before their Elf handles end */
	dwfl_getmodules(s->dwfl, close_owned, NULL, 0);
	if (ours)
		dwfl_end(s->dwfl);
	free(s);
}

/* Takes ownership of name. A failed insert only costs a later re-lookup. */
static void cache_put(pp__symbolizer_t *s, uint64_t addr, char *name, int rc)
{
	if (s->nanswers == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		/* Indexes are 32-bit map values. */
		struct answer *grown = cap <= UINT32_MAX
			? realloc(s->answers, cap * sizeof *grown) : NULL;
		if (!grown) {
			free(name);
			return;
		}
		s->answers = grown;
		s->cap = cap;
	}
	if (pp__map_put(&s->cache, addr, (uint32_t)s->nanswers) != 0) {
		free(name);
		return;
	}
	s->answers[s->nanswers++] = (struct answer){ .name = name, .rc = rc };
}

static char *demangled(pp__symbolizer_t *s, const char *raw)
{
	if (!s->demangle || strncmp(raw, "_Z", 2) != 0)
		return NULL;
	int status = -1;
	char *out = s->demangle(raw, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* "<module>+0x<offset>" with the parts of the module name that change from
 * run to run dropped ("[vdso: 1234]" -> "[vdso]", " (deleted)"), since path
 * ids hash these names and must stay stable across runs. */
static char *fallback_name(const char *modname, uint64_t rel)
{
	const char *base = strrchr(modname, '/');
	base = base ? base + 1 : modname;
	size_t len = strlen(base);
	if (is_deleted(base))
		len -= sizeof deleted_tag - 1;
	if (len == 0) {
		base = "?";
		len = 1;
	}
	char *out = NULL;
	const char *colon = base[0] == '[' ? strchr(base, ':') : NULL;
	int rc = colon
		? asprintf(&out, "%.*s]+0x%" PRIx64, (int)(colon - base), base, rel)
		: asprintf(&out, "%.*s+0x%" PRIx64, (int)len, base, rel);
	return rc < 0 ? NULL : out;
}

static int by_start(const void *a, const void *b)
{
	uint64_t x = ((const struct start *)a)->addr, y = ((const struct start *)b)->addr;
	return x < y ? -1 : x > y;
}

/* mod's symbols of non-zero size (all but sections, files and TLS: what
 * libdwfl weighs too), sorted by start, read at its first lookup. */
static const struct module_index *index_of(pp__symbolizer_t *s, Dwfl_Module *mod)
{
	for (size_t i = 0; i < s->nmodules; i++)
		if (s->modules[i].mod == mod)
			return &s->modules[i];
	struct module_index *m = realloc(s->modules, (s->nmodules + 1) * sizeof *m);
	if (!m)
		return NULL;
	s->modules = m;
	m = &s->modules[s->nmodules++];
	*m = (struct module_index){ .mod = mod };
	int n = dwfl_module_getsymtab(mod);
	if (n <= 0 || !(m->v = malloc((size_t)n * sizeof *m->v)))
		return m;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr at;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &at, NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || !sym.st_size || type == STT_SECTION || type == STT_FILE ||
		    type == STT_TLS)
			continue;
		m->v[m->n++] = (struct start){ at, name, 1 };
	}
	qsort(m->v, m->n, sizeof *m->v, by_start);
	for (size_t i = 1; i < m->n; i++)
		if (m->v[i].addr == m->v[i - 1].addr)
			m->v[i].only = m->v[i - 1].only = 0;
	return m;
}

/* The one symbol of mod starting at addr, or NULL (none, or several). */
static const char *started_at(pp__symbolizer_t *s, Dwfl_Module *mod, uint64_t addr)
{
	const struct module_index *m = index_of(s, mod);
	if (!m || !m->v)
		return NULL;
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->v[lo].addr == addr && m->v[lo].only ? m->v[lo].name : NULL;
}

/* Fills name (malloc'd) for addr; returns the pp__symbolize status. */
static int resolve(pp__symbolizer_t *s, uint64_t addr, char **name)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
	if (!mod) {
		if (asprintf(name, "0x%" PRIx64, addr) < 0)
			*name = NULL;
		return 1;
	}

	GElf_Off off;
	GElf_Sym sym;
	const char *raw = started_at(s, mod, addr);
	if (!raw)
		raw = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (raw && raw[0]) {
		*name = demangled(s, raw);
		if (!*name)
			*name = strdup(raw);
		return 0;
	}

	/* No symbol covers addr (stripped file, vdso without one, unreadable
	 * deleted file): module+offset still lets a person run addr2line. The
	 * offset is the link-time address when the ELF is readable, the distance
	 * from the module's first mapping otherwise. */
	Dwarf_Addr start = 0, bias = 0;
	const char *modname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	uint64_t rel = dwfl_module_getelf(mod, &bias) ? addr - bias : addr - start;
	*name = fallback_name(modname ? modname : "?", rel);
	return 1;
}

static void copy_out(char *buf, size_t n, const char *name)
{
	if (n == 0)
		return;
	size_t len = strlen(name);
	if (len >= n)
		len = n - 1;
	memcpy(buf, name, len);
	buf[len] = '\0';
}

int pp__symbolize(pp__symbolizer_t *s, uint64_t addr, char *buf, size_t n)
{
	uint32_t hit;
	if (pp__map_get(&s->cache, addr, &hit)) {
		copy_out(buf, n, s->answers[hit].name);
		return s->answers[hit].rc;
	}
	char *name = NULL;
	int rc = resolve(s, addr, &name);
	if (!name) {
		/* Out of memory: still answer, just without caching. */
		char hex[2 + 16 + 1];
		snprintf(hex, sizeof hex, "0x%" PRIx64, addr);
		copy_out(buf, n, hex);
		return 1;
	}
	copy_out(buf, n, name);
	cache_put(s, addr, name, rc);
	return rc;
}
