// aten/masked_fill_ on CUDA: self[i] = value where the broadcast mask is true,
// in place. The fill moves raw 1/2/4/8-byte elements: the Scalar overload
// converts the value on the host into self's dtype; the Tensor overload reads
// the rank-0 value tensor in the kernel (no device-to-host copy, no sync).
// The views of self and mask are folded (mask's broadcast dims stride 0,
// size-1 dims dropped, dims contiguous for both merged). Flat contiguous
// self and mask take a kernel that loads 4 mask bytes and 4 elements per
// step (read-modify-write of whole vectors); anything else a grid-stride
// loop with offsets from the linear index.
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

struct Geometry {
  int ndim = 0;
  int64_t sizes[KGB_MAX_RANK] = {};
  int64_t strides[2][KGB_MAX_RANK] = {};  // self, mask
};

template <typename E>
struct alignas(sizeof(E) * 4) Pack4 {
  E v[4];
};

// value: the device value (Tensor overload) or nullptr, then `bits` is used.
template <typename E>
__global__ void __launch_bounds__(kThreads) fill_flat4(E* __restrict__ p, const uint8_t* __restrict__ m, int64_t n,
                                                       const E* __restrict__ value, E bits) {
  const E v = value ? *value : bits;
  const int64_t packs = n / 4;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  for (int64_t q = first; q < packs; q += step) {
    const uchar4 mk = reinterpret_cast<const uchar4*>(m)[q];
    if (!(mk.x | mk.y | mk.z | mk.w)) continue;  // nothing to write: skip the load and store
    Pack4<E> x = reinterpret_cast<const Pack4<E>*>(p)[q];
    if (mk.x) x.v[0] = v;
    if (mk.y) x.v[1] = v;
    if (mk.z) x.v[2] = v;
    if (mk.w) x.v[3] = v;
    reinterpret_cast<Pack4<E>*>(p)[q] = x;
  }
  for (int64_t i = packs * 4 + first; i < n; i += step)
    if (m[i]) p[i] = v;
}

template <typename E>
__global__ void __launch_bounds__(kThreads) fill_strided(E* __restrict__ p, const uint8_t* __restrict__ m, Geometry g,
                                                         int64_t n, const E* __restrict__ value, E bits) {
  const E v = value ? *value : bits;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    int64_t rest = i, po = 0, mo = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
      const int64_t c = rest % g.sizes[d];
      rest /= g.sizes[d];
      po += c * g.strides[0][d];
      mo += c * g.strides[1][d];
    }
    if (m[mo]) p[po] = v;
  }
}

bool fold(const kgb_tensor* self, const kgb_tensor* mask, Geometry& g) {
  if (mask->rank > self->rank) return false;
  g.ndim = 0;
  for (int d = 0; d < self->rank; ++d) {
    const int64_t n = self->sizes[d];
    const int k = d - (self->rank - mask->rank);
    int64_t ms = 0;
    if (k >= 0 && mask->sizes[k] != 1) {
      if (mask->sizes[k] != n) return false;
      ms = mask->strides[k];
    }
    if (n == 1) continue;
    if (g.ndim > 0) {
      const int last = g.ndim - 1;
      if (g.strides[0][last] == self->strides[d] * n && g.strides[1][last] == ms * n) {
        g.sizes[last] *= n;
        g.strides[0][last] = self->strides[d];
        g.strides[1][last] = ms;
        continue;
      }
    }
    g.sizes[g.ndim] = n;
    g.strides[0][g.ndim] = self->strides[d];
    g.strides[1][g.ndim] = ms;
    ++g.ndim;
  }
  if (g.ndim == 0) {
    g.ndim = 1;
    g.sizes[0] = 1;
  }
  return true;
}

unsigned grid_for(int64_t items) {
  const int64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 65536 ? 65536 : blocks));
}

template <typename E>
int launch(kgb_tensor* self, const kgb_tensor* mask, const Geometry& g, const void* value, uint64_t bits, cudaStream_t s) {
  const int64_t n = kgb_numel(self);
  E* p = static_cast<E*>(self->data);
  const auto* m = static_cast<const uint8_t*>(mask->data);
  const E* v = static_cast<const E*>(value);
  const bool flat = g.ndim == 1 && g.strides[0][0] == 1 && g.strides[1][0] == 1;
  if (flat && reinterpret_cast<uintptr_t>(p) % (4 * sizeof(E)) == 0 && reinterpret_cast<uintptr_t>(m) % 4 == 0)
    fill_flat4<E><<<grid_for(n / 4), kThreads, 0, s>>>(p, m, n, v, static_cast<E>(bits));
  else
    fill_strided<E><<<grid_for(n), kThreads, 0, s>>>(p, m, g, n, v, static_cast<E>(bits));
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

bool supported(int32_t t) {
  return t == KGB_F32 || t == KGB_F64 || t == KGB_F16 || t == KGB_BF16 || t == KGB_I32 || t == KGB_I64 || t == KGB_BOOL;
}

// value: a device pointer to the fill value (Tensor overload) or nullptr (use bits).
int masked_fill(kgb_tensor* self, const kgb_tensor* mask, const void* value, uint64_t bits, kgb_stream stream) {
  if (mask->dtype != KGB_BOOL || !supported(self->dtype)) return KGB_ERR_UNSUPPORTED;
  Geometry g;
  if (!fold(self, mask, g)) return KGB_ERR_INVALID;
  if (kgb_numel(self) == 0) return KGB_OK;
  auto s = static_cast<cudaStream_t>(stream);
  switch (kgb_dtype_size(self->dtype)) {
    case 1: return launch<uint8_t>(self, mask, g, value, bits, s);
    case 2: return launch<uint16_t>(self, mask, g, value, bits, s);
    case 4: return launch<uint32_t>(self, mask, g, value, bits, s);
    default: return launch<uint64_t>(self, mask, g, value, bits, s);
  }
}

// The Scalar's bytes in self's dtype (a cast: f16/bf16 round to nearest even).
uint64_t value_bits(int32_t dtype, kgb_scalar value) {
  const double real = value.dtype == KGB_F64 ? value.v.f : static_cast<double>(value.v.i);
  const int64_t integer = value.dtype == KGB_F64 ? static_cast<int64_t>(value.v.f) : value.v.i;
  switch (dtype) {
    case KGB_F32: { const float f = static_cast<float>(real); uint32_t u; memcpy(&u, &f, 4); return u; }
    case KGB_F64: { uint64_t u; memcpy(&u, &real, 8); return u; }
    case KGB_F16: return kgb_float_to_f16(static_cast<float>(real));
    case KGB_BF16: return kgb_float_to_bf16(static_cast<float>(real));
    case KGB_I32: return static_cast<uint32_t>(static_cast<int32_t>(integer));
    case KGB_I64: return static_cast<uint64_t>(integer);
    default: return integer != 0 || real != 0;
  }
}

}  // namespace

extern "C" int kgb_aten_masked_fill_(kgb_tensor* self, const kgb_tensor* mask, kgb_scalar value, kgb_stream stream) {
  return masked_fill(self, mask, nullptr, value_bits(self->dtype, value), stream);
}

extern "C" int kgb_aten_masked_fill__Tensor(kgb_tensor* self, const kgb_tensor* mask, const kgb_tensor* value,
                                            kgb_stream stream) {
  if (value->dtype != self->dtype || kgb_numel(value) != 1) return KGB_ERR_UNSUPPORTED;
  return masked_fill(self, mask, value->data, 0, stream);
}
