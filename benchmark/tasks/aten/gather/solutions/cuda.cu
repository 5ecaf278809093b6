// aten/gather on CUDA: out[p] = self[p with coordinate dim := index[p]].
//
// A pure copy, so elements move as raw 1/2/4/8-byte words. Threads run over
// out in row-major order (grid-stride loops), so index reads and out writes
// are coalesced; self reads are coalesced when dim is not the last dimension
// (neighbouring threads read neighbouring columns of the rows they pick) and
// random otherwise, through the read-only cache.
//  - Dense path (index and out contiguous, last dimension a multiple of 4,
//    aligned pointers): each thread moves 4 neighbouring elements: two
//    16-byte index loads, four self loads, one vector store of 4 words.
//  - Strided path: one element per thread, offsets from the coordinates.
// Index values outside [0, size(self, dim)) are never dereferenced; such
// elements are left unwritten (ATen's CUDA kernel asserts on the device, and
// reporting them would cost a host synchronisation on every call).
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

struct Geometry {
  int rank, dim;
  long long size[KGB_MAX_RANK];  // of index / out
  long long out_stride[KGB_MAX_RANK], index_stride[KGB_MAX_RANK];
  long long self_stride[KGB_MAX_RANK];  // 0 at dim
  long long dim_stride;                 // self's stride along dim
  long long len;                        // size(self, dim)
  long long numel;
};

template <typename E>
struct alignas(4 * sizeof(E)) Vec4 {
  E v[4];
};

template <typename E>
__global__ void __launch_bounds__(kThreads) gather_strided(const E* __restrict__ self, const long long* __restrict__ index,
                                                           E* __restrict__ out, Geometry g) {
  for (long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; i < g.numel;
       i += static_cast<long long>(gridDim.x) * kThreads) {
    long long rest = i, so = 0, io = 0, oo = 0;
    for (int d = g.rank - 1; d >= 0; --d) {
      const long long c = rest % g.size[d];
      rest /= g.size[d];
      so += c * g.self_stride[d];
      io += c * g.index_stride[d];
      oo += c * g.out_stride[d];
    }
    const long long v = __ldg(index + io);
    if (static_cast<unsigned long long>(v) < static_cast<unsigned long long>(g.len)) out[oo] = __ldg(self + so + v * g.dim_stride);
  }
}

// index and out contiguous, size[rank-1] % 4 == 0: element 4q .. 4q+3 share a row.
template <typename E>
__global__ void __launch_bounds__(kThreads) gather_dense4(const E* __restrict__ self, const long long* __restrict__ index,
                                                          E* __restrict__ out, Geometry g) {
  const long long quads = g.numel / 4, L = g.size[g.rank - 1];
  const int last = g.rank - 1;
  const unsigned long long len = static_cast<unsigned long long>(g.len);
  for (long long q = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; q < quads;
       q += static_cast<long long>(gridDim.x) * kThreads) {
    const long long i = 4 * q;
    long long row = i / L;
    const long long j = i - row * L;
    long long so = j * g.self_stride[last];
    for (int d = last - 1; d >= 0; --d) {
      const long long c = row % g.size[d];
      row /= g.size[d];
      so += c * g.self_stride[d];
    }
    const longlong2 a = __ldg(reinterpret_cast<const longlong2*>(index + i));
    const longlong2 b = __ldg(reinterpret_cast<const longlong2*>(index + i) + 1);
    const long long v[4] = {a.x, a.y, b.x, b.y};
    const long long step = g.self_stride[last];
    Vec4<E> r;
    bool all = true;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const bool ok = static_cast<unsigned long long>(v[k]) < len;
      all = all && ok;
      r.v[k] = ok ? __ldg(self + so + k * step + v[k] * g.dim_stride) : E(0);
    }
    if (all) {
      *reinterpret_cast<Vec4<E>*>(out + i) = r;
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (static_cast<unsigned long long>(v[k]) < len) out[i + k] = r.v[k];
    }
  }
}

unsigned blocks_for(long long items) {
  const long long b = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 16384 ? 16384 : b));
}

template <typename E>
int launch(const kgb_tensor* self, const kgb_tensor* index, kgb_tensor* out, const Geometry& g, cudaStream_t stream) {
  const E* x = static_cast<const E*>(self->data);
  const long long* ix = static_cast<const long long*>(index->data);
  E* y = static_cast<E*>(out->data);
  bool dense = g.size[g.rank - 1] % 4 == 0 && reinterpret_cast<uintptr_t>(ix) % 16 == 0 &&
               reinterpret_cast<uintptr_t>(y) % (4 * sizeof(E)) == 0;
  long long expect = 1;
  for (int d = g.rank - 1; d >= 0 && dense; --d) {
    if (g.size[d] != 1) dense = g.out_stride[d] == expect && g.index_stride[d] == expect;
    expect *= g.size[d];
  }
  if (dense) gather_dense4<E><<<blocks_for(g.numel / 4), kThreads, 0, stream>>>(x, ix, y, g);
  else gather_strided<E><<<blocks_for(g.numel), kThreads, 0, stream>>>(x, ix, y, g);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_gather(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_tensor* out,
                               kgb_stream stream) {
  if (out->dtype != self->dtype || index->dtype != KGB_I64) return KGB_ERR_INVALID;
  const int rank = self->rank;
  if (index->rank != rank || out->rank != rank) return KGB_ERR_INVALID;
  const int nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  Geometry g{};
  g.dim = static_cast<int>(dim);
  g.rank = 1;
  g.size[0] = 1;
  g.len = 1;
  g.numel = 1;
  if (rank > 0) {
    g.rank = rank;
    for (int d = 0; d < rank; ++d) {
      if (out->sizes[d] != index->sizes[d]) return KGB_ERR_INVALID;
      if (d != g.dim && index->sizes[d] > self->sizes[d]) return KGB_ERR_INVALID;
      g.size[d] = index->sizes[d];
      g.out_stride[d] = out->strides[d];
      g.index_stride[d] = index->strides[d];
      g.self_stride[d] = d == g.dim ? 0 : self->strides[d];
      g.numel *= index->sizes[d];
    }
    g.len = self->sizes[g.dim];
    g.dim_stride = self->strides[g.dim];
  }
  if (g.numel == 0) return KGB_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (self->dtype) {
    case KGB_BOOL: case KGB_I8: case KGB_U8: return launch<uint8_t>(self, index, out, g, s);
    case KGB_F16: case KGB_BF16: case KGB_I16: return launch<uint16_t>(self, index, out, g, s);
    case KGB_F32: case KGB_I32: return launch<uint32_t>(self, index, out, g, s);
    case KGB_F64: case KGB_I64: return launch<unsigned long long>(self, index, out, g, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
