// blas/dasum baseline: CLBlast's Asum<double> (incx <= 0 gives 0),
// or the plain one-group kernel where CLBlast cannot take the increments or
// is missing (reduce_plain.h).
#include "kgb_entries/blas/dasum.h"
#include "reduce_plain.h"

namespace kgb::opencl::plain {
namespace {

#ifdef KGB_HAVE_CLBLAST
int dasum_clblast(const kgb_tensor* x, kgb_tensor* result, kgb_stream stream) {
  return reduce_clblast<Reduction::Asum, true>(x, x, result, stream);
}
KGB_BASELINE(blas_dasum, "clblast", dasum_clblast);
#else
int dasum_plain(const kgb_tensor* x, kgb_tensor* result, kgb_stream stream) {
  return reduce_plain<Reduction::Asum, true>(x, x, result, stream);
}
KGB_BASELINE(blas_dasum, kKind, dasum_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
