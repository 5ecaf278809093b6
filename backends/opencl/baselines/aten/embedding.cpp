// aten/embedding, plain OpenCL baseline: one work-item per out element, its
// position decomposed over all dimensions of out; the leading ones address
// indices, the last one the feature of the looked-up weight row.
#include <string>

#include "../plain_common.h"
#include "kgb_entries/aten/embedding.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + word_prelude() + R"CLC(
// Dims: s0 = out strides, s1 = indices strides (0 at the feature dim),
// s2 = the weight's feature stride at the feature dim (0 elsewhere).
__kernel void embedding(__global E* o, long oo, __global const E* w, long wo, __global const IDX* idx, long io,
                        Dims g, int rank, long n, long row_step) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, unused;
  offsets(&g, rank, i, &a, &b, &c, &unused);
  o[oo + a] = w[wo + c + (long)idx[io + b] * row_step];
}
)CLC";

int embedding(const kgb_tensor* weight, const kgb_tensor* indices, int64_t padding_idx, kgb_tensor* out,
              kgb_stream stream) {
  (void)padding_idx;  // gradient-only
  if (weight->rank != 2 || out->rank != indices->rank + 1) return KGB_ERR_INVALID;
  Dims g;
  for (int d = 0; d < indices->rank; ++d) g.add(out->sizes[d], out->strides[d], indices->strides[d], 0);
  g.add(out->sizes[indices->rank], out->strides[indices->rank], 0, weight->strides[1]);
  if (g.count == 0) return KGB_OK;
  std::string options = "-cl-std=CL1.2 -DELEM=" + std::to_string(kgb_dtype_size(weight->dtype));
  options += indices->dtype == KGB_I32 ? " -DIDX=int" : " -DIDX=long";
  cl_kernel k = kernel(stream, kSource, options.c_str(), "embedding");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(weight).tensor(indices).dims(g).value(g.count).value(static_cast<cl_long>(weight->strides[0]));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_embedding, kKind, embedding);
}  // namespace kgb::opencl::plain
