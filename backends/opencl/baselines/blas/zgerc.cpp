// blas/zgerc baseline: CLBlast's Gerc<std::complex<double>>, or the plain kernel
// where CLBlast cannot take the increments (a negative one) or is missing
// (ger.h).
#include "ger.h"
#include "kgb_entries/blas/zgerc.h"

namespace kgb::opencl::plain {
namespace {

int zgerc(kgb_complex alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream stream) {
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128 || a->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
#ifdef KGB_HAVE_CLBLAST
  return ger_clblast<std::complex<double>, GerKind::Conjugated>(alpha, x, y, a, stream);
#else
  return ger_plain<std::complex<double>, GerKind::Conjugated>(alpha, x, y, a, stream);
#endif
}

#ifdef KGB_HAVE_CLBLAST
KGB_BASELINE(blas_zgerc, "clblast", zgerc);
#else
KGB_BASELINE(blas_zgerc, kKind, zgerc);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
