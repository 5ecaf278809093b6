// aten/embedding (forward) in HIP (gfx90a): a port of the CUDA solution
// (plain loads where CUDA uses __ldg).
// out[p, :] = weight[indices[p], :]; a wavefront is 64 lanes on gfx90a, the
// row copy still works in groups of 32 lanes (two lookups per wavefront).
//
// A row copy, so elements move as raw 2/4/8-byte words.
//  - Dense rows (unit feature stride in weight and out): one warp per lookup
//    (grid-stride over lookups), the row moved in the widest of 16/8/4-byte
//    vectors that the row length and every row's alignment allow, four
//    loads in flight per lane.
//  - Anything else (a column-major table, stepped out rows): one thread per
//    out element, feature fastest, so the out writes of a warp are
//    neighbours whenever out's rows are.
// Index values outside [0, V) are never dereferenced; their rows are left
// unwritten (ATen's GPU kernels assert on the device, and reporting them
// would cost a host synchronisation on every call).
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

struct Geometry {
  int irank;                            // rank of indices
  long long isize[KGB_MAX_RANK];        // sizes of indices
  long long istride[KGB_MAX_RANK];      // strides of indices
  long long ostride[KGB_MAX_RANK];      // out strides over the indices dims
  long long lookups, width, rows;       // positions of indices, D, V
  long long wrow, wcol, ocol;           // weight row / feature stride, out feature stride (elements)
};

template <typename I>
__device__ __forceinline__ void lookup(const Geometry& g, const I* __restrict__ indices, long long p, long long* row,
                                       long long* out_at) {
  long long io = 0, oo = 0;
  for (int d = g.irank - 1; d >= 0; --d) {
    const long long c = p % g.isize[d];
    p /= g.isize[d];
    io += c * g.istride[d];
    oo += c * g.ostride[d];
  }
  *row = static_cast<long long>((*(indices + io)));
  *out_at = oo;
}

// W: the copy word (a vector type); scale: elements per word. Offsets in elements.
template <typename W, typename I>
__global__ void __launch_bounds__(kThreads) rows_dense(const char* __restrict__ weight, const I* __restrict__ indices,
                                                       char* __restrict__ out, Geometry g, int elem) {
  const int lane = threadIdx.x & 31;
  const long long words = g.width * elem / static_cast<long long>(sizeof(W));
  for (long long p = static_cast<long long>(blockIdx.x) * (kThreads / 32) + (threadIdx.x >> 5); p < g.lookups;
       p += static_cast<long long>(gridDim.x) * (kThreads / 32)) {
    long long row, oo;
    lookup<I>(g, indices, p, &row, &oo);
    if (row < 0 || row >= g.rows) continue;
    const W* __restrict__ src = reinterpret_cast<const W*>(weight + row * g.wrow * elem);
    W* __restrict__ dst = reinterpret_cast<W*>(out + oo * elem);
    long long j = lane;
    for (; j + 96 < words; j += 128) {
      const W a = (*(src + j)), b = (*(src + j + 32)), c = (*(src + j + 64)), d = (*(src + j + 96));
      dst[j] = a;
      dst[j + 32] = b;
      dst[j + 64] = c;
      dst[j + 96] = d;
    }
    for (; j < words; j += 32) dst[j] = (*(src + j));
  }
}

template <typename E, typename I>
__global__ void __launch_bounds__(kThreads) elements(const E* __restrict__ weight, const I* __restrict__ indices,
                                                     E* __restrict__ out, Geometry g) {
  const long long n = g.lookups * g.width;
  for (long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * kThreads) {
    const long long p = i / g.width, j = i - p * g.width;
    long long row, oo;
    lookup<I>(g, indices, p, &row, &oo);
    if (row < 0 || row >= g.rows) continue;
    out[oo + j * g.ocol] = (*(weight + row * g.wrow + j * g.wcol));
  }
}

unsigned blocks_for(long long items, long long per_block) {
  const long long b = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 16384 ? 16384 : b));
}

