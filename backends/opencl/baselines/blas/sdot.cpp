// blas/sdot baseline: CLBlast's Dot<float>,
// or the plain one-group kernel where CLBlast cannot take the increments or
// is missing (reduce_plain.h).
#include "kgb_entries/blas/sdot.h"
#include "reduce_plain.h"

namespace kgb::opencl::plain {
namespace {

#ifdef KGB_HAVE_CLBLAST
int sdot_clblast(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  return reduce_clblast<Reduction::Dot, false>(x, y, result, stream);
}
KGB_BASELINE(blas_sdot, "clblast", sdot_clblast);
#else
int sdot_plain(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  return reduce_plain<Reduction::Dot, false>(x, y, result, stream);
}
KGB_BASELINE(blas_sdot, kKind, sdot_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
