/* Vector arithmetic through CBLAS for tests/capture/blas.sh: arrays of
 * doubles and floats whose lengths count elements, some read, one written
 * (dcopy's Y), some changed in place (dscal's X, daxpy's Y). Prints what it
 * computed, so the test knows every recorded value. */
#include <cblas.h>
#include <stdio.h>

#define N 100

int main(void)
{
	double x[N], y[N], z[N];
	float a[N], b[N];
	for (int i = 0; i < N; i++) {
		x[i] = (i % 7) - 3.0;
		y[i] = 0.25 * i;
		a[i] = (float)(i % 5);
		b[i] = 1.0f / (float)(i + 1);
	}
	cblas_dcopy(N, x, 1, z, 1);          /* z = x */
	cblas_dscal(N, 0.5, z, 1);           /* z = x / 2 */
	cblas_daxpy(N, 2.0, z, 1, y, 1);     /* y += 2 z = y + x */
	double dot = cblas_ddot(N, x, 1, y, 1);
	double norm = cblas_dnrm2(N, y, 1);
	size_t at = cblas_idamax(N, y, 1);
	float sdot = cblas_sdot(N, a, 1, b, 1);
	printf("dot %.17g norm %.17g max at %zu sdot %.9g\n", dot, norm, at, (double)sdot);
	return 0;
}
