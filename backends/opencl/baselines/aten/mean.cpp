// aten/mean and aten/mean.dim, plain OpenCL baseline: one work-item per
// output element sums its slice in the prelude's compute type and divides
// once. A complex tensor is walked as reals with one more kept dimension
// (re, im).
#include "kgb_entries/aten/mean.h"
#include "reduction_plain.h"

namespace kgb::opencl::plain {
namespace {

// KGB_DT: self's (real) dtype; KGB_RT: the result's.
const std::string kSource = std::string(dtype_prelude()) + R"CLC(
#if KGB_RT == 6
typedef float D;
#define STORE_D(v) ((float)(v))
#elif KGB_RT == 7
typedef double D;
#define STORE_D(v) ((double)(v))
#elif KGB_RT == 4
typedef ushort D;
#define STORE_D(v) f2h((float)(v))
#else
typedef ushort D;
#define STORE_D(v) f2bf((float)(v))
#endif
__kernel void mean(__global D* o, long oo, __global const S* x, long xo, Dims kept, int krank, Dims red, int rrank,
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
  o[oo + a] = STORE_D(acc / (C)len);
}
)CLC";

int32_t real_dtype(int32_t dtype) { return dtype == KGB_C64 ? KGB_F32 : dtype == KGB_C128 ? KGB_F64 : dtype; }

int mean_over(const kgb_tensor* self, const kgb_int_list* dims, int keepdim, kgb_tensor* out, kgb_stream stream) {
  const int32_t in = real_dtype(self->dtype), res = real_dtype(out->dtype);
  const bool complex = self->dtype == KGB_C64 || self->dtype == KGB_C128;
  if ((in != KGB_F32 && in != KGB_F64 && in != KGB_F16 && in != KGB_BF16) ||
      (res != KGB_F32 && res != KGB_F64 && res != KGB_F16 && res != KGB_BF16))
    return KGB_ERR_UNSUPPORTED;
  const reduction::Walks w = reduction::walks(self, out, dims ? dims->values : nullptr, dims ? dims->count : 0,
                                               keepdim != 0, complex);
  const Dims& kept = w.kept;
  const Dims& red = w.red;
  if (kept.count == 0) return KGB_OK;
  const std::string options = "-cl-std=CL1.2 -DKGB_DT=" + std::to_string(in) + " -DKGB_RT=" + std::to_string(res);
  cl_kernel k = kernel(stream, kSource, options.c_str(), "mean");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).dims(kept).dims(red).value(kept.count).value(red.count);
  args.value(static_cast<cl_long>(complex ? 2 : 1));
  return args.error == CL_SUCCESS ? launch(stream, k, kept.count) : KGB_ERR_INVALID;
}

int mean(const kgb_tensor* self, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  (void)dtype;  // out already has the requested dtype
  return mean_over(self, nullptr, 0, out, stream);
}

int mean_dim(const kgb_tensor* self, kgb_int_list dim, int keepdim, const int* dtype, kgb_tensor* out,
             kgb_stream stream) {
  (void)dtype;
  return mean_over(self, &dim, keepdim, out, stream);
}

}  // namespace
KGB_BASELINE(aten_mean, kKind, mean);
KGB_BASELINE(aten_mean_dim, kKind, mean_dim);
}  // namespace kgb::opencl::plain
