// blas/ccopy baseline: CLBlast's Copy<std::complex<float>>, or the plain
// 8-byte copy kernel where CLBlast cannot take the increments or is missing
// (copy8.h).
#include <complex>

#include "copy8.h"
#include "kgb_entries/blas/ccopy.h"

namespace kgb::opencl::plain {
namespace {

#ifdef KGB_HAVE_CLBLAST
KGB_BASELINE(blas_ccopy, "clblast", copy8_clblast<std::complex<float>>);
#else
KGB_BASELINE(blas_ccopy, kKind, copy8_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
