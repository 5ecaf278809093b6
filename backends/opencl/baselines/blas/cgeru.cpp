// blas/cgeru baseline: CLBlast's Geru<std::complex<float>>, or the plain kernel
// where CLBlast cannot take the increments (a negative one) or is missing
// (ger.h).
#include "ger.h"
#include "kgb_entries/blas/cgeru.h"

namespace kgb::opencl::plain {
namespace {

int cgeru(kgb_complex alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream stream) {
  if (x->dtype != KGB_C64 || y->dtype != KGB_C64 || a->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
#ifdef KGB_HAVE_CLBLAST
  return ger_clblast<std::complex<float>, GerKind::Unconjugated>(alpha, x, y, a, stream);
#else
  return ger_plain<std::complex<float>, GerKind::Unconjugated>(alpha, x, y, a, stream);
#endif
}

#ifdef KGB_HAVE_CLBLAST
KGB_BASELINE(blas_cgeru, "clblast", cgeru);
#else
KGB_BASELINE(blas_cgeru, kKind, cgeru);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