// The widest word (16, 8, 4 or 2 bytes) that divides every row start and length.
int word_bytes(const kgb_tensor* weight, const kgb_tensor* out, const Geometry& g, int elem) {
  for (int bytes = 16; bytes > elem; bytes /= 2) {
    bool ok = (g.width * elem) % bytes == 0 && reinterpret_cast<uintptr_t>(weight->data) % bytes == 0 &&
              reinterpret_cast<uintptr_t>(out->data) % bytes == 0 && (g.wrow * elem) % bytes == 0;
    for (int d = 0; d < g.irank && ok; ++d) ok = g.isize[d] == 1 || (g.ostride[d] * elem) % bytes == 0;
    if (ok) return bytes;
  }
  return elem;
}

template <typename I>
int launch(const kgb_tensor* weight, const kgb_tensor* indices, kgb_tensor* out, const Geometry& g, hipStream_t s) {
  const int elem = kgb_dtype_size(weight->dtype);
  const I* ix = static_cast<const I*>(indices->data);
  if (g.wcol == 1 && g.ocol == 1) {
    const char* w = static_cast<const char*>(weight->data);
    char* y = static_cast<char*>(out->data);
    const unsigned blocks = blocks_for(g.lookups, kThreads / 32);
    switch (word_bytes(weight, out, g, elem)) {
      case 16: rows_dense<uint4, I><<<blocks, kThreads, 0, s>>>(w, ix, y, g, elem); break;
      case 8: rows_dense<uint2, I><<<blocks, kThreads, 0, s>>>(w, ix, y, g, elem); break;
      case 4: rows_dense<unsigned int, I><<<blocks, kThreads, 0, s>>>(w, ix, y, g, elem); break;
      default: rows_dense<unsigned short, I><<<blocks, kThreads, 0, s>>>(w, ix, y, g, elem); break;
    }
  } else {
    const unsigned blocks = blocks_for(g.lookups * g.width, kThreads);
    switch (elem) {
      case 2:
        elements<unsigned short, I><<<blocks, kThreads, 0, s>>>(static_cast<const unsigned short*>(weight->data), ix,
                                                                static_cast<unsigned short*>(out->data), g);
        break;
      case 4:
        elements<unsigned int, I><<<blocks, kThreads, 0, s>>>(static_cast<const unsigned int*>(weight->data), ix,
                                                              static_cast<unsigned int*>(out->data), g);
        break;
      default:
        elements<unsigned long long, I><<<blocks, kThreads, 0, s>>>(
            static_cast<const unsigned long long*>(weight->data), ix, static_cast<unsigned long long*>(out->data), g);
        break;
    }
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_embedding(const kgb_tensor* weight, const kgb_tensor* indices, int64_t padding_idx,
                                  kgb_tensor* out, kgb_stream stream) {
  (void)padding_idx;  // only affects the gradient
  switch (weight->dtype) {
    case KGB_F16: case KGB_BF16: case KGB_F32: case KGB_F64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (weight->rank != 2 || out->dtype != weight->dtype || out->rank != indices->rank + 1) return KGB_ERR_INVALID;
  if (indices->dtype != KGB_I32 && indices->dtype != KGB_I64) return KGB_ERR_INVALID;
  Geometry g{};
  g.irank = indices->rank;
  g.lookups = 1;
  for (int d = 0; d < g.irank; ++d) {
    if (out->sizes[d] != indices->sizes[d]) return KGB_ERR_INVALID;
    g.isize[d] = indices->sizes[d];
    g.istride[d] = indices->strides[d];
    g.ostride[d] = out->strides[d];
    g.lookups *= indices->sizes[d];
  }
  g.width = weight->sizes[1];
  g.rows = weight->sizes[0];
  if (out->sizes[g.irank] != g.width) return KGB_ERR_INVALID;
  g.wrow = weight->strides[0];
  g.wcol = weight->strides[1];
  g.ocol = out->strides[g.irank];
  if (g.lookups == 0 || g.width == 0) return KGB_OK;
  hipStream_t s = static_cast<hipStream_t>(stream);
  return indices->dtype == KGB_I32 ? launch<int>(weight, indices, out, g, s) : launch<long long>(weight, indices, out, g, s);
}
