// blas/sscal baseline: CLBlast's Scal<float> where CLBlast is installed;
// otherwise a plain kernel written here. incx <= 0 does nothing (BLAS).
#include "../plain_common.h"
#include "kgb_entries/blas/sscal.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
__kernel void sscal(long n, float alpha, __global float* x, long xo, long incx) {
  long i = get_global_id(0);
  if (i < n) x[xo + i * incx] *= alpha;
}
)CLC";

int sscal_plain(double alpha_d, kgb_tensor* x, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  const cl_float alpha = static_cast<cl_float>(alpha_d);
  if (n == 0 || x->strides[0] <= 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "sscal");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(n).value(alpha).tensor(x).value(x->strides[0]);
  return args.error == CL_SUCCESS ? launch(stream, k, n) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int sscal_clblast(double alpha_d, kgb_tensor* x, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  if (n == 0 || x->strides[0] <= 0) return KGB_OK;
  level1::ClVector cx;
  if (!level1::clblast_vector(stream, x, &cx)) return sscal_plain(alpha_d, x, stream);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Scal<float>(static_cast<size_t>(n), static_cast<float>(alpha_d), cx.buffer, cx.offset, cx.inc, &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_sscal, "clblast", sscal_clblast);
#else
KGB_BASELINE(blas_sscal, kKind, sscal_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
