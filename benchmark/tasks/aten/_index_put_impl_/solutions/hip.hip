// aten/_index_put_impl_ in HIP (gfx90a): a port of the CUDA solution;
// index_put_ plus the `unsafe` flag, which only lets ATen skip its index
// checks (valid indices give the same result).
//
// The host works out the geometry without reading an index (they are in
// device memory): the broadcast index shape B, each present index item's
// device pointer and strides along B, and the other dims of self (None items
// and trailing dims) merged where self and values are both contiguous across
// them. It travels by value as a __grid_constant__ parameter: nothing is
// allocated or uploaded per call.
//
// One thread per element (b, q) of the indexed result, q (the other dims)
// fastest, so a warp moves neighbouring elements of a row and its lanes share
// the index loads of one b. A block covers a tile of q for several b: the
// index resolution of each b is done once per block into shared memory.
// Without accumulate the targets are distinct and every thread stores. With
// accumulate a target may repeat: atomicAdd for f32, f64 and 64-bit
// integers (the add wraps like ATen's); f16 and bf16 add in float inside a
// compare-and-swap loop on their aligned 32-bit word (kgb_half.h converts);
// bool is an atomicOr of the byte inside its aligned 32-bit word. The order of float
// additions is then free, which the task allows for accumulate cases.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kMax = 8;
constexpr int kThreadsQ = 128;  // threads along q per block
constexpr int kRowsB = 4;       // positions of B per block

struct Geometry {
  long long nb, nq;
  const long long* item[kMax];  // present index items (device pointers)
  long long item_size[kMax], item_stride[kMax];
  long long bstride[kMax][kMax];  // per item, its stride along each dim of B
  long long bsize[kMax], bval[kMax];
  long long osize[kMax], oself[kMax], oval[kMax];
  int np, rb, no;
};

__device__ __forceinline__ void resolve_b(const Geometry& g, long long b, long long* target, long long* vb) {
  long long bi[kMax];
  for (int d = g.rb - 1; d >= 0; --d) {
    const long long q = b / g.bsize[d];
    bi[d] = b - q * g.bsize[d];
    b = q;
  }
  long long t = 0, v = 0;
  for (int d = 0; d < g.rb; ++d) v += bi[d] * g.bval[d];
  for (int k = 0; k < g.np; ++k) {
    long long at = 0;
    for (int d = 0; d < g.rb; ++d) at += bi[d] * g.bstride[k][d];
    long long i = g.item[k][at];
    if (i < 0) i += g.item_size[k];
    t += i * g.item_stride[k];
  }
  *target = t;
  *vb = v;
}

__device__ __forceinline__ void resolve_q(const Geometry& g, long long q, long long* s, long long* v) {
  long long a = 0, c = 0;
  for (int d = g.no - 1; d >= 0; --d) {
    const long long n = q / g.osize[d], r = q - n * g.osize[d];
    q = n;
    a += r * g.oself[d];
    c += r * g.oval[d];
  }
  *s = a;
  *v = c;
}

// Element operations: assignment moves bits; accumulation is atomic.
template <typename E>
struct Assign {
  using T = E;
  __device__ static void apply(E* s, E v) { *s = v; }
};
struct AddF32 {
  using T = float;
  __device__ static void apply(float* s, float v) { atomicAdd(s, v); }
};
struct AddF64 {
  using T = double;
  __device__ static void apply(double* s, double v) { atomicAdd(s, v); }
};
template <bool Bf16>
struct AddHalf {  // float opmath, rounded once per addition
  using T = uint16_t;
  __device__ static void apply(uint16_t* s, uint16_t v) {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(s);
    unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t{3});
    const unsigned int shift = static_cast<unsigned int>(addr & 2) * 8;
    const float add = Bf16 ? kgb_bf16_to_float(v) : kgb_f16_to_float(v);
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const uint16_t cur = static_cast<uint16_t>(assumed >> shift);
      const float sum = (Bf16 ? kgb_bf16_to_float(cur) : kgb_f16_to_float(cur)) + add;
      const uint16_t next = Bf16 ? kgb_float_to_bf16(sum) : kgb_float_to_f16(sum);
      old = atomicCAS(word, assumed, (assumed & ~(0xffffu << shift)) | (static_cast<unsigned int>(next) << shift));
    } while (old != assumed);
  }
};
struct AddI64 {  // two's complement: the unsigned add wraps like ATen's
  using T = long long;
  __device__ static void apply(long long* s, long long v) {
    atomicAdd(reinterpret_cast<unsigned long long*>(s), static_cast<unsigned long long>(v));
  }
};
struct OrBool {
  using T = unsigned char;
  __device__ static void apply(unsigned char* s, unsigned char v) {
    if (!v) return;
    const uintptr_t addr = reinterpret_cast<uintptr_t>(s);
    atomicOr(reinterpret_cast<unsigned int*>(addr & ~uintptr_t{3}), 1u << (8 * (addr & 3)));
  }
};

template <typename Op>
__global__ void __launch_bounds__(kThreadsQ* kRowsB)
    index_put_kernel(typename Op::T* __restrict__ self, const typename Op::T* __restrict__ values,
                     const Geometry g) {
  __shared__ long long target[kRowsB], vbase[kRowsB];
  const int row = threadIdx.y;
  for (long long b0 = static_cast<long long>(blockIdx.y) * kRowsB; b0 < g.nb; b0 += static_cast<long long>(gridDim.y) * kRowsB) {
    const long long b = b0 + row;
    __syncthreads();
    if (threadIdx.x == 0 && b < g.nb) resolve_b(g, b, &target[row], &vbase[row]);
    __syncthreads();
    if (b >= g.nb) continue;
    for (long long q = static_cast<long long>(blockIdx.x) * kThreadsQ + threadIdx.x; q < g.nq;
         q += static_cast<long long>(gridDim.x) * kThreadsQ) {
      long long s, v;
      resolve_q(g, q, &s, &v);
      Op::apply(self + target[row] + s, values[vbase[row] + v]);
    }
  }
}

