// blas/daxpy baseline: CLBlast's Axpy<double>, or the plain kernel where CLBlast
// cannot take the increments (incx == 0, mixed signs) or is missing (axpy.h).
#include "axpy.h"
#include "kgb_entries/blas/daxpy.h"

namespace kgb::opencl::plain {
namespace {

#ifdef KGB_HAVE_CLBLAST
KGB_BASELINE(blas_daxpy, "clblast", axpy_clblast<double>);
#else
KGB_BASELINE(blas_daxpy, kKind, axpy_plain<double>);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
