// aten/sum and aten/sum.dim_IntList, plain OpenCL baseline: one work-item per
// output element sums its slice in the prelude's compute type (long for
// integers and bool). A complex tensor is walked as reals with one more kept
// dimension (re, im).
#include "kgb_entries/aten/sum.h"
#include "reduction_plain.h"

namespace kgb::opencl::plain {
namespace {

// KGB_DT: self's (real) dtype; KGB_RT: the result's.
const std::string kSource = std::string(dtype_prelude()) + R"CLC(
#if KGB_DT == 10
typedef uchar S; typedef long C;
#define LOAD(v) ((long)(v))
#elif KGB_DT == 0
typedef uchar S; typedef long C;
#define LOAD(v) ((long)((v) != 0))
#endif
#if KGB_RT == 6
typedef float D;
#define STORE_D(v) ((float)(v))
#elif KGB_RT == 7
typedef double D;
#define STORE_D(v) ((double)(v))
#elif KGB_RT == 4
typedef ushort D;
#define STORE_D(v) f2h((float)(v))
#elif KGB_RT == 5
typedef ushort D;
#define STORE_D(v) f2bf((float)(v))
#elif KGB_RT == 3
typedef long D;
#define STORE_D(v) ((long)(v))
#else
typedef int D;
#define STORE_D(v) ((int)(v))
#endif
__kernel void sum(__global D* o, long oo, __global const S* x, long xo, Dims kept, int krank, Dims red, int rrank,
                  long outputs, long len, long parts) {
  long s = get_global_id(0);
  if (s >= outputs) return;
  oo *= parts;  /* element offsets -> reals (complex) */
  xo *= parts;
  long a, b, c, d;
  offsets(&kept, krank, s, &a, &b, &c, &d);
  C acc = 0;
  for (long k = 0; k < len; ++k) {
    long e, f, g, h;
    offsets(&red, rrank, k, &e, &f, &g, &h);
    acc += LOAD(x[xo + b + e]);
  }
  o[oo + a] = STORE_D(acc);
}
)CLC";

int sum_over(const kgb_tensor* self, const kgb_int_list* dims, int keepdim, kgb_tensor* out, kgb_stream stream) {
  const bool complex = self->dtype == KGB_C64;
  const int32_t in = complex ? KGB_F32 : self->dtype, res = complex ? KGB_F32 : out->dtype;
  if ((in != KGB_F32 && in != KGB_F64 && in != KGB_F16 && in != KGB_BF16 && in != KGB_I32 && in != KGB_I64 &&
       in != KGB_U8 && in != KGB_BOOL) ||
      (res != KGB_F32 && res != KGB_F64 && res != KGB_F16 && res != KGB_BF16 && res != KGB_I32 && res != KGB_I64))
    return KGB_ERR_UNSUPPORTED;
  const reduction::Walks w = reduction::walks(self, out, dims ? dims->values : nullptr, dims ? dims->count : 0,
                                               keepdim != 0, complex);
  const Dims& kept = w.kept;
  const Dims& red = w.red;
  if (kept.count == 0) return KGB_OK;
  const std::string options = "-cl-std=CL1.2 -DKGB_DT=" + std::to_string(in) + " -DKGB_RT=" + std::to_string(res);
  cl_kernel k = kernel(stream, kSource, options.c_str(), "sum");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).dims(kept).dims(red).value(kept.count).value(red.count);
  args.value(static_cast<cl_long>(complex ? 2 : 1));
  return args.error == CL_SUCCESS ? launch(stream, k, kept.count) : KGB_ERR_INVALID;
}

int sum(const kgb_tensor* self, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  (void)dtype;  // out already has the requested dtype
  return sum_over(self, nullptr, 0, out, stream);
}

int sum_dim(const kgb_tensor* self, kgb_int_list dim, int keepdim, const int* dtype, kgb_tensor* out,
            kgb_stream stream) {
  (void)dtype;
  return sum_over(self, &dim, keepdim, out, stream);
}

}  // namespace
KGB_BASELINE(aten_sum, kKind, sum);
KGB_BASELINE(aten_sum_dim_IntList, kKind, sum_dim);
}  // namespace kgb::opencl::plain
