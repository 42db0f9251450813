/* A GCC plugin that applies a cyg function selection at compile time: each
 * function the list leaves out is compiled as if marked
 * no_instrument_function, so it has no hook calls at all and GCC inlines
 * and optimises it as in a plain build. pathprof-cc loads it for
 * --functions and --exclude-functions with gcc (docs/reference/cyg.md).
 *
 * Why a plugin: gcc's own -finstrument-functions-exclude-function-list
 * matches substrings of its own spelling of a name, which for C++ is
 * neither the demangler's nor the report's (no parameters, default
 * template arguments left out, `long unsigned int`), so no name `pathprof
 * select` writes could name a C++ function; the runtime's selection
 * (PATHPROF_FUNCTIONS) matches the report's names but leaves the code
 * -finstrument-functions made (simdjson rebuilt that way ran at 7x its
 * plain time). Here each function is named as the runtime names it (its
 * assembler name, demangled by the same __cxa_demangle) and matched by the
 * same code (format/glob.c), so the list means what it means at run time.
 *
 * Arguments (-fplugin-arg-pathprof_gcc_select-KEY=VALUE; gcc ends a
 * plugin's name at its first hyphen, hence the underscores):
 *   functions=LIST   a selection list, the runtime's syntax ('!' excludes)
 *   exclude=FILE     one name or glob a line, each excluded (pathprof
 *                    select's output); blank lines skipped
 * Both may be given: the file's entries are added to the list. */
#include "gcc-plugin.h"
#include "plugin-version.h"
#include "tree.h"
#include "diagnostic-core.h"

#include <cxxabi.h>

#include "glob.h"

/* GCC's plugin API expects this symbol; pathprof's MIT licence is
 * compatible with the GPL. */
int plugin_is_GPL_compatible;

static char *list; /* the selection, the runtime's syntax */

/* The list with s appended as one more entry: a comma, prefix, s. */
static void append(const char *prefix, const char *s, size_t n)
{
	size_t have = list ? strlen(list) : 0;
	list = (char *)xrealloc(list, have + 1 + strlen(prefix) + n + 1);
	char *p = list + have;
	if (have)
		*p++ = ',';
	p = stpcpy(p, prefix);
	memcpy(p, s, n);
	p[n] = '\0';
}

/* Each non-blank line of path excluded. 0, or -1 with an error given. */
static int read_excludes(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		error("pathprof-gcc-select: cannot read %s: %m", path);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' ||
				 line[n - 1] == '\t'))
			n--;
		size_t s = 0;
		while ((ssize_t)s < n && (line[s] == ' ' || line[s] == '\t'))
			s++;
		if ((ssize_t)s < n)
			append("!", line + s, (size_t)n - s);
	}
	free(line);
	fclose(f);
	return 0;
}

/* Every function with a body passes here before it is gimplified, where
 * -finstrument-functions puts its hook calls. */
static void before_genericize(void *gcc_data, void *)
{
	tree fn = (tree)gcc_data;
	if (!fn || TREE_CODE(fn) != FUNCTION_DECL || DECL_NO_INSTRUMENT_FUNCTION_ENTRY_EXIT(fn))
		return;
	const char *mangled = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fn));
	int status = 0;
	char *demangled = abi::__cxa_demangle(mangled, NULL, NULL, &status);
	if (!pp__select_name(list, ',', status == 0 && demangled ? demangled : mangled))
		DECL_NO_INSTRUMENT_FUNCTION_ENTRY_EXIT(fn) = 1;
	free(demangled);
}

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version)) {
		error("pathprof-gcc-select: built for gcc %s, loaded into gcc %s: rebuild pathprof with this gcc",
		      gcc_version.basever, version->basever);
		return 1;
	}
	for (int i = 0; i < info->argc; i++) {
		const char *k = info->argv[i].key, *v = info->argv[i].value;
		if (!strcmp(k, "functions") && v) {
			append("", v, strlen(v));
		} else if (!strcmp(k, "exclude") && v) {
			if (read_excludes(v) != 0)
				return 1;
		} else {
			error("pathprof-gcc-select: unknown argument '%s' (functions=LIST, exclude=FILE)", k);
			return 1;
		}
	}
	if (!list)
		return 0; /* nothing to select: every function instrumented */
	char err[256];
	if (pp__select_check(list, ',', err, sizeof err) != 0) {
		error("pathprof-gcc-select: the function list: %s", err);
		return 1;
	}
	register_callback(info->base_name, PLUGIN_PRE_GENERICIZE, before_genericize, NULL);
	return 0;
}
