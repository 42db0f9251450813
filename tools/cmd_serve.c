/* `pathprof serve`: a Prometheus exporter of the live segments on this host.
 * Each scrape reads every profiled process's segment afresh (or the ones
 * named) and answers with report/metrics.c's exposition, so the exporter keeps no
 * counts of its own: restarting it loses nothing, and a process appears at
 * the next scrape after its first gate and disappears once it exits. HTTP
 * is libmicrohttpd's: many clients at once, each with a deadline, so a
 * scrape always answers while slow or hostile clients are connected (#27).
 * Scrapes run on its one thread: the scrape state needs no lock. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <pthread.h>

#include "cli.h"
#include "map.h"
#include "metrics.h"
#include "runtime.h"
#include "shm_read.h"

static const char help_text[] =
	"usage: pathprof serve --listen HOST:PORT [options] [NAME|PID...]\n"
	"       pathprof serve --once [options] [NAME|PID...]\n"
	"\n"
	"Serve the live profiles of this host's profiled processes to Prometheus:\n"
	"every process exports a live segment (/dev/shm/pathprof.PID, or the name\n"
	"PATHPROF_SHM gives), and each scrape of http://HOST:PORT/metrics reads them\n"
	"all (or only the segments NAME or processes PID given). Per path: a counter\n"
	"of leaf returns (exact); per calling-context node: a histogram of its\n"
	"inclusive time per call; per process: events, drops, unmatched exits,\n"
	"threads; and the exporter's own health. Series carry the process's service\n"
	"(PATHPROF_SERVICE or its program name), pid and front-end. A client that\n"
	"accepts application/openmetrics-text gets OpenMetrics 1.0, others the text\n"
	"format 0.0.4.\n"
	"\n"
	"A process's paths beyond --top get no series of their own: their leaf\n"
	"returns are summed in path=\"other\" (said once on stderr). The paths with\n"
	"series are the ones with the most leaf returns when the process is first\n"
	"scraped, then new ones while there is room; the choice then stays, so that\n"
	"every counter only grows. A damaged or foreign shared-memory object is\n"
	"skipped with one warning; a process that died without exiting is not\n"
	"served ('pathprof recover' reads its segment). docs/guides/fleet.md has the\n"
	"Prometheus set-up and queries.\n"
	"\n"
	"options:\n"
	"  --listen HOST:PORT  address to serve on (PORT 0: any free port, printed)\n"
	"  --top N             paths with series of their own per process (default 200)\n"
	"  --once              write one exposition to standard output and exit\n"
	"  --openmetrics       with --once: OpenMetrics instead of the text format\n"
	"  --command-line      label each process with its command line (off: its\n"
	"                      arguments may hold secrets any client could read)\n"
	"  -h, --help          show this help\n"
	"\n"
	"Many clients are served at once (up to 256); each must send its request\n"
	"within 5 s of connecting (or of its previous answer) and in at most 16 KiB\n"
	"of head, so a slow or hostile client cannot hold the exporter.\n"
	"\n"
	"Exit status: 0 stopped by SIGINT or SIGTERM (or --once written), 1 cannot\n"
	"listen or write, 2 bad command line.\n";

enum { OPT_LISTEN = 256, OPT_TOP, OPT_ONCE, OPT_OM, OPT_CMDLINE };

static const struct option longopts[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "openmetrics", no_argument, NULL, OPT_OM },
	{ "command-line", no_argument, NULL, OPT_CMDLINE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* What the exporter remembers of a process between scrapes: which paths
 * have series, and whether the cut was said. Keyed by pid and start time,
 * so a new process under a reused pid starts afresh. */
typedef struct known {
	uint64_t pid, start_ns;
	pp__map_t chosen;
	int warned_cut;
	int seen; /* in the latest scrape */
} known_t;

/* A segment skipped once stays quiet: warned objects by name and inode. */
typedef struct skipped {
	char object[300];
	uint64_t ino;
	int seen;
} skipped_t;

