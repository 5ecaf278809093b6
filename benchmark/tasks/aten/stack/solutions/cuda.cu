// aten/stack in CUDA. All items have one shape, so their copies are planned
// together on the host: the item dims are simplified once (size-1 dims
// dropped, neighbouring dims merged where they are contiguous in out's slice
// and in every item), leaving rows of copy units. When every item has the
// same strides (the usual case) up to 64 items share one launch, their data
// pointers passed by value in a __grid_constant__ descriptor, so nothing is
// allocated or uploaded:
// - new dim not innermost in out: blockIdx.y picks the item and the x
//   dimension walks its rows; dense rows move in the widest unit (16, 8, 4,
//   2 or 1 bytes) that every address, the row length and the row strides
//   allow, so consecutive threads read and write consecutive 16-byte units;
// - new dim innermost (items interleaved element by element): consecutive
//   threads write consecutive out elements, thread e taking item e % n, so
//   the writes coalesce and each item is read in runs of 32 / n elements.
// Items with different layouts get one launch each (same kernel, n = 1).
// Row and column come from a 32-bit division when the unit count allows.
#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>

#include "kgb_kernel.h"

namespace {

constexpr int kMaxItems = 64;
constexpr int kThreads = 256;
constexpr int kMaxOuter = KGB_MAX_RANK - 1;

struct Geometry {
  const char* src[kMaxItems];
  char* dst;
  long long osize[kMaxOuter], os_src[kMaxOuter], os_dst[kMaxOuter];  // outer dims, byte strides
  long long rows, units;  // rows x units copy units per item
  long long ss, ds;       // bytes between units along a row, in an item and in out
  long long step;         // bytes between neighbouring items in out
  int outer, count;
};

__device__ __forceinline__ void row_offsets(const Geometry& g, long long row, long long* so, long long* dof) {
  long long a = 0, b = 0;
  for (int d = g.outer - 1; d >= 0; --d) {
    const long long q = row / g.osize[d], i = row - q * g.osize[d];
    row = q;
    a += i * g.os_src[d];
    b += i * g.os_dst[d];
  }
  *so = a;
  *dof = b;
}

__device__ __forceinline__ void split(long long e, long long units, bool narrow, long long* row, long long* col) {
  if (narrow) {
    const unsigned r = static_cast<unsigned>(e) / static_cast<unsigned>(units);
    *row = r;
    *col = static_cast<unsigned>(e) - r * static_cast<unsigned>(units);
  } else {
    *row = e / units;
    *col = e - *row * units;
  }
}

// blockIdx.y = item; x walks rows x units of it.
template <typename U>
__global__ void __launch_bounds__(kThreads) stack_items(const __grid_constant__ Geometry g, bool narrow) {
  const int k = blockIdx.y;
  const char* src = g.src[k];
  char* dst = g.dst + k * g.step;
  const long long total = g.rows * g.units;
  for (long long e = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * kThreads) {
    long long row, col, so = 0, dof = 0;
    split(e, g.units, narrow, &row, &col);
    if (g.outer > 0) row_offsets(g, row, &so, &dof);
    *reinterpret_cast<U*>(dst + dof + col * g.ds) = *reinterpret_cast<const U*>(src + so + col * g.ss);
  }
}

// Thread e writes out element e of the interleaved rows: item e % n.
template <typename U>
__global__ void __launch_bounds__(kThreads) stack_interleave(const __grid_constant__ Geometry g, bool narrow) {
  const long long per_row = g.units * g.count;
  const long long total = g.rows * per_row;
  for (long long e = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * kThreads) {
    long long row, rest, so = 0, dof = 0;
    split(e, per_row, narrow, &row, &rest);
    const long long j = rest / g.count, k = rest - j * g.count;
    if (g.outer > 0) row_offsets(g, row, &so, &dof);
    *reinterpret_cast<U*>(g.dst + dof + j * g.ds + k * g.step) = *reinterpret_cast<const U*>(g.src[k] + so + j * g.ss);
  }
}

// Joint simplification of items[first, first + count) into g (strides of
// items[first] stand for all of them: the caller checked they agree).
void plan(const kgb_tensor* const* items, int count, const kgb_tensor* out, int dim, char* dst, int elem, Geometry& g) {
  const kgb_tensor* t = items[0];
  long long dstride[KGB_MAX_RANK];
  for (int d = 0, o = 0; o < out->rank; ++o)
    if (o != dim) dstride[d++] = out->strides[o];
  long long sz[KGB_MAX_RANK], a[KGB_MAX_RANK], b[KGB_MAX_RANK];
  int n = 0;
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    if (n > 0 && a[n - 1] == t->strides[d] * t->sizes[d] && b[n - 1] == dstride[d] * t->sizes[d]) {
      sz[n - 1] *= t->sizes[d];
      a[n - 1] = t->strides[d];
      b[n - 1] = dstride[d];
      continue;
    }
    sz[n] = t->sizes[d];
    a[n] = t->strides[d];
    b[n] = dstride[d];
    ++n;
  }
  if (n == 0) {
    sz[0] = a[0] = b[0] = 1;
    n = 1;
  }
  g = Geometry{};
  g.count = count;
  g.dst = dst;
  g.step = out->strides[dim] * elem;
  g.outer = n - 1;
  g.rows = 1;
  for (int d = 0; d < n - 1; ++d) {
    g.osize[d] = sz[d];
    g.os_src[d] = a[d] * elem;
    g.os_dst[d] = b[d] * elem;
    g.rows *= sz[d];
  }
  for (int k = 0; k < count; ++k) g.src[k] = static_cast<const char*>(items[k]->data);
  const long long len = sz[n - 1];
  g.ss = a[n - 1] * elem;
  g.ds = b[n - 1] * elem;
  g.units = len;
}

