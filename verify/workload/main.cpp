/* wl: verify's C++ workload. Several threads each handle a seeded stream of
 * events through classes, a class template with recursion, virtual calls and
 * a shared library; every path's count follows from --seed, --events and
 * --threads alone, and --expect prints them (the oracle). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codec.hpp"
#include "names.hpp"

namespace wl {

enum { K_APPLY, K_FILL, K_WALK, K_VIRTUAL, K_IDLE, K_KINDS = 6 /* 4, 5: idle */ };
enum { MAX_THREADS = 16, MAX_DEPTH = 4 };

class Book {
public:
	HELPER explicit Book(Checksum *s) : ci(s), cl(s), touched(0) {}
	GATED void apply(int v);
	GATED void fill(int v);
	GATED void level(int v);
	HELPER long digest() const { return ci.last() ^ cl.last() ^ touched; }

private:
	Codec<int> ci;
	Codec<long> cl;
	long touched;
};

void Book::apply(int v)
{
	GATE(N_APPLY);
	ci.decode(v);
	if (v & 1)
		level(v);
}

void Book::fill(int v)
{
	GATE(N_FILL);
	cl.decode(v);
}

void Book::level(int v)
{
	GATE(N_LEVEL);
	touched += v;
}

template <typename T> struct tree_names;
template <> struct tree_names<int> {
	static constexpr const char *walk = N_WALK;
};

/* walk(d) is a complete binary recursion: 2^(d-1) leaves at depth d. The
 * store after both calls keeps them out of tail position, so no compiler
 * turns the recursion into a loop. */
template <typename T> class Tree {
public:
	HELPER Tree() : acc(0) {}
	GATED T walk(int d);
	HELPER T total() const { return acc; }

private:
	T acc;
};

template <typename T> T Tree<T>::walk(int d)
{
	GATE(tree_names<T>::walk);
	if (d <= 1)
		return (T)1;
	T a = walk(d - 1);
	T b = walk(d - 1);
	acc += a ^ (b << 1);
	return a + b;
}

class Handler {
public:
	virtual void on(int v) = 0;

protected:
	HELPER Handler() {}
	~Handler() = default;
};

class Quote final : public Handler {
public:
	HELPER Quote() : seen(0) {}
	GATED void on(int v) override;
	long seen;
};

class Fill final : public Handler {
public:
	HELPER explicit Fill(Checksum *s) : sink(s) {}
	GATED void on(int v) override;

private:
	Checksum *sink;
};

void Quote::on(int v)
{
	GATE(N_QUOTE_ON);
	seen += v;
}

void Fill::on(int v)
{
	GATE(N_FILL_ON);
	sink->add(-v);
}

/* One per thread: nothing is shared, so counts cannot depend on scheduling. */
class Session {
public:
	HELPER Session() : book(&sum), fill(&sum) { handlers[0] = &quote; handlers[1] = &fill; }
	GATED void handle(int kind, int v);
	HELPER long digest() const { return sum.value() ^ book.digest() ^ tree.total() ^ quote.seen; }

private:
	Checksum sum;
	Book book;
	Tree<int> tree;
	Quote quote;
	Fill fill;
	Handler *handlers[2];
};

void Session::handle(int kind, int v)
{
	GATE(N_HANDLE);
	switch (kind) {
	case K_APPLY:
		book.apply(v);
		break;
	case K_FILL:
		book.fill(v);
		break;
	case K_WALK:
		tree.walk(1 + v % MAX_DEPTH);
		break;
	case K_VIRTUAL:
		handlers[v & 1]->on(v);
		break;
	default:
		break; /* handle() itself is the leaf */
	}
}

/* splitmix64: the event stream of thread t depends only on (seed, t). */
struct Rng {
	uint64_t s;
};

