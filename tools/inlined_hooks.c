/* GCC and Clang insert -finstrument-functions' hook calls into each function
 * before they inline it, so a function inlined into another brings its hook
 * calls along. Dropping the host from the gated set (gcc's exclude list)
 * leaves them there: every call of the host then pays for a frame, saved
 * registers and the hooks' arguments, even where the inlined callee's branch
 * is not taken. On SQLite, sqlite3VdbeRecordCompare inlined into the dropped
 * vdbeRecordCompareInt cost that function 68 % more instructions, 16.8 M in
 * a run whose kept gates' own hooks took 11.6 M (bench/README.md, "Gates
 * inlined into dropped functions").
 *
 * The LLVM plugin's pass runs before inlining too, and its gates do the same.
 *
 * The profile cannot see this: it names the gates that ran, not where their
 * code sits. The machine code does. objdump, which perf annotate also
 * reads, disassembles the program (and each shared library given beside
 * it); each call of the entry hook has its
 * first argument loaded a few instructions before, then moved into %rdi:
 * for cyg the gated function's address (`lea f(%rip),%reg`, or `mov
 * $addr,%reg` in code that is not position-independent), for the plugin
 * its key, the FNV-1a hash of its mangled name (`movabs $key,%reg`;
 * frontends/plugin/select.cpp). A call in one function's code for another
 * function is that function, inlined. The scan follows registers along the
 * code as written, not along its branches: a load on one branch and a call
 * on another can pair wrongly, at worst dropping one function more. Names
 * are demangled by c++filt, as objdump -C would. x86-64 only. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "inlined_hooks.h"
#include "map.h"

extern char **environ;

/* The sixteen general registers, by any of their names' 64- or 32-bit
 * forms; -1 for anything else. */
static int reg_index(const char *s, size_t n)
{
	static const char *const r64[] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi" };
	static const char *const r32[] = { "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi" };
	if (n < 2 || s[0] != '%')
		return -1;
	s++, n--;
	for (int i = 0; i < 8; i++)
		if (n == 3 && (!memcmp(s, r64[i], 3) || !memcmp(s, r32[i], 3)))
			return i;
	if (s[0] == 'r' && n >= 2 && s[1] >= '0' && s[1] <= '9') {
		int k = s[1] - '0';
		size_t used = 2;
		if (n >= 3 && s[2] >= '0' && s[2] <= '9')
			k = k * 10 + (s[2] - '0'), used = 3;
		if (k >= 8 && k <= 15 && (n == used || (n == used + 1 && s[used] == 'd')))
			return k;
	}
	return -1;
}

#define X86_RDI 7
/* clobbered by a call (System V): rax rcx rdx rsi rdi r8-r11 */
static const int caller_saved[] = { 0, 1, 2, 6, 7, 8, 9, 10, 11 };

/* A (mangled) function name without the suffix of a compiler's clone of
 * it (`f.part.0`, `f.cold`, `_Z1fi.isra.0`): no C or C++ identifier holds
 * a dot. */
static size_t base_len(const char *s)
{
	const char *dot = strchr(s, '.');
	return dot && dot != s ? (size_t)(dot - s) : strlen(s);
}

uint64_t pp__plugin_key(const char *mangled)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0, n = base_len(mangled); i < n; i++) {
		h ^= (unsigned char)mangled[i];
		h *= 0x100000001b3ull;
	}
	return h ? h : 1;
}

/* Run argv with its standard output on a pipe, its standard input from
 * the file in (or none), standard error discarded (a failure is told by
 * its exit status). NULL when it cannot start. */
static FILE *spawn_reader(char *const argv[], FILE *in, pid_t *pid)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (in)
		posix_spawn_file_actions_adddup2(&fa, fileno(in), 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	int rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		errno = rc;
		return NULL;
	}
	FILE *f = fdopen(fds[0], "r");
	if (!f)
		close(fds[0]);
	return f;
}

