// aten/rot90 in HIP, a port of the CUDA solution. A rotation is a copy of
// self read through another view: in out's index space self has out's sizes
// and, at d0 and d1, the strides of the other dim, one of them negated
// (k = 1: -stride(d1) at d0, stride(d0) at d1, starting at element S1-1 of
// d1; k = 2: both dims reversed; k = 3: stride(d1) at d0, -stride(d0) at d1;
// k = 0: self as is). Elements move bit for bit, so kernels are instantiated
// per element size.
//
// The host simplifies the copy (size-1 dims dropped, dims contiguous in both
// the source view and out merged, negative strides included), then:
// - when out's densest dim is also the source's densest one (k = 0, k = 2,
//   a plane that leaves the inner dim alone), a grid-stride elementwise
//   kernel walks out in order; forward dense copies move 16-byte units;
// - otherwise (a quarter turn of the two inner dims: a transpose with one
//   dim reversed) 32 x 32 tiles go through LDS (padded against bank
//   conflicts), read along the source's dense dim and written along out's.
//   blockIdx.z walks the remaining outer dims.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kTile = 32;
constexpr int kRows = 8;  // tile threads: 32 x 8, four elements each
constexpr int kThreads = 256;

struct Geometry {
  long long size[KGB_MAX_RANK], vs[KGB_MAX_RANK], os[KGB_MAX_RANK];  // bytes for strides; out's densest dim last
  int rank;
};

struct Tiles {
  long long osize[KGB_MAX_RANK], ovs[KGB_MAX_RANK], oos[KGB_MAX_RANK];  // outer dims, element strides
  long long psize, pvs, pos, isize, ivs, ios;  // source-dense dim p, out-dense dim i
  long long outer_count;
  int outer;
};

template <typename U>
__global__ void __launch_bounds__(kThreads) rot_elementwise(const char* __restrict__ src, char* __restrict__ dst,
                                                            const Geometry g, long long total) {
  for (long long e = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * kThreads) {
    long long r = e, a = 0, b = 0;
    for (int d = g.rank - 1; d >= 0; --d) {
      const long long q = d == 0 ? 0 : r / g.size[d], i = r - q * g.size[d];
      r = q;
      a += i * g.vs[d];
      b += i * g.os[d];
    }
    *reinterpret_cast<U*>(dst + b) = *reinterpret_cast<const U*>(src + a);
  }
}

template <typename U>
__global__ void __launch_bounds__(kTile * kRows) rot_tiles(const U* __restrict__ src, U* __restrict__ dst,
                                                           const Tiles t) {
  __shared__ U tile[kTile][kTile + 1];
  const long long i0 = static_cast<long long>(blockIdx.x) * kTile, p0 = static_cast<long long>(blockIdx.y) * kTile;
  for (long long o = blockIdx.z; o < t.outer_count; o += gridDim.z) {
    long long r = o, so = 0, dof = 0;
    for (int d = t.outer - 1; d >= 0; --d) {
      const long long q = r / t.osize[d], i = r - q * t.osize[d];
      r = q;
      so += i * t.ovs[d];
      dof += i * t.oos[d];
    }
    // Read: threadIdx.x along p (the source's dense dim).
    const long long p = p0 + threadIdx.x;
#pragma unroll
    for (int k = 0; k < kTile; k += kRows) {
      const long long i = i0 + threadIdx.y + k;
      if (p < t.psize && i < t.isize) tile[threadIdx.y + k][threadIdx.x] = src[so + p * t.pvs + i * t.ivs];
    }
    __syncthreads();
    // Write: threadIdx.x along i (out's dense dim).
    const long long i = i0 + threadIdx.x;
#pragma unroll
    for (int k = 0; k < kTile; k += kRows) {
      const long long pp = p0 + threadIdx.y + k;
      if (pp < t.psize && i < t.isize) dst[dof + pp * t.pos + i * t.ios] = tile[threadIdx.x][threadIdx.y + k];
    }
    __syncthreads();
  }
}

struct Dim {
  long long size, vs, os;
};
inline long long magnitude(long long v) { return v < 0 ? -v : v; }

