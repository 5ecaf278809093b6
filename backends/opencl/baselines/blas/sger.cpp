// blas/sger baseline: CLBlast's Ger<float>, or the plain kernel where CLBlast
// cannot take the increments (a negative one) or is missing (ger.h).
#include "ger.h"
#include "kgb_entries/blas/sger.h"

namespace kgb::opencl::plain {
namespace {

int sger(double alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* a, kgb_stream stream) {
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || a->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const kgb_complex alpha_c{alpha, 0.0};
#ifdef KGB_HAVE_CLBLAST
  return ger_clblast<float, GerKind::Real>(alpha_c, x, y, a, stream);
#else
  return ger_plain<float, GerKind::Real>(alpha_c, x, y, a, stream);
#endif
}

#ifdef KGB_HAVE_CLBLAST
KGB_BASELINE(blas_sger, "clblast", sger);
#else
KGB_BASELINE(blas_sger, kKind, sger);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