typedef struct server {
	uint32_t top;
	int with_command;
	char **targets;
	int ntargets;
	known_t *known;
	size_t nknown, capknown;
	skipped_t *skipped;
	size_t nskipped, capskipped;
	metrics_health_t health;
} server_t;

/* Open connections at once (more are refused at accept), request-head bytes
 * per connection (more: 431 and closed), idle seconds before a connection is
 * closed, and the whole-request deadline: a client must send its request
 * head within DEADLINE_S of connecting (or of its previous answer) however
 * it trickles the bytes, or the connection is cut. */
#define MAX_CONNECTIONS 256
#define HEAD_BYTES (16u * 1024u)
#define IDLE_S 5
#define DEADLINE_S 5

/* Each open connection, for the deadline: its socket and when its current
 * request began. Under conns_lock; removed when MHD closes the connection
 * (before it closes the socket), so a socket here is still the client's. */
typedef struct conn {
	int fd;
	struct timespec since;
	struct conn *next, **prevp;
} conn_t;

static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;
static conn_t *conns;
static uint64_t cut_by_deadline;

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static known_t *known_of(server_t *s, uint64_t pid, uint64_t start_ns)
{
	for (size_t i = 0; i < s->nknown; i++)
		if (s->known[i].pid == pid && s->known[i].start_ns == start_ns)
			return &s->known[i];
	if (cli_grow((void **)&s->known, &s->capknown, s->nknown, sizeof *s->known) != 0)
		return NULL;
	known_t *k = &s->known[s->nknown++];
	memset(k, 0, sizeof *k);
	k->pid = pid;
	k->start_ns = start_ns;
	return k;
}

/* Warn about object once (per inode: a new object under the name warns
 * again). */
static void skip(server_t *s, const char *object, uint64_t ino, const char *why)
{
	s->health.skipped++;
	for (size_t i = 0; i < s->nskipped; i++) {
		if (!strcmp(s->skipped[i].object, object) && s->skipped[i].ino == ino) {
			s->skipped[i].seen = 1;
			return;
		}
	}
	if (cli_grow((void **)&s->skipped, &s->capskipped, s->nskipped, sizeof *s->skipped) == 0) {
		skipped_t *k = &s->skipped[s->nskipped++];
		snprintf(k->object, sizeof k->object, "%s", object);
		k->ino = ino;
		k->seen = 1;
	}
	cli_error("serve: %s: skipped: %s", object, why);
}

/* Is the /dev/shm entry name a candidate: a pathprof segment by its magic,
 * or an object under pathprof's default prefix (whatever it holds: one that
 * is not a segment there is worth a warning). Foreign objects under other
 * names are none of our business. */
static int candidate(int dir, const char *name, uint64_t *ino)
{
	if (name[0] == '.')
		return 0;
	int ours = !strncmp(name, "pathprof.", 9) || !strncmp(name, "pathprof-run.", 13);
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char magic[8];
	struct stat st;
	int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	/* another user's segments are theirs to serve (root serves all, each
	 * checked against the process it names: shm_read.c) */
	if (ok && st.st_uid != geteuid() && geteuid() != 0) {
		close(fd);
		return 0;
	}
	int is_segment = ok && pread(fd, magic, 8, 0) == 8 && !memcmp(magic, PP__SHM_MAGIC, 8);
	*ino = ok ? (uint64_t)st.st_ino : 0;
	close(fd);
	return is_segment || (ok && ours);
}

