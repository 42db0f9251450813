// Which C++ functions the pass gates in each mode, and the names its table
// gives them; the expected sets are in meson.build.
#include <pathprof/plugin.h>

namespace ns {
struct Widget {
	PATHPROF int poke(int x);
	int prod(int x) { return x * 2; }
};

int Widget::poke(int x)
{
	return prod(x) + 1;
}

template <typename T> PATHPROF T twice(T v)
{
	return v + v;
}
} // namespace ns

static int helper(int x)
{
	return x - 1;
}

int main()
{
	ns::Widget w;
	return w.poke(1) + ns::twice(2) + (int)ns::twice(1.5) + helper(3);
}
