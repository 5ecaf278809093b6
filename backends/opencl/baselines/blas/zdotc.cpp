// blas/zdotc baseline: CLBlast's Dotc<std::complex<double>>,
// or the plain one-group kernel where CLBlast cannot take the increments or
// is missing (reduce_plain.h).
#include "kgb_entries/blas/zdotc.h"
#include "reduce_plain.h"

namespace kgb::opencl::plain {
namespace {

#ifdef KGB_HAVE_CLBLAST
int zdotc_clblast(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  return reduce_clblast<Reduction::ComplexDotc, true>(x, y, result, stream);
}
KGB_BASELINE(blas_zdotc, "clblast", zdotc_clblast);
#else
int zdotc_plain(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  return reduce_plain<Reduction::ComplexDotc, true>(x, y, result, stream);
}
KGB_BASELINE(blas_zdotc, kKind, zdotc_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