static int reaped_ok(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The binary's GNU build id, as hex, from readelf; "" when it has none. 0,
 * or -1 after one line. */
static int binary_build_id(const char *binary, char *out, size_t n)
{
	char *argv[] = { "readelf", "-n", "-W", "--", (char *)binary, NULL };
	pid_t pid;
	FILE *f = spawn_reader(argv, NULL, &pid);
	if (!f) {
		cli_error("select: --binary: cannot run readelf (binutils): %s", strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	out[0] = '\0';
	while (getline(&line, &cap, f) > 0) {
		const char *s = strstr(line, "Build ID: ");
		if (s && !out[0])
			snprintf(out, n, "%.*s", (int)strcspn(s + 10, " \n"), s + 10);
	}
	free(line);
	fclose(f);
	if (!reaped_ok(pid)) {
		cli_error("select: --binary: %s: readelf cannot read it: not an ELF file?", binary);
		return -1;
	}
	return 0;
}

typedef struct scan {
	const char *hook; /* "<name" of the entry hook, as objdump prints its calls */
	int plugin;       /* the plugin's keys (name hashes), not cyg's addresses */
	pp__map_t starts; /* function start address, or plugin key -> index in names */
	char **names;     /* every function's name as objdump gives it */
	size_t nnames, cap;
	size_t nfuncs;    /* ... of them symbols (not a section's or a PLT entry's
			   * name, which objdump makes up for a stripped file) */
	uint64_t *calls;  /* (host name index, key address or hash) pairs */
	size_t ncalls, capcalls;
} scan_t;

/* One line of `objdump -d -w --no-show-raw-insn`: a function's header
 * (`addr <name>:`) or an instruction (`  addr:\tmnem ops  # target <sym>`).
 * reg[] holds what each register was last loaded with (an address, or 0
 * for unknown). */
static int scan_line(scan_t *s, char *line, uint64_t reg[16])
{
	size_t len = strlen(line);
	while (len && (line[len - 1] == '\n' || line[len - 1] == ' '))
		line[--len] = '\0';
	char *end;
	if (line[0] != ' ') {
		uint64_t addr = strtoull(line, &end, 16);
		if (end == line || strncmp(end, " <", 2) || len < 3 || strcmp(line + len - 2, ">:"))
			return 0;
		line[len - 2] = '\0';
		memset(reg, 0, 16 * sizeof *reg);
		if (cli_grow((void **)&s->names, &s->cap, s->nnames, sizeof *s->names) != 0 ||
		    !(s->names[s->nnames] = strdup(end + 2)))
			return -1;
		uint32_t idx = (uint32_t)s->nnames++;
		s->nfuncs += s->names[idx][0] != '.' && !strchr(s->names[idx], '@');
		uint32_t old;
		uint64_t k = s->plugin ? pp__plugin_key(s->names[idx]) : addr;
		if (!pp__map_get(&s->starts, k, &old) && pp__map_put(&s->starts, k, idx) != 0)
			return -1;
		return 0;
	}
	char *tab = strchr(line, '\t');
	if (!tab || !s->nnames)
		return 0;
	char *mnem = tab + 1, *ops = mnem + strcspn(mnem, " ");
	size_t mlen = (size_t)(ops - mnem);
	ops += strspn(ops, " ");
	char *comment = strstr(ops, "# ");
	size_t olen = comment ? (size_t)(comment - ops) : strlen(ops);
	while (olen && ops[olen - 1] == ' ')
		olen--;
	if (mlen >= 4 && !strncmp(mnem, "call", 4)) {
		const char *at = strstr(ops, s->hook);
		size_t hl = strlen(s->hook);
		if (at && (at[hl] == '>' || !strncmp(at + hl, "@plt>", 5))) {
			if (reg[X86_RDI]) {
				if (cli_grow((void **)&s->calls, &s->capcalls, s->ncalls + 1, sizeof *s->calls) != 0)
					return -1;
				s->calls[s->ncalls++] = s->nnames - 1;
				s->calls[s->ncalls++] = reg[X86_RDI];
			}
		}
		for (size_t i = 0; i < sizeof caller_saved / sizeof *caller_saved; i++)
			reg[caller_saved[i]] = 0;
		return 0;
	}
	/* the destination: the last operand (AT&T order) */
	char *comma = NULL;
	int depth = 0;
	for (size_t i = 0; i < olen; i++) {
		if (ops[i] == '(')
			depth++;
		else if (ops[i] == ')')
			depth--;
		else if (ops[i] == ',' && depth == 0)
			comma = ops + i;
	}
	const char *dst = comma ? comma + 1 : ops;
	int d = reg_index(dst, (size_t)(ops + olen - dst));
	if (d < 0)
		return 0;
	uint64_t value = 0;
	if (mlen == 3 && !strncmp(mnem, "lea", 3) && comment && strstr(ops, "(%rip)"))
		value = strtoull(comment + 2, NULL, 16);
	else if (mlen >= 3 && !strncmp(mnem, "mov", 3) && comma && ops[0] == '$')
		value = strtoull(ops + 1, NULL, 16);
	else if (mlen >= 3 && !strncmp(mnem, "mov", 3) && comma) {
		int from = reg_index(ops, (size_t)(comma - ops));
		if (from >= 0)
			value = reg[from];
	}
	reg[d] = value;
	return 0;
}

void pp__inlined_free(pp__inlined_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].host);
		free(v[i].key);
	}
	free(v);
}