template <typename U>
int launch(const char* src, char* dst, const Dim* dims, int n, hipStream_t s) {
  constexpr int elem = sizeof(U);
  // Out's densest dim i; the source's densest dim p among the others.
  int i = 0;
  for (int d = 1; d < n; ++d)
    if (magnitude(dims[d].os) <= magnitude(dims[i].os)) i = d;
  int p = -1;
  for (int d = 0; d < n; ++d)
    if (d != i && (p < 0 || magnitude(dims[d].vs) < magnitude(dims[p].vs))) p = d;
  if (p < 0 || magnitude(dims[i].vs) <= magnitude(dims[p].vs) || dims[i].size < 4) {
    Geometry g{};
    long long total = 1;
    int r = 0;
    for (int d = 0; d <= n; ++d) {
      const int from = d < n ? (d == i ? -1 : d) : i;  // i goes last
      if (from < 0) continue;
      g.size[r] = dims[from].size;
      g.vs[r] = dims[from].vs * elem;
      g.os[r] = dims[from].os * elem;
      total *= dims[from].size;
      ++r;
    }
    g.rank = r;
    const long long blocks = (total + kThreads - 1) / kThreads;
    rot_elementwise<U><<<static_cast<unsigned>(blocks < 110 * 64 ? blocks : 110 * 64), kThreads, 0, s>>>(src, dst, g, total);
    return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
  }
  Tiles t{};
  t.outer_count = 1;
  for (int d = 0; d < n; ++d)
    if (d != i && d != p) {
      t.osize[t.outer] = dims[d].size;
      t.ovs[t.outer] = dims[d].vs;
      t.oos[t.outer] = dims[d].os;
      t.outer_count *= dims[d].size;
      ++t.outer;
    }
  t.psize = dims[p].size, t.pvs = dims[p].vs, t.pos = dims[p].os;
  t.isize = dims[i].size, t.ivs = dims[i].vs, t.ios = dims[i].os;
  const long long gx = (t.isize + kTile - 1) / kTile, gy = (t.psize + kTile - 1) / kTile;
  if (gy > 65535) return KGB_ERR_UNSUPPORTED;
  const unsigned gz = static_cast<unsigned>(t.outer_count < 65535 ? t.outer_count : 65535);
  rot_tiles<U><<<dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy), gz), dim3(kTile, kRows), 0, s>>>(
      reinterpret_cast<const U*>(src), reinterpret_cast<U*>(dst), t);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_rot90(const kgb_tensor* self, int64_t k, kgb_int_list dims, kgb_tensor* out, kgb_stream stream) {
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: case KGB_BOOL: case KGB_C64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  const int rank = self->rank;
  if (out->dtype != self->dtype || out->rank != rank || rank < 2 || dims.count != 2) return KGB_ERR_INVALID;
  const int64_t a = dims.values[0], b = dims.values[1];
  if (a < -rank || a >= rank || b < -rank || b >= rank || a == b || a - b == rank || b - a == rank) return KGB_ERR_INVALID;
  const int d0 = static_cast<int>(a < 0 ? a + rank : a), d1 = static_cast<int>(b < 0 ? b + rank : b);
  const int turns = static_cast<int>(((k % 4) + 4) % 4);
  for (int d = 0; d < rank; ++d) {
    const int from = turns % 2 == 1 && d == d0 ? d1 : turns % 2 == 1 && d == d1 ? d0 : d;
    if (out->sizes[d] != self->sizes[from]) return KGB_ERR_INVALID;
  }
  if (kgb_numel(out) == 0) return KGB_OK;

  // self in out's index space.
  long long vs[KGB_MAX_RANK], base = 0;
  for (int d = 0; d < rank; ++d) vs[d] = self->strides[d];
  const long long s0 = self->sizes[d0], s1 = self->sizes[d1], t0 = self->strides[d0], t1 = self->strides[d1];
  if (turns == 1) {
    vs[d0] = -t1, vs[d1] = t0, base = (s1 - 1) * t1;
  } else if (turns == 2) {
    vs[d0] = -t0, vs[d1] = -t1, base = (s0 - 1) * t0 + (s1 - 1) * t1;
  } else if (turns == 3) {
    vs[d0] = t1, vs[d1] = -t0, base = (s0 - 1) * t0;
  }
  Dim merged[KGB_MAX_RANK];
  int n = 0;
  for (int d = 0; d < rank; ++d) {
    if (out->sizes[d] == 1) continue;
    const Dim next{out->sizes[d], vs[d], out->strides[d]};
    if (n > 0 && merged[n - 1].vs == next.vs * next.size && merged[n - 1].os == next.os * next.size) {
      merged[n - 1] = {merged[n - 1].size * next.size, next.vs, next.os};
      continue;
    }
    merged[n++] = next;
  }
  if (n == 0) merged[n++] = {1, 1, 1};

  const int elem = kgb_dtype_size(self->dtype);
  const char* src = static_cast<const char*>(self->data) + base * elem;
  char* dst = static_cast<char*>(out->data);
  hipStream_t s = static_cast<hipStream_t>(stream);
  // A forward dense copy (k = 0 on dense tensors) moves 16-byte units when aligned.
  if (n == 1 && merged[0].vs == 1 && merged[0].os == 1) {
    const long long bytes = merged[0].size * elem;
    if (reinterpret_cast<uintptr_t>(src) % 16 == 0 && reinterpret_cast<uintptr_t>(dst) % 16 == 0 && bytes % 16 == 0) {
      const Dim units{bytes / 16, 1, 1};
      return launch<uint4>(src, dst, &units, 1, s);
    }
  }
  switch (elem) {
    case 1: return launch<uint8_t>(src, dst, merged, n, s);
    case 2: return launch<uint16_t>(src, dst, merged, n, s);
    case 4: return launch<uint32_t>(src, dst, merged, n, s);
    default: return launch<uint64_t>(src, dst, merged, n, s);
  }
}
