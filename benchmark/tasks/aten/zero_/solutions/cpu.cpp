// aten/zero_ on the CPU. Zero is all-zero bytes in every dtype, so the
// kernel only knows element widths. The view is folded into the fewest dims
// (size-1 dims dropped, dims walked by falling stride, adjacent dims fused
// when they tile): a contiguous or padded view becomes long unit-stride rows,
// cleared with memset (glibc's vectorised, non-temporal for large blocks)
// split across cores with OpenMP; stepped or transposed views store a typed
// zero per element.
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

// ---- the view folded into rows ----------------------------------------------
struct Space {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t stride[KGB_MAX_RANK];
};

void fold(const kgb_tensor* t, Space& sp) {
  Space raw;
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    raw.size[raw.rank] = t->sizes[d];
    raw.stride[raw.rank] = t->strides[d];
    ++raw.rank;
  }
  for (int i = 1; i < raw.rank; ++i)  // largest stride first: the innermost dim has the smallest
    for (int j = i; j > 0 && raw.stride[j - 1] < raw.stride[j]; --j) {
      int64_t s = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = s;
      s = raw.stride[j]; raw.stride[j] = raw.stride[j - 1]; raw.stride[j - 1] = s;
    }
  sp.rank = 0;
  for (int d = 0; d < raw.rank; ++d) {
    if (sp.rank > 0 && sp.stride[sp.rank - 1] == raw.stride[d] * raw.size[d]) {
      sp.size[sp.rank - 1] *= raw.size[d];
      sp.stride[sp.rank - 1] = raw.stride[d];
      continue;
    }
    sp.size[sp.rank] = raw.size[d];
    sp.stride[sp.rank] = raw.stride[d];
    ++sp.rank;
  }
  if (sp.rank == 0) {
    sp.rank = 1;
    sp.size[0] = 1;
    sp.stride[0] = 1;
  }
}

// ---- the stores ---------------------------------------------------------------
template <typename W>
void fill_row(W* __restrict p, int64_t n, int64_t stride, W v) {
  if (stride == 1) {
    memset(static_cast<void*>(p), 0, static_cast<size_t>(n) * sizeof(W));
  } else {
    for (int64_t i = 0; i < n; ++i) p[i * stride] = v;
  }
}

template <typename W>
void fill_view(const kgb_tensor* t, const Space& sp, W v) {
  W* base = static_cast<W*>(t->data);
  const int inner_dim = sp.rank - 1;
  const int64_t inner = sp.size[inner_dim], inner_stride = sp.stride[inner_dim];
  int64_t outer = 1;
  for (int d = 0; d < inner_dim; ++d) outer *= sp.size[d];
  if (outer == 1) {
    // One long row: cores take contiguous blocks of it.
    const int64_t block = 16384;
    const int64_t blocks = (inner + block - 1) / block;
#pragma omp parallel for schedule(static) if (blocks > 4)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t first = b * block, n = inner - first < block ? inner - first : block;
      fill_row(base + first * inner_stride, n, inner_stride, v);
    }
    return;
  }
#pragma omp parallel for schedule(static) if (outer * inner > 32768)
  for (int64_t r = 0; r < outer; ++r) {
    int64_t offset = 0, rest = r;
    for (int d = inner_dim - 1; d >= 0; --d) {
      offset += (rest % sp.size[d]) * sp.stride[d];
      rest /= sp.size[d];
    }
    fill_row(base + offset, inner, inner_stride, v);
  }
}

int zero_view(kgb_tensor* self) {
  const int32_t elem = kgb_dtype_size(self->dtype);
  if (elem == 0) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(self) == 0) return KGB_OK;
  Space sp;
  fold(self, sp);
  switch (elem) {
    case 1: fill_view<uint8_t>(self, sp, 0); break;
    case 2: fill_view<uint16_t>(self, sp, 0); break;
    case 4: fill_view<uint32_t>(self, sp, 0); break;
    case 8: fill_view<uint64_t>(self, sp, 0); break;
    default: fill_view(self, sp, Bytes16{0, 0}); break;
  }
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_aten_zero_(kgb_tensor* self, kgb_stream stream) {
  (void)stream;
  return zero_view(self);
}
