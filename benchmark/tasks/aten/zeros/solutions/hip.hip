// aten/zeros in HIP, a port of the CUDA solution. Zero is all-zero bytes in
// every dtype. The view is folded into the fewest dims (size-1 dims dropped,
// dims by falling stride, adjacent dims fused when they tile):
//  - contiguous: one hipMemsetAsync over the view's bytes;
//  - anything else (padded, transposed, stepped): a kernel storing a typed
//    zero per element, offsets from the linear index, grid-stride loop
//    (hipMemset2DAsync, the CUDA solution's path for padded rows, is not on
//    the HIP platform's runtime allowlist).
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

struct Bytes16 {
  uint64_t lo, hi;
};

struct Folded {
  int rank;
  int64_t size[KGB_MAX_RANK];
  int64_t stride[KGB_MAX_RANK];
};

void fold(const kgb_tensor* t, Folded& f) {
  Folded raw;
  raw.rank = 0;
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    raw.size[raw.rank] = t->sizes[d];
    raw.stride[raw.rank] = t->strides[d];
    ++raw.rank;
  }
  for (int i = 1; i < raw.rank; ++i)
    for (int j = i; j > 0 && raw.stride[j - 1] < raw.stride[j]; --j) {
      int64_t s = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = s;
      s = raw.stride[j]; raw.stride[j] = raw.stride[j - 1]; raw.stride[j - 1] = s;
    }
  f.rank = 0;
  for (int d = 0; d < raw.rank; ++d) {
    if (f.rank > 0 && f.stride[f.rank - 1] == raw.stride[d] * raw.size[d]) {
      f.size[f.rank - 1] *= raw.size[d];
      f.stride[f.rank - 1] = raw.stride[d];
      continue;
    }
    f.size[f.rank] = raw.size[d];
    f.stride[f.rank] = raw.stride[d];
    ++f.rank;
  }
  if (f.rank == 0) {
    f.rank = 1;
    f.size[0] = 1;
    f.stride[0] = 1;
  }
}

template <typename W>
__global__ void zero_strided(W* __restrict__ p, Folded f, int64_t n) {
  W zero;
  memset(&zero, 0, sizeof zero);
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t offset = 0, rest = i;
    for (int d = f.rank - 1; d > 0; --d) {
      const int64_t q = rest / f.size[d];
      offset += (rest - q * f.size[d]) * f.stride[d];
      rest = q;
    }
    p[offset + rest * f.stride[0]] = zero;
  }
}

template <typename W>
int zero_elements(kgb_tensor* self, const Folded& f, hipStream_t s) {
  const int64_t n = kgb_numel(self);
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 4096) blocks = 4096;
  zero_strided<W><<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(static_cast<W*>(self->data), f, n);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_zeros(kgb_int_list size, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  // out already has the shape and the dtype asked for: size and dtype only describe it.
  if (size.count != out->rank || (dtype && *dtype != out->dtype)) return KGB_ERR_INVALID;
  const int64_t elem = kgb_dtype_size(out->dtype);
  if (elem == 0) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  hipStream_t s = static_cast<hipStream_t>(stream);
  Folded f;
  fold(out, f);
  if (f.rank == 1 && f.stride[0] == 1)
    return hipMemsetAsync(out->data, 0, static_cast<size_t>(f.size[0] * elem), s) == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
  switch (elem) {
    case 1: return zero_elements<uint8_t>(out, f, s);
    case 2: return zero_elements<uint16_t>(out, f, s);
    case 4: return zero_elements<uint32_t>(out, f, s);
    case 8: return zero_elements<uint64_t>(out, f, s);
    default: return zero_elements<Bytes16>(out, f, s);
  }
}
