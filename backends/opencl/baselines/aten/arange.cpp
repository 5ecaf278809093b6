// aten/arange, plain OpenCL baseline: one work-item per element of out,
// value start + step * i in the accumulation type (float for 16/32-bit
// floats, double for f64, long for integers), one program per dtype.
#include <string>

#include "../plain_common.h"
#include "kgb_entries/aten/arange.h"
#include "kgb_half.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(KGB_CL_HALF_SOURCE) + R"CLC(
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double S; typedef double A;
#define STORE(v) (v)
#elif KGB_DT == 6
typedef float S; typedef float A;
#define STORE(v) (v)
#elif KGB_DT == 4
typedef ushort S; typedef float A;
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_DT == 5
typedef ushort S; typedef float A;
#define STORE(v) kgb_float_to_bf16(v)
#elif KGB_DT == 3
typedef long S; typedef long A;
#define STORE(v) (v)
#elif KGB_DT == 2
typedef int S; typedef long A;
#define STORE(v) ((int)(v))
#elif KGB_DT == 11
typedef short S; typedef long A;
#define STORE(v) ((short)(v))
#elif KGB_DT == 1
typedef char S; typedef long A;
#define STORE(v) ((char)(v))
#else
typedef uchar S; typedef long A;
#define STORE(v) ((uchar)(v))
#endif
__kernel void arange(__global S* o, long oo, long n, long stride, A start, A step) {
  long i = get_global_id(0);
  if (i < n) o[oo + i * stride] = STORE(start + step * (A)i);
}
)CLC";

double real(const kgb_scalar& s) { return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i); }

int run(const kgb_scalar& start, const kgb_scalar& step, kgb_tensor* out, kgb_stream stream) {
  const int32_t t = out->dtype;
  const char* options = t == KGB_U8    ? "-cl-std=CL1.2 -DKGB_DT=10"
                        : t == KGB_I8  ? "-cl-std=CL1.2 -DKGB_DT=1"
                        : t == KGB_I16 ? "-cl-std=CL1.2 -DKGB_DT=11"
                        : t == KGB_I32 ? "-cl-std=CL1.2 -DKGB_DT=2"
                        : t == KGB_I64 ? "-cl-std=CL1.2 -DKGB_DT=3"
                        : t == KGB_F16 ? "-cl-std=CL1.2 -DKGB_DT=4"
                        : t == KGB_BF16 ? "-cl-std=CL1.2 -DKGB_DT=5"
                        : t == KGB_F32 ? "-cl-std=CL1.2 -DKGB_DT=6"
                        : t == KGB_F64 ? "-cl-std=CL1.2 -DKGB_DT=7"
                                       : nullptr;
  if (out->rank != 1) return KGB_ERR_INVALID;
  const cl_long n = out->sizes[0];
  if (n == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, options, "arange");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).value(n).value(static_cast<cl_long>(out->strides[0]));
  if (t == KGB_F64) args.value(static_cast<cl_double>(real(start))).value(static_cast<cl_double>(real(step)));
  else if (t == KGB_F32 || t == KGB_F16 || t == KGB_BF16) args.value(static_cast<cl_float>(real(start))).value(static_cast<cl_float>(real(step)));
  else args.value(static_cast<cl_long>(start.v.i)).value(static_cast<cl_long>(step.v.i));
  return args.error == CL_SUCCESS ? launch(stream, k, n) : KGB_ERR_INVALID;
}

kgb_scalar integer(int64_t v) {
  kgb_scalar s{};
  s.dtype = KGB_I64;
  s.v.i = v;
  return s;
}

int arange_end(kgb_scalar /*end*/, const int* /*dtype*/, kgb_tensor* out, kgb_stream stream) {
  return run(integer(0), integer(1), out, stream);
}
int arange_start(kgb_scalar start, kgb_scalar /*end*/, const int* /*dtype*/, kgb_tensor* out, kgb_stream stream) {
  return run(start, integer(1), out, stream);
}
int arange_start_step(kgb_scalar start, kgb_scalar /*end*/, kgb_scalar step, const int* /*dtype*/, kgb_tensor* out,
                      kgb_stream stream) {
  return run(start, step, out, stream);
}

}  // namespace
KGB_BASELINE(aten_arange, kKind, arange_end);
KGB_BASELINE(aten_arange_start, kKind, arange_start);
KGB_BASELINE(aten_arange_start_step, kKind, arange_start_step);
}  // namespace kgb::opencl::plain