static HELPER uint64_t rng_next(Rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static HELPER void rng_event(Rng *r, int *kind, int *v)
{
	uint64_t x = rng_next(r);
	*kind = (int)((x >> 8) % K_KINDS);
	*v = (int)((x >> 24) % 1000);
}

struct Job {
	uint64_t seed, events;
	int index;
	long digest;
};

static HELPER void *run(void *arg)
{
	Job *j = (Job *)arg;
	Session s;
	Rng r = {j->seed ^ ((uint64_t)(j->index + 1) * 0xd1b54a32d192ed03ull)};
	for (uint64_t i = 0; i < j->events; i++) {
		int kind, v;
		rng_event(&r, &kind, &v);
		ROOT();
		s.handle(kind, v);
	}
	j->digest = s.digest();
	return NULL;
}

/* The oracle: the call tree of handle() above, as paths of names. */
enum { P_IDLE, P_APPLY, P_APPLY_CHECK, P_LEVEL, P_FILL, P_FILL_CHECK, P_QUOTE, P_FILL_ON,
       P_WALK1, P_NPATHS = P_WALK1 + MAX_DEPTH };

static const char *const path_text[P_NPATHS] = {
	N_HANDLE,
	N_HANDLE ">" N_APPLY ">" N_DECODE_INT,
	N_HANDLE ">" N_APPLY ">" N_DECODE_INT ">" N_CHECK_INT,
	N_HANDLE ">" N_APPLY ">" N_LEVEL,
	N_HANDLE ">" N_FILL ">" N_DECODE_LONG ">" N_ADD,
	N_HANDLE ">" N_FILL ">" N_DECODE_LONG ">" N_CHECK_LONG,
	N_HANDLE ">" N_QUOTE_ON,
	N_HANDLE ">" N_FILL_ON ">" N_ADD,
	N_HANDLE ">" N_WALK,
	N_HANDLE ">" N_WALK ">" N_WALK,
	N_HANDLE ">" N_WALK ">" N_WALK ">" N_WALK,
	N_HANDLE ">" N_WALK ">" N_WALK ">" N_WALK ">" N_WALK,
};

static HELPER void expect_print(uint64_t seed, uint64_t events, int threads)
{
	uint64_t n[P_NPATHS] = {0};
	for (int t = 0; t < threads; t++) {
		Rng r = {seed ^ ((uint64_t)(t + 1) * 0xd1b54a32d192ed03ull)};
		for (uint64_t i = 0; i < events; i++) {
			int kind, v;
			rng_event(&r, &kind, &v);
			switch (kind) {
			case K_APPLY:
				n[v % 3 ? P_APPLY : P_APPLY_CHECK]++;
				n[P_LEVEL] += v & 1;
				break;
			case K_FILL:
				n[P_FILL_CHECK] += v % 3 == 0;
				n[P_FILL]++;
				break;
			case K_WALK:
				n[P_WALK1 + v % MAX_DEPTH] += 1ull << (v % MAX_DEPTH);
				break;
			case K_VIRTUAL:
				n[v & 1 ? P_FILL_ON : P_QUOTE]++;
				break;
			default:
				n[P_IDLE]++;
			}
		}
	}
	for (int p = 0; p < P_NPATHS; p++)
		if (n[p])
			printf("%" PRIu64 "|%s\n", n[p], path_text[p]);
}

static HELPER int parse_u64(const char *opt, const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "wl: %s: expected a non-negative integer, got '%s'\n", opt, s);
		return -1;
	}
	*v = x;
	return 0;
}

} // namespace wl

using namespace wl;

HELPER int main(int argc, char **argv)
{
	uint64_t events = 20000, seed = 1, threads = 4;
	int expect = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		uint64_t *dst = !strcmp(a, "--events") ? &events : !strcmp(a, "--seed") ? &seed
			      : !strcmp(a, "--threads") ? &threads : NULL;
		if (dst) {
			if (i + 1 >= argc || parse_u64(a, argv[++i], dst))
				return 2;
		} else if (!strcmp(a, "--expect")) {
			expect = 1;
		} else {
			fprintf(stderr, "usage: wl [--events N] [--seed S] [--threads 1..%d] [--expect]\n",
				MAX_THREADS);
			return 2;
		}
	}
	if (threads < 1 || threads > MAX_THREADS) {
		fprintf(stderr, "wl: --threads: expected 1..%d\n", MAX_THREADS);
		return 2;
	}
	if (expect) {
		expect_print(seed, events, (int)threads);
		return 0;
	}
	/* The main thread is worker 0; the others run at the same time. */
	Job jobs[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	for (int t = 0; t < (int)threads; t++)
		jobs[t] = Job{seed, events, t, 0};
	for (int t = 1; t < (int)threads; t++)
		if (pthread_create(&tid[t], NULL, run, &jobs[t])) {
			fprintf(stderr, "wl: cannot create thread %d\n", t);
			return 1;
		}
	run(&jobs[0]);
	long digest = 0;
	for (int t = 1; t < (int)threads; t++)
		pthread_join(tid[t], NULL);
	for (int t = 0; t < (int)threads; t++)
		digest ^= jobs[t].digest;
	printf("wl: %" PRIu64 " events x %" PRIu64 " threads, digest %lx\n", events, threads,
	       (unsigned long)digest);
	return 0;
}
