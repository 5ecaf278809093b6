// blas/dcopy baseline: CLBlast's Copy<double>, or the plain 8-byte copy
// kernel where CLBlast cannot take the increments or is missing (copy8.h).
#include "copy8.h"
#include "kgb_entries/blas/dcopy.h"

namespace kgb::opencl::plain {
namespace {

#ifdef KGB_HAVE_CLBLAST
KGB_BASELINE(blas_dcopy, "clblast", copy8_clblast<double>);
#else
KGB_BASELINE(blas_dcopy, kKind, copy8_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
