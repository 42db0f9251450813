/* `pathprof capture show TRACE`: the recorded calls as text, one a line,
 * without a library: what was recorded, to check a shim or read a trace
 * from production before replaying it. Each line: the call's number and
 * thread, the function with its arguments (integers and floats by value,
 * strings quoted and cut at 40 bytes, buffers by length, handles as #id),
 * its return value and its out parameters after "->". */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "capture_cli.h"
#include "capture_trace.h"
#include "input.h"

static void put_bytes(FILE *o, const pp__cap_val_t *v, int str)
{
	if (!v->present) {
		fputs("NULL", o);
		return;
	}
	if (!str) {
		fprintf(o, "[%llu bytes]", (unsigned long long)v->len);
		return;
	}
	fputc('"', o);
	for (uint64_t i = 0; i < v->len && i < 40; i++) {
		unsigned char ch = v->bytes[i];
		if (ch == '"' || ch == '\\')
			fprintf(o, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(o, "\\x%02x", ch);
		else
			fputc(ch, o);
	}
	fputs(v->len > 40 ? "\"..." : "\"", o);
}

static void put_value(FILE *o, int kind, uint32_t size, const pp__cap_val_t *v, int after)
{
	double d;
	switch (kind) {
	case PP_CAP_SINT: fprintf(o, "%lld", (long long)v->u); break;
	case PP_CAP_UINT: fprintf(o, "%llu", (unsigned long long)v->u); break;
	case PP_CAP_FLOAT:
		memcpy(&d, &v->u, sizeof d);
		fprintf(o, "%.*g", size == 4 ? 9 : 17, d);
		break;
	case PP_CAP_STR: put_bytes(o, v, 1); break;
	case PP_CAP_BUF_IN: case PP_CAP_BUF_INOUT: put_bytes(o, v, 0); break;
	case PP_CAP_HANDLE: case PP_CAP_HANDLE_FREE:
		if (v->u)
			fprintf(o, "#%llu", (unsigned long long)v->u);
		else
			fputs("NULL", o);
		break;
	case PP_CAP_HANDLE_OUT:
		if (after)
			fprintf(o, "#%llu", (unsigned long long)v->u);
		else
			fputs(v->present ? "&handle" : "NULL", o);
		break;
	case PP_CAP_BUF_OUT:
		if (after)
			put_bytes(o, v, 0);
		else
			fputs(v->present ? "&buffer" : "NULL", o);
		break;
	case PP_CAP_BUF_RET: put_bytes(o, v, 0); break;
	case PP_CAP_STR_OUT:
		if (after)
			put_bytes(o, v, 1);
		else
			fputs(v->present ? "&string" : "NULL", o);
		break;
	case PP_CAP_TAIL_OUT:
		if (after && v->u)
			fprintf(o, "+%llu", (unsigned long long)v->u - 1);
		else
			fputs(after ? "NULL" : v->present ? "&tail" : "NULL", o);
		break;
	case PP_CAP_OPAQUE: fputs(v->present ? "ptr" : "NULL", o); break;
	case PP_CAP_CALLBACK: fputs(v->present ? "&callback" : "NULL", o); break;
	case PP_CAP_STRV:
		if (v->present)
			fprintf(o, "[%llu strings]", (unsigned long long)v->u);
		else
			fputs("NULL", o);
		break;
	}
}

/* Parameter i of s: a ref as &VALUE before the call and VALUE after it. */
static void put_param(FILE *o, const pp_cap_sig_t *s, int i, const pp__cap_val_t *v, int after)
{
	if (s->kind[i] != PP_CAP_REF) {
		put_value(o, s->kind[i], s->aux[i], v, after);
	} else if (!v->present) {
		fputs("NULL", o);
	} else {
		fputs(after ? "" : "&", o);
		put_value(o, (int)s->filled[i], s->aux[i], v, after);
	}
}

static const char help_text[] =
	"usage: pathprof capture show TRACE [-o FILE]\n"
	"\n"
	"Print the calls TRACE recorded, one a line: number, thread, function and\n"
	"arguments, '=' its return value, '->' its out parameters; a freed handle\n"
	"is marked '(freed)'. Needs no library.\n"
	"\n"
	"Exit status: 0 a complete trace; 1 an unreadable, damaged or cut one\n"
	"(the calls before the damage are printed); 2 bad command line.\n";

int cmd_capture_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *outpath = NULL;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outpath = optarg; break;
		case 'h': return cli_help(help_text);
		default: return cli_bad_option("capture show", c, argv);
		}
	}
	if (argc - optind != 1) {
		cli_error("capture show: one TRACE expected (see 'pathprof capture show --help')");
		return CLI_USAGE;
	}
	const char *path = argv[optind];
	char err[512];
	pp__input_t in;
	if (pp__input_open(&in, path, PP_CAP_MAGIC, 8, err, sizeof err) != 0) {
		cli_error("capture show: %s", err);
		return CLI_FAIL;
	}
	FILE *o = cli_output_open(outpath);
	if (!o) {
		pp__input_close(&in);
		return CLI_FAIL;
	}
	int status = pp__cap_show(o, path, in.data, in.size);
	int rc = cli_output_close(o, outpath);
	pp__input_close(&in);
	return status != CLI_OK ? status : rc;
}

int pp__cap_show(FILE *o, const char *path, const uint8_t *b, size_t n)
{
	pp__cap_reader_t r;
	pp__cap_rec_t rec;
	pp__cap_open(&r, path, b, n);
	int t;
	while ((t = pp__cap_next(&r, &rec)) > 0) {
		if (t != PP_CAP_CALL)
			continue;
		const pp_cap_sig_t *s = &r.fns[rec.fn - 1]->sig;
		fprintf(o, "%llu [%llu] %s(", (unsigned long long)rec.seq, (unsigned long long)rec.tid, s->name);
		for (int i = 0; i < s->nparams; i++) {
			fputs(i ? ", " : "", o);
			put_param(o, s, i, &rec.in[i], 0);
			if (s->kind[i] == PP_CAP_HANDLE_FREE)
				fputs(" (freed)", o);
		}
		fputc(')', o);
		if (rec.ninv)
			fprintf(o, " [%llu callbacks]", (unsigned long long)rec.ninv);
		if (s->ret != PP_CAP_VOID) {
			fputs(" = ", o);
			put_value(o, s->ret, s->ret_aux, &rec.ret, 1);
		}
		const char *sep = " -> ";
		for (int i = 0; i < s->nparams; i++)
			if (pp__cap_has_out(s, i, &rec)) {
				fprintf(o, "%sparameter %d: ", sep, i + 1);
				put_param(o, s, i, &rec.out[i], 1);
				sep = ", ";
			}
		fputc('\n', o);
	}
	int status = CLI_OK;
	if (t < 0) {
		cli_error("capture show: %s", r.cut ? "the trace is cut inside a record (the program did "
						      "not finish writing it)" : r.why);
		status = CLI_FAIL;
	} else if (!r.ended) {
		cli_error("capture show: %s: cut after call %llu (no END record)", path,
			  (unsigned long long)r.calls);
		status = CLI_FAIL;
	}
	pp__cap_close(&r);
	return status;
}
