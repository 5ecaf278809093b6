// blas/zswap baseline: CLBlast's Swap<std::complex<double>> where CLBlast is
// installed and the increments are both positive or both negative; otherwise
// (mixed signs, no CLBlast) a plain kernel written here (16-byte words, no
// fp64 arithmetic).
#include <complex>

#include "../plain_common.h"
#include "kgb_entries/blas/zswap.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
__kernel void zswap(long n, __global ulong2* x, long xo, long incx, __global ulong2* y, long yo, long incy) {
  long i = get_global_id(0);
  if (i < n) {
    ulong2 t = x[xo + i * incx];
    x[xo + i * incx] = y[yo + i * incy];
    y[yo + i * incy] = t;
  }
}
)CLC";

int zswap_plain(kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  if (n == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "zswap");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(n).tensor(x).value(x->strides[0]).tensor(y).value(y->strides[0]);
  return args.error == CL_SUCCESS ? launch(stream, k, n) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int zswap_clblast(kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  if (n == 0) return KGB_OK;
  level1::ClVector cx, cy;
  if (!level1::clblast_vectors(stream, x, y, &cx, &cy)) return zswap_plain(x, y, stream);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Swap<std::complex<double>>(static_cast<size_t>(n), cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset,
                                                    cy.inc, &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_zswap, "clblast", zswap_clblast);
#else
KGB_BASELINE(blas_zswap, kKind, zswap_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