/* Snapshot one target into procs; skipped ones are counted and warned. */
static int take(server_t *s, const char *target, uint64_t ino, metrics_proc_t *procs, size_t *n)
{
	pp__shm_view_t v;
	char err[512];
	metrics_proc_t *m = &procs[*n];
	memset(m, 0, sizeof *m);
	if (pp__shm_open(&v, target, err, sizeof err) != 0) {
		skip(s, target, ino, err);
		return 0;
	}
	v.raw_keys = 1; /* a key the namer has not reached yet still counts */
	int rc = pp__shm_snapshot(&v, &m->prof, &m->st, err, sizeof err);
	pp__shm_close(&v);
	if (rc != 0) {
		skip(s, v.object, ino, err);
		return 0;
	}
	if (!m->st.alive) {
		/* exited (a kept segment) or died: not a running process */
		if (!m->st.exited)
			s->health.dead++;
		pp__profile_free(&m->prof);
		return 0;
	}
	known_t *k = known_of(s, m->st.pid, m->prof.start_ns);
	if (!k) {
		pp__profile_free(&m->prof);
		return -1;
	}
	k->seen = 1;
	m->chosen = &k->chosen;
	m->top = s->top;
	m->with_command = s->with_command;
	(*n)++;
	return 0;
}

/* Read every segment: the named targets, or all of /dev/shm. */
static int collect(server_t *s, metrics_proc_t **procs, size_t *n)
{
	size_t cap = 0;
	*procs = NULL;
	*n = 0;
	s->health.skipped = 0;
	s->health.dead = 0;
	for (size_t i = 0; i < s->nknown; i++)
		s->known[i].seen = 0;
	if (s->ntargets) {
		for (int i = 0; i < s->ntargets; i++) {
			if (cli_grow((void **)procs, &cap, *n, sizeof **procs) != 0 ||
			    take(s, s->targets[i], 0, *procs, n) != 0)
				return -1;
		}
	} else {
		DIR *d = opendir("/dev/shm");
		if (!d) {
			cli_error("serve: /dev/shm: cannot list: %s", strerror(errno));
			return 0;
		}
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			uint64_t ino;
			if (!candidate(dirfd(d), e->d_name, &ino))
				continue;
			char name[300];
			snprintf(name, sizeof name, "/%s", e->d_name);
			if (cli_grow((void **)procs, &cap, *n, sizeof **procs) != 0 ||
			    take(s, name, ino, *procs, n) != 0) {
				closedir(d);
				return -1;
			}
		}
		closedir(d);
	}
	/* forget processes that are gone */
	size_t w = 0;
	for (size_t i = 0; i < s->nknown; i++) {
		if (s->known[i].seen)
			s->known[w++] = s->known[i];
		else
			pp__map_free(&s->known[i].chosen);
	}
	/* the pointers into known moved: point them again */
	s->nknown = w;
	for (size_t i = 0; i < *n; i++) {
		known_t *k = known_of(s, (*procs)[i].st.pid, (*procs)[i].prof.start_ns);
		(*procs)[i].chosen = k ? &k->chosen : NULL;
		if (!k)
			return -1;
	}
	return 0;
}

static void warn_cuts(server_t *s, const metrics_proc_t *procs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!procs[i].cut)
			continue;
		known_t *k = known_of(s, procs[i].st.pid, procs[i].prof.start_ns);
		if (!k || k->warned_cut)
			continue;
		k->warned_cut = 1;
		cli_error("serve: process %llu (%s): %u paths; the %u with series of their own were "
			  "chosen by leaf returns, the others are summed in path=\"other\" (--top)",
			  (unsigned long long)procs[i].st.pid,
			  procs[i].prof.service ? procs[i].prof.service : procs[i].st.program,
			  procs[i].prof.npaths, (unsigned)(procs[i].prof.npaths - procs[i].cut));
	}
}

