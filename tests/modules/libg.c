/* A gated library the host dlopens, runs and dlcloses twice. */
#include "gate.h"

G_FN void g_leaf(void)
{
	GATE("g_leaf");
	__asm__ volatile("");
}

G_FN void g_mid(void)
{
	GATE("g_mid");
	g_leaf();
	g_leaf();
}

G_FN void g_run(int n)
{
	GATE("g_run");
	for (int i = 0; i < n; i++)
		g_mid();
}
