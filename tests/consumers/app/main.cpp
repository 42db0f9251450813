// Consumer program, C++: the same paths as the C one (main > handle > parse,
// main > handle > reply), from C++ code (a container, a stream). The profiled
// functions have C linkage so that every injector names them alike.
#include <iostream>
#include <string>
#include <vector>
#include "gate.h"

PROFILED int main()
{
	GATE();
	std::vector<int> ids;
	for (int i = 0; i < 300; i++)
		ids.push_back(i);
	int sum = 0;
	for (int i : ids)
		sum += handle(i);
	std::cout << std::string("sum ") << sum << "\n";
	return 0;
}
