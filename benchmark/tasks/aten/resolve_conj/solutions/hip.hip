// aten/resolve_conj in HIP (a port of the CUDA solution).
//
// No conj bit: ATen returns self, so out becomes self's view (flags carried)
// and nothing is launched. Conj bit set: out gets the logical values, exact
// sign-bit flips of the stored ones (conj flips the imaginary part's sign, a
// neg bit as well both parts', both together only the real part's): an XOR
// with a per-element mask while the elements move from self's view into
// out's layout (self's strides when dense, else row-major). The host puts
// the dims of both views in out's order and folds them (a dense view becomes
// one block), then launches
//  - out's innermost stride 1 and self's stride 1 on another dim (a
//    transpose): 32 x 32 tiles through shared memory (33 columns), loads and
//    stores both coalesced, the other dims over blockIdx.z;
//  - otherwise a row kernel (a grid-stride loop with four loads in flight
//    when both innermost strides are 1; strided otherwise).
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

namespace {

constexpr int kTile = 32;
constexpr int kRows = 8;

struct Plan {
  int rank;
  int64_t size[KGB_MAX_RANK];
  int64_t src[KGB_MAX_RANK];
  int64_t dst[KGB_MAX_RANK];
};

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};
__host__ __device__ __forceinline__ Bytes16 operator^(Bytes16 a, Bytes16 b) { return {a.lo ^ b.lo, a.hi ^ b.hi}; }

template <typename E>
struct FlipSigns {  // floating and complex parts: XOR their sign bits
  E mask;
  __device__ __forceinline__ E operator()(E v) const { return v ^ mask; }
};
struct NegateI64 {  // two's complement, wrapping
  __device__ __forceinline__ uint64_t operator()(uint64_t v) const { return 0 - v; }
};

Plan fold(const kgb_tensor* from, const kgb_tensor* to) {
  int order[KGB_MAX_RANK], n = 0;
  for (int d = 0; d < to->rank; ++d)
    if (to->sizes[d] != 1) order[n++] = d;
  for (int i = 1; i < n; ++i)  // out's strides descending, stable
    for (int j = i; j > 0 && to->strides[order[j]] > to->strides[order[j - 1]]; --j) {
      const int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  Plan p{};
  for (int i = 0; i < n; ++i) {
    const int d = order[i];
    const int64_t size = to->sizes[d], s = from->strides[d], o = to->strides[d];
    if (p.rank > 0 && p.src[p.rank - 1] == s * size && p.dst[p.rank - 1] == o * size) {
      p.size[p.rank - 1] *= size;
      p.src[p.rank - 1] = s;
      p.dst[p.rank - 1] = o;
      continue;
    }
    p.size[p.rank] = size;
    p.src[p.rank] = s;
    p.dst[p.rank] = o;
    ++p.rank;
  }
  if (p.rank == 0) {
    p.size[0] = 1;
    p.rank = 1;
  }
  return p;
}

// Offsets of outer index `index` over the first n dims, skipping dim `skip`.
__device__ __forceinline__ void outer_offsets(const Plan& p, int n, int skip, int64_t index, int64_t& s, int64_t& o) {
  s = 0;
  o = 0;
  for (int d = n - 1; d >= 0; --d) {
    if (d == skip) continue;
    const int64_t q = index / p.size[d], i = index - q * p.size[d];
    index = q;
    s += i * p.src[d];
    o += i * p.dst[d];
  }
}

// Rows of len units (elements, or 16-byte words of `scale` elements); both
// innermost strides 1 keep four loads in flight per thread.
template <typename E, typename Op>
__global__ void flip_rows(const E* __restrict__ src, E* __restrict__ dst, Plan p, int64_t rows, int64_t len, int64_t scale,
                          int64_t si, int64_t di, Op op) {
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    int64_t s, o;
    outer_offsets(p, p.rank - 1, -1, r, s, o);
    const E* from = src + s / scale;
    E* to = dst + o / scale;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (si == 1 && di == 1) {
      for (; k + 3 * step < len; k += 4 * step) {  // four independent loads in flight
        const E a = from[k], b = from[k + step], c = from[k + 2 * step], d = from[k + 3 * step];
        to[k] = op(a), to[k + step] = op(b), to[k + 2 * step] = op(c), to[k + 3 * step] = op(d);
      }
    }
    for (; k < len; k += step) to[k * di] = op(from[k * si]);
  }
}

template <typename E, typename Op>
__global__ void flip_transposed(const E* __restrict__ src, E* __restrict__ dst, Plan p, int a, int64_t batches, Op op) {
  __shared__ E tile[kTile][kTile + 1];
  const int last = p.rank - 1;
  const int64_t na = p.size[a], nl = p.size[last], sl = p.src[last], da = p.dst[a];
  const int64_t a0 = (int64_t)blockIdx.y * kTile, l0 = (int64_t)blockIdx.x * kTile;
  for (int64_t b = blockIdx.z; b < batches; b += gridDim.z) {
    int64_t s, o;
    outer_offsets(p, last, a, b, s, o);
    for (int r = threadIdx.y; r < kTile; r += kRows) {  // loads along a (stride 1 in self)
      const int64_t l = l0 + r, i = a0 + threadIdx.x;
      if (l < nl && i < na) tile[r][threadIdx.x] = src[s + l * sl + i];
    }
    __syncthreads();
    for (int r = threadIdx.y; r < kTile; r += kRows) {  // stores along out's rows (stride 1)
      const int64_t i = a0 + r, l = l0 + threadIdx.x;
      if (l < nl && i < na) dst[o + i * da + l] = op(tile[threadIdx.x][r]);
    }
    __syncthreads();
  }
}