static void scan_free(scan_t *s)
{
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->calls);
	pp__map_free(&s->starts);
}

/* The calls' pairs, named (mangled), each once, a function's own hooks
 * left out. */
static int pairs_of(const scan_t *s, pp__inlined_t **out, size_t *n)
{
	pp__inlined_t *v = NULL;
	size_t nv = 0, cap = 0;
	for (size_t i = 0; i < s->ncalls; i += 2) {
		uint32_t k;
		int named = pp__map_get(&s->starts, s->calls[i + 1], &k);
		if (!named && !s->plugin)
			continue; /* not a function's start: not a key */
		const char *h = s->names[s->calls[i]], *g = named ? s->names[k] : NULL;
		uint64_t hash = s->plugin ? s->calls[i + 1] : 0;
		char *host = strndup(h, base_len(h)), *key = g ? strndup(g, base_len(g)) : NULL;
		/* a function's own gate is not an inlined one */
		int own = s->plugin ? host && pp__plugin_key(host) == hash : host && key && !strcmp(host, key);
		int keep = host && (key || !g) && !own;
		/* once a pair: a plugin key is its hash, a cyg one always named */
		for (size_t j = 0; keep && j < nv; j++)
			keep = strcmp(v[j].host, host) || (s->plugin ? v[j].hash != hash : strcmp(v[j].key, key) != 0);
		if (keep && cli_grow((void **)&v, &cap, nv, sizeof *v) == 0) {
			v[nv++] = (pp__inlined_t){ host, key, hash };
			continue;
		}
		int failed = !host || (g && !key) || keep;
		free(host);
		free(key);
		if (failed) {
			pp__inlined_free(v, nv);
			return -1;
		}
	}
	*out = v;
	*n = nv;
	return 0;
}

/* The pairs' C++ names demangled, by c++filt (binutils' demangler, the
 * one objdump -C uses), each name one line in and one line out. 0, or -1
 * after one line. */
