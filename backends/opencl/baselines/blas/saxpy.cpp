// blas/saxpy baseline: CLBlast's Axpy<float>, or the plain kernel where CLBlast
// cannot take the increments (incx == 0, mixed signs) or is missing (axpy.h).
#include "axpy.h"
#include "kgb_entries/blas/saxpy.h"

namespace kgb::opencl::plain {
namespace {

#ifdef KGB_HAVE_CLBLAST
KGB_BASELINE(blas_saxpy, "clblast", axpy_clblast<float>);
#else
KGB_BASELINE(blas_saxpy, kKind, axpy_plain<float>);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