template <typename Op>
int launch(kgb_tensor* self, const kgb_tensor* values, const Geometry& g, hipStream_t stream) {
  const long long qblocks = (g.nq + kThreadsQ - 1) / kThreadsQ;
  const long long bblocks = (g.nb + kRowsB - 1) / kRowsB;
  const dim3 grid(static_cast<unsigned>(qblocks < 65535 ? qblocks : 65535), static_cast<unsigned>(bblocks < 65535 ? bblocks : 65535));
  index_put_kernel<Op><<<grid, dim3(kThreadsQ, kRowsB), 0, stream>>>(static_cast<typename Op::T*>(self->data),
                                                                      static_cast<const typename Op::T*>(values->data), g);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten__index_put_impl_(kgb_tensor* self, const kgb_tensor_list* indices, const kgb_tensor* values,
                                         int accumulate, int unsafe, kgb_stream stream) {
  (void)unsafe;  // the result of valid indices does not depend on it
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I64: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (values->dtype != self->dtype) return KGB_ERR_INVALID;
  const int rank = self->rank;
  const int count = static_cast<int>(indices->count);
  if (count < 1 || count > rank) return KGB_ERR_INVALID;

  Geometry g{};
  int present[kMax];
  for (int k = 0; k < count; ++k) {
    const kgb_tensor* t = indices->items[k];
    if (!t) continue;
    if (t->dtype != KGB_I64) return KGB_ERR_INVALID;
    present[g.np] = k;
    g.item[g.np] = static_cast<const long long*>(t->data);
    g.item_size[g.np] = self->sizes[k];
    g.item_stride[g.np] = self->strides[k];
    ++g.np;
    if (t->rank > g.rb) g.rb = t->rank;
  }
  if (g.np == 0) return KGB_ERR_INVALID;
  // B: right-aligned broadcast of the present items, and their strides along it.
  for (int d = 0; d < g.rb; ++d) g.bsize[d] = 1;
  for (int i = 0; i < g.np; ++i) {
    const kgb_tensor* t = indices->items[present[i]];
    for (int d = 0; d < t->rank; ++d) {
      const int at = g.rb - t->rank + d;
      if (t->sizes[d] == 1) continue;
      if (g.bsize[at] != 1 && g.bsize[at] != t->sizes[d]) return KGB_ERR_INVALID;
      g.bsize[at] = t->sizes[d];
      g.bstride[i][at] = t->strides[d];
    }
  }
  g.nb = 1;
  for (int d = 0; d < g.rb; ++d) g.nb *= g.bsize[d];

  // The other dims, and where B sits among them in the indexed result.
  const bool adjacent = present[g.np - 1] - present[0] + 1 == g.np;
  int other[kMax], no = 0, before = 0;
  for (int d = 0; d < rank; ++d)
    if (d >= count || !indices->items[d]) {
      other[no++] = d;
      if (adjacent && d < present[0]) ++before;
    }
  const int rr = no + g.rb;
  if (values->rank > rr) return KGB_ERR_INVALID;
  long long rsize[2 * kMax], vstride[2 * kMax] = {};
  for (int i = 0; i < before; ++i) rsize[i] = self->sizes[other[i]];
  for (int d = 0; d < g.rb; ++d) rsize[before + d] = g.bsize[d];
  for (int i = before; i < no; ++i) rsize[i + g.rb] = self->sizes[other[i]];
  for (int d = 0; d < values->rank; ++d) {
    const int r = rr - values->rank + d;
    if (values->sizes[d] == rsize[r]) vstride[r] = values->strides[d];
    else if (values->sizes[d] != 1) return KGB_ERR_INVALID;
  }
  for (int d = 0; d < g.rb; ++d) g.bval[d] = vstride[before + d];
  g.nq = 1;
  for (int i = 0; i < no; ++i) {
    const int r = i < before ? i : i + g.rb;
    const long long size = self->sizes[other[i]], s = self->strides[other[i]], v = vstride[r];
    g.nq *= size;
    if (size == 1) continue;
    if (g.no > 0 && g.oself[g.no - 1] == s * size && g.oval[g.no - 1] == v * size) {
      g.osize[g.no - 1] *= size;
      g.oself[g.no - 1] = s;
      g.oval[g.no - 1] = v;
      continue;
    }
    g.osize[g.no] = size;
    g.oself[g.no] = s;
    g.oval[g.no] = v;
    ++g.no;
  }
  if (g.nb == 0 || g.nq == 0) return KGB_OK;

  hipStream_t s = static_cast<hipStream_t>(stream);
  if (!accumulate) {
    switch (kgb_dtype_size(self->dtype)) {
      case 1: return launch<Assign<uint8_t>>(self, values, g, s);
      case 2: return launch<Assign<uint16_t>>(self, values, g, s);
      case 4: return launch<Assign<uint32_t>>(self, values, g, s);
      default: return launch<Assign<uint64_t>>(self, values, g, s);
    }
  }
  switch (self->dtype) {
    case KGB_F32: return launch<AddF32>(self, values, g, s);
    case KGB_F64: return launch<AddF64>(self, values, g, s);
    case KGB_F16: return launch<AddHalf<false>>(self, values, g, s);
    case KGB_BF16: return launch<AddHalf<true>>(self, values, g, s);
    case KGB_I64: return launch<AddI64>(self, values, g, s);
    default: return launch<OrBool>(self, values, g, s);
  }
}
