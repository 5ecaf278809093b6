// blas/dasum baseline: CLBlast's Asum<double> where CLBlast is installed and
// the increment is positive; otherwise (incx <= 0, which gives 0; n == 0; no
// CLBlast) a plain kernel written here: one work-group of 256 work-items, each
// summing a strided slice, reduced in local memory.
#include "../plain_common.h"
#include "kgb_entries/blas/dasum.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void dasum(long n, __global const double* x, long xo, long incx, __global double* r, long ro) {
  __local double s[256];
  int l = get_local_id(0);
  double acc = 0.0;
  if (incx > 0)
    for (long i = l; i < n; i += 256) acc += fabs(x[xo + i * incx]);
  s[l] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = 128; width > 0; width >>= 1) {
    if (l < width) s[l] += s[l + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) r[ro] = s[0];
}
)CLC";

int dasum_plain(const kgb_tensor* x, kgb_tensor* result, kgb_stream stream) {
  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "dasum");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(static_cast<cl_long>(x->sizes[0])).tensor(x).value(x->strides[0]).tensor(result);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t group = 256;
  return kgb_cl_enqueue(stream, k, 1, &group, &group) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int dasum_clblast(const kgb_tensor* x, kgb_tensor* result, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  level1::ClVector cx;
  cl_mem rb = nullptr;
  size_t ro = 0;
  if (n == 0 || !level1::clblast_vector(stream, x, &cx) || !level1::clblast_scalar(stream, result, &rb, &ro))
    return dasum_plain(x, result, stream);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Asum<double>(static_cast<size_t>(n), rb, ro, cx.buffer, cx.offset, cx.inc, &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_dasum, "clblast", dasum_clblast);
#else
KGB_BASELINE(blas_dasum, kKind, dasum_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
