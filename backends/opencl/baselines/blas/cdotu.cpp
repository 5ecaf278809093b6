// blas/cdotu baseline: CLBlast's Dotu<std::complex<float>>, or the plain
// complex dot kernel where CLBlast cannot take the increments or is missing
// (complex_dot.h).
#include "complex_dot.h"
#include "kgb_entries/blas/cdotu.h"

namespace kgb::opencl::plain {
namespace {

#ifdef KGB_HAVE_CLBLAST
int cdotu_clblast(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  return complex_dot_clblast<false, false>(x, y, result, stream);
}
KGB_BASELINE(blas_cdotu, "clblast", cdotu_clblast);
#else
int cdotu_plain(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  return complex_dot_plain<false, false>(x, y, result, stream);
}
KGB_BASELINE(blas_cdotu, kKind, cdotu_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