/* One exposition into a memory buffer. Returns 0, or -1 out of memory. */
static int scrape(server_t *s, int openmetrics, char **body, size_t *len)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	metrics_proc_t *procs;
	size_t n;
	int rc = collect(s, &procs, &n);
	s->health.scrapes++;
	pthread_mutex_lock(&conns_lock);
	s->health.cut = cut_by_deadline;
	pthread_mutex_unlock(&conns_lock);
	FILE *mem = open_memstream(body, len);
	if (!mem)
		rc = -1;
	if (rc == 0)
		rc = metrics_write(mem, openmetrics, procs, n, &s->health);
	if (mem && fclose(mem) != 0)
		rc = -1;
	if (rc == 0)
		warn_cuts(s, procs, n);
	for (size_t i = 0; i < n; i++)
		pp__profile_free(&procs[i].prof);
	free(procs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->health.last_duration_s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	return rc;
}

/* ---- HTTP, on libmicrohttpd (docs/internals/decisions.md: a kept server library
 * rather than our own parser). One internal thread serves every connection
 * with epoll, so a slow client never holds up another; the limits below
 * bound what a hostile one can take. ---- */



static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	(void)cls;
	pthread_mutex_lock(&conns_lock);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *i =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		conn_t *k = i ? calloc(1, sizeof *k) : NULL;
		if (k) {
			k->fd = i->connect_fd;
			clock_gettime(CLOCK_MONOTONIC, &k->since);
			k->next = conns;
			k->prevp = &conns;
			if (conns)
				conns->prevp = &k->next;
			conns = k;
		}
		*ctx = k;
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *ctx) {
		conn_t *k = *ctx;
		*k->prevp = k->next;
		if (k->next)
			k->next->prevp = k->prevp;
		free(k);
		*ctx = NULL;
	}
	pthread_mutex_unlock(&conns_lock);
}

/* A request answered: the connection's next request has its own deadline. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_ctx,
			 enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)req_ctx;
	(void)why;
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	pthread_mutex_lock(&conns_lock);
	if (i && i->socket_context)
		clock_gettime(CLOCK_MONOTONIC, &((conn_t *)i->socket_context)->since);
	pthread_mutex_unlock(&conns_lock);
}

/* Cut every connection past its deadline: shutdown() ends it for MHD, which
 * then closes it the usual way. */
static void enforce_deadline(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&conns_lock);
	for (conn_t *k = conns; k; k = k->next) {
		if (k->fd >= 0 && now.tv_sec - k->since.tv_sec >= DEADLINE_S) {
			shutdown(k->fd, SHUT_RDWR);
			k->fd = -1; /* cut once */
			cut_by_deadline++;
		}
	}
	pthread_mutex_unlock(&conns_lock);
}

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned status, const char *msg,
				   const char *allow)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(msg), (void *)msg, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
	if (allow)
		MHD_add_response_header(r, "Allow", allow);
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* Does the Accept header ask for OpenMetrics? */
static int wants_openmetrics(struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	return a && strstr(a, "application/openmetrics-text") != NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req_ctx)
{
	server_t *s = cls;
	(void)version;
	(void)upload;
	if (!*req_ctx) {
		/* first call: the head is in; an upload is not wanted */
		*req_ctx = s;
		if (*upload_size == 0)
			goto answer;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0; /* discarded */
		return MHD_YES;
	}
answer:
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return answer_text(c, 405, "only GET and HEAD\n", "GET, HEAD");
	if (!strcmp(url, "/"))
		return answer_text(c, 200, "pathprof serve: the metrics are at /metrics\n", NULL);
	if (strcmp(url, "/metrics"))
		return answer_text(c, 404, "not found: the metrics are at /metrics\n", NULL);
	int om = wants_openmetrics(c);
	char *body = NULL;
	size_t len = 0;
	if (scrape(s, om, &body, &len) != 0) {
		free(body);
		return answer_text(c, 500, "out of memory\n", NULL);
	}
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", metrics_content_type(om));
	enum MHD_Result rc = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return rc;
}

