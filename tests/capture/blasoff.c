/* Another build of CBLAS for tests/capture/blas.sh: its dscal leaves the
 * last element unscaled (an off-by-one), every other function is the
 * system's (this library is linked against it). */
#include <cblas.h>

void cblas_dscal(const CBLAS_INT N, const double alpha, double *X, const CBLAS_INT incX)
{
	for (CBLAS_INT i = 0; i + 1 < N; i++)
		X[i * incX] *= alpha;
}
