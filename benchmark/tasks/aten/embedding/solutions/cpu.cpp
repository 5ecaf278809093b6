// aten/embedding (forward) on the CPU: out[p, :] = weight[indices[p], :].
//
// A row copy, so elements move as 2/4/8-byte words. The index positions are
// resolved once (read, range-checked, paired with their out row), then the
// rows are copied in parallel: memcpy when the weight row and the out row are
// both dense, else a strided loop. Tables with few lookups of long rows are
// split along the row as well, so every core gets work.
#include <stdint.h>
#include <string.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

struct Lookup {
  int64_t row;  // weight row (times the weight's row stride)
  int64_t out;  // offset of the out row
};

template <typename E>
void copy_rows(const std::vector<Lookup>& lookups, const kgb_tensor* weight, kgb_tensor* out, int64_t width) {
  const E* w = static_cast<const E*>(weight->data);
  E* y = static_cast<E*>(out->data);
  const int64_t ws = weight->strides[1], os = out->strides[out->rank - 1];
  const int64_t n = static_cast<int64_t>(lookups.size());
  const int64_t kChunk = 8192;  // elements per work item along a row
  const int64_t chunks = (width + kChunk - 1) / kChunk;
  const bool dense = ws == 1 && os == 1;
#pragma omp parallel for schedule(static) if (n * width > 32768)
  for (int64_t t = 0; t < n * chunks; ++t) {
    const Lookup& l = lookups[static_cast<size_t>(t / chunks)];
    const int64_t j0 = (t % chunks) * kChunk, len = width - j0 < kChunk ? width - j0 : kChunk;
    const E* __restrict src = w + l.row + j0 * ws;
    E* __restrict dst = y + l.out + j0 * os;
    if (dense) {
      memcpy(dst, src, static_cast<size_t>(len) * sizeof(E));
    } else {
      for (int64_t j = 0; j < len; ++j) dst[j * os] = src[j * ws];
    }
  }
}

template <typename I>
int resolve(const kgb_tensor* weight, const kgb_tensor* indices, const kgb_tensor* out, std::vector<Lookup>& lookups) {
  const int r = indices->rank;
  int64_t n = 1;
  for (int d = 0; d < r; ++d) n *= indices->sizes[d];
  lookups.resize(static_cast<size_t>(n));
  const I* ix = static_cast<const I*>(indices->data);
  const int64_t rows = weight->sizes[0], row_stride = weight->strides[0];
  int64_t pos[KGB_MAX_RANK] = {}, io = 0, oo = 0;
  for (int64_t p = 0; p < n; ++p) {
    const int64_t v = static_cast<int64_t>(ix[io]);
    if (v < 0 || v >= rows) return KGB_ERR_INVALID;
    lookups[static_cast<size_t>(p)] = {v * row_stride, oo};
    for (int d = r - 1; d >= 0; --d) {  // row-major odometer over indices
      io += indices->strides[d];
      oo += out->strides[d];
      if (++pos[d] < indices->sizes[d]) break;
      io -= indices->strides[d] * pos[d];
      oo -= out->strides[d] * pos[d];
      pos[d] = 0;
    }
  }
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_aten_embedding(const kgb_tensor* weight, const kgb_tensor* indices, int64_t padding_idx,
                                  kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  (void)padding_idx;  // only affects the gradient
  if (weight->rank != 2 || out->dtype != weight->dtype || out->rank != indices->rank + 1) return KGB_ERR_INVALID;
  if (indices->dtype != KGB_I32 && indices->dtype != KGB_I64) return KGB_ERR_INVALID;
  for (int d = 0; d < indices->rank; ++d)
    if (out->sizes[d] != indices->sizes[d]) return KGB_ERR_INVALID;
  const int64_t width = weight->sizes[1];
  if (out->sizes[indices->rank] != width) return KGB_ERR_INVALID;
  std::vector<Lookup> lookups;
  const int status = indices->dtype == KGB_I32 ? resolve<int32_t>(weight, indices, out, lookups)
                                               : resolve<int64_t>(weight, indices, out, lookups);
  if (status != KGB_OK) return status;
  if (lookups.empty() || width == 0) return KGB_OK;
  switch (weight->dtype) {
    case KGB_F16: case KGB_BF16: copy_rows<uint16_t>(lookups, weight, out, width); return KGB_OK;
    case KGB_F32: copy_rows<uint32_t>(lookups, weight, out, width); return KGB_OK;
    case KGB_F64: copy_rows<uint64_t>(lookups, weight, out, width); return KGB_OK;
    default: return KGB_ERR_UNSUPPORTED;
  }
}