/* Listen on "HOST:PORT" (HOST may be [v6]). Returns the socket or -1. */
static int listen_on(const char *addr)
{
	char host[256];
	const char *colon = strrchr(addr, ':');
	if (!colon || colon == addr || !colon[1] || (size_t)(colon - addr) >= sizeof host) {
		cli_error("serve: --listen: '%s' is not HOST:PORT", addr);
		return -2;
	}
	/* getaddrinfo takes "99999" and keeps its low 16 bits (34463) */
	uint64_t port;
	if (cli_parse_u64("serve: --listen: the port", colon + 1, 65535, &port) != 0)
		return -2;
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	char *h = host;
	if (h[0] == '[' && h[strlen(h) - 1] == ']') {
		h[strlen(h) - 1] = '\0';
		h++;
	}
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV}, *res;
	int e = getaddrinfo(h, colon + 1, &hints, &res);
	if (e) {
		cli_error("serve: --listen %s: %s", addr, gai_strerror(e));
		return -2;
	}
	int fd = -1, err = 0;
	for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 16) != 0) {
			err = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		cli_error("serve: cannot listen on %s: %s", addr, strerror(err));
	return fd;
}

static int port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t n = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &n) != 0)
		return -1;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

static void server_free(server_t *s)
{
	for (size_t i = 0; i < s->nknown; i++)
		pp__map_free(&s->known[i].chosen);
	free(s->known);
	free(s->skipped);
}

int cmd_serve(int argc, char **argv)
{
	const char *listen_addr = NULL;
	uint64_t top = 200;
	int once = 0, om = 0, with_command = 0, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_LISTEN:
			listen_addr = optarg;
			break;
		case OPT_TOP:
			if (cli_parse_u64("serve: --top", optarg, 1000000, &top) < 0)
				return CLI_USAGE;
			break;
		case OPT_ONCE:
			once = 1;
			break;
		case OPT_OM:
			om = 1;
			break;
		case OPT_CMDLINE:
			with_command = 1;
			break;
		case 'h':
			return cli_help(help_text);
		default:
			return cli_bad_option("serve", c, argv);
		}
	}
	if (!once && !listen_addr) {
		cli_error("serve: no address: use --listen HOST:PORT, or --once (see 'pathprof serve "
			  "--help')");
		return CLI_USAGE;
	}
	if (om && !once) {
		cli_error("serve: --openmetrics goes with --once (a scraper asks for it itself)");
		return CLI_USAGE;
	}
	server_t s = {.top = (uint32_t)top, .with_command = with_command, .targets = argv + optind, .ntargets = argc - optind};
	if (once) {
		char *body = NULL;
		size_t len = 0;
		int rc = scrape(&s, om, &body, &len) == 0 ? CLI_OK : CLI_FAIL;
		if (rc == CLI_OK)
			fwrite(body, 1, len, stdout);
		else
			cli_error("serve: out of memory");
		free(body);
		server_free(&s);
		return rc == CLI_OK ? cli_output_close(stdout, NULL) : rc;
	}
	int lfd = listen_on(listen_addr);
	if (lfd < 0)
		return lfd == -2 ? CLI_USAGE : CLI_FAIL;
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = {.sa_handler = on_stop};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_EPOLL_INTERNAL_THREAD, 0, NULL, NULL, on_request, &s,
		MHD_OPTION_LISTEN_SOCKET, (MHD_socket)lfd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HEAD_BYTES,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_S,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
		MHD_OPTION_END);
	if (!d) {
		cli_error("serve: cannot start the HTTP server on %s", listen_addr);
		close(lfd);
		server_free(&s);
		return CLI_FAIL;
	}
	fprintf(stderr, "pathprof: serve: metrics at http://%.*s:%d/metrics\n",
		(int)(strrchr(listen_addr, ':') - listen_addr), listen_addr, port_of(lfd));
	while (!stop) {
		struct timespec tick = {0, 250 * 1000000L};
		nanosleep(&tick, NULL);
		enforce_deadline();
	}
	MHD_stop_daemon(d);
	server_free(&s); /* MHD closed the listening socket */
	return CLI_OK;
}