// The widest unit a dense items-mode copy allows (every address and stride a multiple of it).
int widest_unit(const Geometry& g, int elem) {
  if (g.ss != elem || g.ds != elem) return elem;
  for (int v = 16; v > elem; v /= 2) {
    bool ok = reinterpret_cast<uintptr_t>(g.dst) % v == 0 && g.step % v == 0 && (g.units * elem) % v == 0;
    for (int k = 0; k < g.count && ok; ++k) ok = reinterpret_cast<uintptr_t>(g.src[k]) % v == 0;
    for (int d = 0; d < g.outer && ok; ++d) ok = g.os_src[d] % v == 0 && g.os_dst[d] % v == 0;
    if (ok) return v;
  }
  return elem;
}

template <typename U>
bool launch_items(const Geometry& g, bool narrow, unsigned blocks, cudaStream_t s) {
  stack_items<U><<<dim3(blocks, static_cast<unsigned>(g.count)), kThreads, 0, s>>>(g, narrow);
  return cudaGetLastError() == cudaSuccess;
}

template <typename U>
bool launch_interleave(const Geometry& g, bool narrow, unsigned blocks, cudaStream_t s) {
  stack_interleave<U><<<blocks, kThreads, 0, s>>>(g, narrow);
  return cudaGetLastError() == cudaSuccess;
}

bool run(Geometry& g, int elem, cudaStream_t s) {
  const long long cap = 132 * 16;  // blocks in flight on a full H100/H200, grid-stride beyond
  if (g.step == elem && g.ds == elem * static_cast<long long>(g.count) && g.ss == elem && g.count > 1) {
    const long long total = g.rows * g.units * g.count;
    const unsigned blocks = static_cast<unsigned>(std::min((total + kThreads - 1) / kThreads, cap * 8));
    const bool narrow = total < (1ll << 32);
    switch (elem) {
      case 1: return launch_interleave<uint8_t>(g, narrow, blocks, s);
      case 2: return launch_interleave<uint16_t>(g, narrow, blocks, s);
      case 4: return launch_interleave<uint32_t>(g, narrow, blocks, s);
      default: return launch_interleave<uint64_t>(g, narrow, blocks, s);
    }
  }
  const int unit = widest_unit(g, elem);
  if (unit != elem) {
    g.units = g.units * elem / unit;
    g.ss = g.ds = unit;
  }
  const long long total = g.rows * g.units;
  const unsigned blocks = static_cast<unsigned>(std::min((total + kThreads - 1) / kThreads, cap * 8 / g.count + 1));
  const bool narrow = total < (1ll << 32);
  switch (unit) {
    case 16: return launch_items<uint4>(g, narrow, blocks, s);
    case 8: return launch_items<uint2>(g, narrow, blocks, s);
    case 4: return launch_items<uint32_t>(g, narrow, blocks, s);
    case 2: return launch_items<uint16_t>(g, narrow, blocks, s);
    default: return launch_items<uint8_t>(g, narrow, blocks, s);
  }
}

}  // namespace

extern "C" int kgb_aten_stack(const kgb_tensor_list* tensors, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  switch (out->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (tensors->count < 1 || !tensors->items[0]) return KGB_ERR_INVALID;
  const kgb_tensor* first = tensors->items[0];
  const int rank = first->rank;
  if (out->rank != rank + 1 || dim < -(rank + 1) || dim > rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank + 1;
  const int d = static_cast<int>(dim);
  bool uniform = true;  // every item has item 0's strides
  for (int64_t k = 0; k < tensors->count; ++k) {
    const kgb_tensor* t = tensors->items[k];
    if (!t || t->dtype != out->dtype || t->rank != rank) return KGB_ERR_INVALID;
    for (int i = 0; i < rank; ++i) {
      if (t->sizes[i] != first->sizes[i]) return KGB_ERR_INVALID;
      if (t->sizes[i] != 1 && t->strides[i] != first->strides[i]) uniform = false;
    }
  }
  for (int o = 0, i = 0; o < out->rank; ++o)
    if (out->sizes[o] != (o == d ? tensors->count : first->sizes[i++])) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;

  const int elem = kgb_dtype_size(out->dtype);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const long long step = out->strides[d] * static_cast<long long>(elem);
  const int batch = uniform ? kMaxItems : 1;
  Geometry g;
  for (int64_t k0 = 0; k0 < tensors->count; k0 += batch) {
    const int count = static_cast<int>(tensors->count - k0 < batch ? tensors->count - k0 : batch);
    plan(tensors->items + k0, count, out, d, static_cast<char*>(out->data) + k0 * step, elem, g);
    if (!run(g, elem, s)) return KGB_ERR_INVALID;
  }
  return KGB_OK;
}
