// The driver of bench/cxxselect.sh: simdjson's DOM parser (C++17, its
// amalgamation from the npm package) over one generated JSON document of
// about 180 KB, parsed REPS times, each tree walked recursively. Templates,
// std::unique_ptr and small inline members everywhere: what a C++ program
// built with -finstrument-functions gates. Prints the document's size and
// the elements seen, the same in every build.
#include "simdjson.h"

#include <cstdio>
#include <cstdlib>
#include <string>

static unsigned next(unsigned &seed)
{
	seed = seed * 1103515245u + 12345u;
	return seed;
}

// A tree of depth levels, four children a node, arrays and objects in
// turn as the seed says, scalars of four kinds at the leaves.
static std::string gen(int depth, unsigned &seed)
{
	unsigned r = next(seed);
	if (depth == 0) {
		switch (r % 4) {
		case 0: return std::to_string(r % 100000);
		case 1: return "\"s" + std::to_string(r % 977) + "\"";
		case 2: return "true";
		default: return std::to_string((r % 1000) / 7.0);
		}
	}
	bool array = r % 2;
	std::string s = array ? "[" : "{";
	for (int i = 0; i < 4; i++) {
		if (i)
			s += ",";
		if (!array)
			s += "\"k" + std::to_string(i) + "\":";
		s += gen(depth - 1, seed);
	}
	return s + (array ? "]" : "}");
}

static long walk(simdjson::dom::element e)
{
	long n = 1;
	switch (e.type()) {
	case simdjson::dom::element_type::ARRAY:
		for (simdjson::dom::element c : simdjson::dom::array(e))
			n += walk(c);
		break;
	case simdjson::dom::element_type::OBJECT:
		for (simdjson::dom::key_value_pair kv : simdjson::dom::object(e))
			n += walk(kv.value);
		break;
	default:
		break;
	}
	return n;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? std::atoi(argv[1]) : 200;
	unsigned seed = 1;
	std::string doc = gen(7, seed);
	simdjson::dom::parser parser;
	long total = 0;
	for (int r = 0; r < reps; r++)
		total += walk(parser.parse(doc));
	std::printf("%zu bytes, %ld elements\n", doc.size(), total);
	return 0;
}
