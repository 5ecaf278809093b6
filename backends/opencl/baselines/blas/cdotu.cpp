// blas/cdotu baseline: CLBlast's Dotu<std::complex<float>>,
// or the plain one-group kernel where CLBlast cannot take the increments or
// is missing (reduce_plain.h).
#include "kgb_entries/blas/cdotu.h"
#include "reduce_plain.h"

namespace kgb::opencl::plain {
namespace {

#ifdef KGB_HAVE_CLBLAST
int cdotu_clblast(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  return reduce_clblast<Reduction::ComplexDotu, false>(x, y, result, stream);
}
KGB_BASELINE(blas_cdotu, "clblast", cdotu_clblast);
#else
int cdotu_plain(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  return reduce_plain<Reduction::ComplexDotu, false>(x, y, result, stream);
}
KGB_BASELINE(blas_cdotu, kKind, cdotu_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