static int demangle_pairs(pp__inlined_t *v, size_t n)
{
	FILE *in = tmpfile();
	size_t mangled = 0;
	for (size_t i = 0; in && i < n; i++)
		for (int k = 0; k < 2; k++) {
			const char *name = k ? v[i].key : v[i].host;
			if (name && !strncmp(name, "_Z", 2))
				fprintf(in, "%s\n", name), mangled++;
		}
	if (!mangled) {
		if (in)
			fclose(in);
		return 0;
	}
	if (!in || fflush(in) != 0 || fseek(in, 0, SEEK_SET) != 0) {
		cli_error("select: --binary: cannot write a temporary file: %s", strerror(errno));
		if (in)
			fclose(in);
		return -1;
	}
	char *argv[] = { "c++filt", NULL };
	pid_t pid;
	FILE *f = spawn_reader(argv, in, &pid);
	fclose(in);
	if (!f) {
		cli_error("select: --binary: cannot run c++filt (binutils): %s", strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		for (int k = 0; rc == 0 && k < 2; k++) {
			char **name = k ? &v[i].key : &v[i].host;
			if (!*name || strncmp(*name, "_Z", 2))
				continue;
			ssize_t len = getline(&line, &cap, f);
			if (len <= 0) {
				rc = -1;
				break;
			}
			line[strcspn(line, "\n")] = '\0';
			char *d = strdup(line);
			if (!d) {
				rc = -1;
				break;
			}
			free(*name);
			*name = d;
		}
	free(line);
	fclose(f);
	if (!reaped_ok(pid) || rc != 0) {
		cli_error("select: --binary: c++filt did not demangle the program's names");
		return -1;
	}
	return 0;
}

/* A little-endian field of n bytes (at most 8) at p. */
static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Is the ELF64 file fd, whose header is h (64 bytes), a shared library: a
 * position-independent object (ET_DYN) that names no program interpreter
 * (PT_INTERP), which a PIE executable does? */
static int shared_library(int fd, const unsigned char *h)
{
	if (le(h + 16, 2) != 3)
		return 0;
	uint64_t off = le(h + 32, 8), size = le(h + 54, 2), count = le(h + 56, 2);
	for (uint64_t i = 0; i < count && size >= 4; i++) {
		unsigned char type[4];
		if (pread(fd, type, 4, (off_t)(off + i * size)) != 4)
			return 0;
		if (le(type, 4) == 3)
			return 0;
	}
	return 1;
}

int pp__inlined_hooks(const char *binary, const char *build_id, int plugin, pp__inlined_t **out,
		      size_t *n)
{
	/* the ELF64 header: magic, class, data, (offset 16) the type, (18) the
	 * machine, 62 for x86-64, whose instructions the scan reads, and
	 * where the program headers are */
	int fd = open(binary, O_RDONLY | O_CLOEXEC);
	unsigned char h[64] = { 0 };
	const char *bad = NULL;
	int library = 0;
	if (fd < 0)
		bad = strerror(errno);
	else if (read(fd, h, 20) != 20 || memcmp(h, "\177ELF", 4))
		bad = "not an ELF file";
	else if (h[4] != 2 || h[5] != 1 || h[18] != 62 || h[19] != 0)
		bad = "not an x86-64 program (the only code --binary reads)";
	else
		library = pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h && shared_library(fd, h);
	if (fd >= 0)
		close(fd);
	if (bad) {
		cli_error("select: --binary: %s: %s", binary, bad);
		return -1;
	}
	char id[128];
	if (binary_build_id(binary, id, sizeof id) != 0)
		return -1;
	/* a library's build cannot be checked: the profile records the
	 * program's build id alone */
	if (build_id && build_id[0] && strncmp(id, build_id, strlen(build_id)) && !library) {
		cli_error("select: --binary: %s is neither the profile's program (build id %s, the "
			  "profile's %s) nor a shared library",
			  binary, id[0] ? id : "none", build_id);
		return -1;
	}
	char *argv[] = { "objdump", "-d", "-w", "--no-show-raw-insn", "--", (char *)binary, NULL };
	pid_t pid;
	FILE *f = spawn_reader(argv, NULL, &pid);
	if (!f) {
		cli_error("select: --binary: cannot run objdump (binutils): %s", strerror(errno));
		return -1;
	}
	scan_t s = { .hook = plugin ? "<pp_plugin_enter" : "<__cyg_profile_func_enter", .plugin = plugin };
	uint64_t reg[16] = { 0 };
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	while (rc == 0 && getline(&line, &cap, f) > 0)
		rc = scan_line(&s, line, reg);
	free(line);
	fclose(f); /* a reader that stopped early ends objdump by a broken pipe */
	int ok = reaped_ok(pid);
	if (rc != 0)
		cli_error("select: --binary: out of memory");
	else if (!ok)
		cli_error("select: --binary: objdump could not disassemble %s", binary);
	else if (!s.nfuncs)
		cli_error("select: --binary: %s has no function symbols (stripped?): its code cannot say "
			  "which function holds which gate", binary), ok = 0;
	else if ((rc = pairs_of(&s, out, n)) != 0)
		cli_error("select: --binary: out of memory");
	else if ((rc = demangle_pairs(*out, *n)) != 0)
		pp__inlined_free(*out, *n);
	scan_free(&s);
	return rc == 0 && ok ? 0 : -1;
}