// A sign mask repeated over a 16-byte word: XOR works lane by lane.
template <typename E>
FlipSigns<Bytes16> widen(FlipSigns<E> op) {
  Bytes16 word;
  unsigned char* bytes = reinterpret_cast<unsigned char*>(&word);
  for (size_t at = 0; at < sizeof word; at += sizeof(E)) memcpy(bytes + at, &op.mask, sizeof(E));
  return FlipSigns<Bytes16>{word};
}
template <typename Op>
struct LaneWise {  // i64 negation is no lane-wise XOR
  static constexpr bool value = false;
};
template <typename E>
struct LaneWise<FlipSigns<E>> {
  static constexpr bool value = sizeof(E) < 16;
};

unsigned blocks_for(int64_t work, int64_t per_block, int64_t cap) {
  const int64_t blocks = (work + per_block - 1) / per_block;
  return (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

template <typename E, typename Op>
int launch(const kgb_tensor* self, kgb_tensor* out, Op op, hipStream_t stream) {
  const Plan p = fold(self, out);
  const E* src = static_cast<const E*>(self->data);
  E* dst = static_cast<E*>(out->data);
  const int last = p.rank - 1;
  if (p.dst[last] == 1 && p.src[last] != 1) {
    for (int a = last - 1; a >= 0; --a) {
      if (p.src[a] != 1 || p.size[a] < 8) continue;
      int64_t batches = 1;
      for (int d = 0; d < last; ++d)
        if (d != a) batches *= p.size[d];
      const int64_t tiles_a = (p.size[a] + kTile - 1) / kTile;
      if (tiles_a > 65535) break;
      dim3 grid(blocks_for(p.size[last], kTile, 2147483647), (unsigned)tiles_a, blocks_for(batches, 1, 65535));
      flip_transposed<E, Op><<<grid, dim3(kTile, kRows), 0, stream>>>(src, dst, p, a, batches, op);
      return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
    }
  }
  const int64_t len = p.size[last], si = p.src[last], di = p.dst[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.size[d];
  // 16-byte words when every row start is 16-byte aligned on both sides.
  bool words = LaneWise<Op>::value && si == 1 && di == 1 && (len * sizeof(E)) % 16 == 0 && (uintptr_t)src % 16 == 0 &&
               (uintptr_t)dst % 16 == 0;
  for (int d = 0; d < last && words; ++d) words = (p.src[d] * (int64_t)sizeof(E)) % 16 == 0 && (p.dst[d] * (int64_t)sizeof(E)) % 16 == 0;
  if constexpr (LaneWise<Op>::value) {
    if (words) {
      const int64_t scale = 16 / sizeof(E), units = len / scale;
      dim3 grid(blocks_for(units, 4 * 256, rows > 1 ? 64 : 8192), blocks_for(rows, 1, 65535));
      flip_rows<<<grid, 256, 0, stream>>>(reinterpret_cast<const Bytes16*>(src), reinterpret_cast<Bytes16*>(dst), p, rows, units,
                                          scale, int64_t{1}, int64_t{1}, widen(op));
      return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
    }
  }
  dim3 grid(blocks_for(len, 4 * 256, rows > 1 ? 64 : 8192), blocks_for(rows, 1, 65535));
  flip_rows<E, Op><<<grid, 256, 0, stream>>>(src, dst, p, rows, len, int64_t{1}, si, di, op);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_resolve_conj(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  if (self->rank != out->rank || self->dtype != out->dtype) return KGB_ERR_INVALID;
  if (!(self->flags & KGB_TENSOR_CONJ)) {  // ATen returns self: out becomes the alias, nothing runs
    out->data = self->data;
    for (int d = 0; d < self->rank; ++d) {
      out->sizes[d] = self->sizes[d];
      out->strides[d] = self->strides[d];
    }
    out->storage_offset = self->storage_offset;
    out->flags = self->flags;
    return KGB_OK;
  }
  if (kgb_numel(self) == 0) return KGB_OK;
  hipStream_t s = static_cast<hipStream_t>(stream);
  const bool neg = (self->flags & KGB_TENSOR_NEG) != 0;
  const uint64_t sign = 0x8000000000000000ull;
  switch (self->dtype) {
    case KGB_C64:  // little-endian: re in the low 32 bits, im in the high
      return launch<uint64_t>(self, out, FlipSigns<uint64_t>{neg ? 0x80000000ull : sign}, s);
    case KGB_C128: return launch<Bytes16>(self, out, FlipSigns<Bytes16>{neg ? Bytes16{sign, 0} : Bytes16{0, sign}}, s);
    default: return KGB_ERR_INVALID;  // only complex tensors carry the conj bit
  }
}
