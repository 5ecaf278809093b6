// blas/sdot baseline: CLBlast's Dot<float> where CLBlast is installed and the
// increments are both positive or both negative; otherwise (an increment of 0,
// mixed signs, n == 0, no CLBlast) a plain kernel written here: one work-group
// of 256 work-items, each summing a strided slice, reduced in local memory.
#include "../plain_common.h"
#include "kgb_entries/blas/sdot.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#include "level1.h"
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
__kernel void sdot(long n, __global const float* x, long xo, long incx, __global const float* y, long yo, long incy,
                   __global float* r, long ro) {
  __local float s[256];
  int l = get_local_id(0);
  float acc = 0.0f;
  for (long i = l; i < n; i += 256) acc += x[xo + i * incx] * y[yo + i * incy];
  s[l] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = 128; width > 0; width >>= 1) {
    if (l < width) s[l] += s[l + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) r[ro] = s[0];
}
)CLC";

int sdot_plain(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "sdot");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(static_cast<cl_long>(x->sizes[0])).tensor(x).value(x->strides[0]).tensor(y).value(y->strides[0]).tensor(result);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t group = 256;
  return kgb_cl_enqueue(stream, k, 1, &group, &group) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
int sdot_clblast(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  const cl_long n = x->sizes[0];
  level1::ClVector cx, cy;
  cl_mem rb = nullptr;
  size_t ro = 0;
  if (n == 0 || !level1::clblast_vectors(stream, x, y, &cx, &cy) || !level1::clblast_scalar(stream, result, &rb, &ro))
    return sdot_plain(x, y, result, stream);
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::Dot<float>(static_cast<size_t>(n), rb, ro, cx.buffer, cx.offset, cx.inc, cy.buffer, cy.offset, cy.inc,
                                    &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_sdot, "clblast", sdot_clblast);
#else
KGB_BASELINE(blas_sdot, kKind, sdot_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
