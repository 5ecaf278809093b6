// aten/cat in HIP, a port of the CUDA solution: one launch copies a batch of
// up to 16 items (ATen's batched-copy idea), with the item descriptors passed
// by value as one kernel argument (under HIP's 4 KiB limit), so nothing is
// allocated or uploaded.
//
// The host simplifies each item's copy (size-1 dims dropped, dims contiguous
// in both the item and its out slice merged) into rows of `units` copy units
// and picks the widest unit (16, 8, 4, 2 or 1 bytes) that the addresses,
// the row length and every row stride allow: a dense item is then moved with
// 16-byte loads and stores whatever its dtype. Blocks are numbered across the
// batch; each finds its item, and either owns part of one long row (one
// division per block) or a run of short rows (a 32-bit division per unit).
// Consecutive threads copy consecutive units, so reads and writes coalesce.
// A strided item (transposed, stepped) is copied element by element with the
// same mapping.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kMaxItems = 16;
constexpr int kThreads = 256;
constexpr int kUnitsPerThread = 4;
constexpr int64_t kUnitsPerBlock = kThreads * kUnitsPerThread;

struct Item {
  const char* src;
  char* dst;
  long long rows, units;        // rows x units copy units
  long long ss, ds;             // bytes between units along a row
  long long block_begin;        // first block of this item in the launch
  long long blocks_per_row;     // > 0: each block owns part of one row
  long long osize[KGB_MAX_RANK - 1], os_src[KGB_MAX_RANK - 1], os_dst[KGB_MAX_RANK - 1];  // outer dims, byte strides
  int unit, outer_rank;
};

struct Batch {
  Item items[kMaxItems];
  int count;
};

__device__ __forceinline__ void row_offsets(const Item& it, long long row, long long* so, long long* dof) {
  if (it.outer_rank == 1) {
    *so = row * it.os_src[0];
    *dof = row * it.os_dst[0];
    return;
  }
  long long a = 0, b = 0;
  for (int d = it.outer_rank - 1; d >= 0; --d) {
    const long long q = row / it.osize[d], i = row - q * it.osize[d];
    row = q;
    a += i * it.os_src[d];
    b += i * it.os_dst[d];
  }
  *so = a;
  *dof = b;
}

template <typename U>
__device__ __forceinline__ void copy_item(const Item& it, long long block) {
  if (it.blocks_per_row > 0) {  // part of one long row
    const long long row = block / it.blocks_per_row;
    const long long c0 = (block - row * it.blocks_per_row) * kUnitsPerBlock;
    long long so, dof;
    row_offsets(it, row, &so, &dof);
    const char* src = it.src + so;
    char* dst = it.dst + dof;
#pragma unroll
    for (int k = 0; k < kUnitsPerThread; ++k) {
      const long long c = c0 + threadIdx.x + k * kThreads;
      if (c < it.units) *reinterpret_cast<U*>(dst + c * it.ds) = *reinterpret_cast<const U*>(src + c * it.ss);
    }
    return;
  }
  // A run of short rows: unit u of the item is (u / units, u % units).
  const long long total = it.rows * it.units;
  const long long first = block * kUnitsPerBlock + threadIdx.x;
  const unsigned units = static_cast<unsigned>(it.units);
#pragma unroll
  for (int k = 0; k < kUnitsPerThread; ++k) {
    const long long u = first + k * kThreads;
    if (u >= total) return;
    const unsigned row = static_cast<unsigned>(u) / units, col = static_cast<unsigned>(u) - row * units;
    long long so, dof;
    row_offsets(it, row, &so, &dof);
    *reinterpret_cast<U*>(it.dst + dof + col * it.ds) = *reinterpret_cast<const U*>(it.src + so + col * it.ss);
  }
}

__global__ void __launch_bounds__(kThreads) cat_batch(const Batch batch) {
  int i = 0;
  while (i + 1 < batch.count && static_cast<long long>(blockIdx.x) >= batch.items[i + 1].block_begin) ++i;
  const Item& it = batch.items[i];
  const long long block = blockIdx.x - it.block_begin;
  switch (it.unit) {
    case 16: copy_item<uint4>(it, block); break;
    case 8: copy_item<uint2>(it, block); break;
    case 4: copy_item<uint32_t>(it, block); break;
    case 2: copy_item<uint16_t>(it, block); break;
    default: copy_item<uint8_t>(it, block); break;
  }
}

// Simplifies one item's copy into `it` (block_begin set by the caller).
void describe(const kgb_tensor* t, char* dst, const int64_t* out_strides, int elem, Item& it) {
  long long sz[KGB_MAX_RANK], a[KGB_MAX_RANK], b[KGB_MAX_RANK];
  int n = 0;
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    if (n > 0 && a[n - 1] == t->strides[d] * t->sizes[d] && b[n - 1] == out_strides[d] * t->sizes[d]) {
      sz[n - 1] *= t->sizes[d];
      a[n - 1] = t->strides[d];
      b[n - 1] = out_strides[d];
      continue;
    }
    sz[n] = t->sizes[d];
    a[n] = t->strides[d];
    b[n] = out_strides[d];
    ++n;
  }
  if (n == 0) {
    sz[0] = 1;
    a[0] = b[0] = 1;
    n = 1;
  }
  it = Item{};
  it.src = static_cast<const char*>(t->data);
  it.dst = dst;
  it.outer_rank = n - 1;
  it.rows = 1;
  for (int d = 0; d < n - 1; ++d) {
    it.osize[d] = sz[d];
    it.os_src[d] = a[d] * elem;
    it.os_dst[d] = b[d] * elem;
    it.rows *= sz[d];
  }
  const long long len = sz[n - 1];
  int unit = elem;
  if (a[n - 1] == 1 && b[n - 1] == 1) {
    // The widest unit every row start and the row length are multiples of.
    for (int v = 16; v > elem; v /= 2) {
      bool ok = reinterpret_cast<uintptr_t>(it.src) % v == 0 && reinterpret_cast<uintptr_t>(dst) % v == 0 && (len * elem) % v == 0;
      for (int d = 0; d < n - 1 && ok; ++d) ok = it.os_src[d] % v == 0 && it.os_dst[d] % v == 0;
      if (ok) {
        unit = v;
        break;
      }
    }
    it.ss = it.ds = unit;
  } else {
    it.ss = a[n - 1] * elem;
    it.ds = b[n - 1] * elem;
  }
  it.unit = unit;
  it.units = len * elem / unit;
  const long long total = it.rows * it.units;
  // Long rows, or too many units for 32-bit unit numbers: blocks own row parts.
  if (it.units >= kUnitsPerBlock / 2 || total >= (1ll << 31)) it.blocks_per_row = (it.units + kUnitsPerBlock - 1) / kUnitsPerBlock;
}

long long blocks_of(const Item& it) {
  return it.blocks_per_row > 0 ? it.rows * it.blocks_per_row : (it.rows * it.units + kUnitsPerBlock - 1) / kUnitsPerBlock;
}

}  // namespace

extern "C" int kgb_aten_cat(const kgb_tensor_list* tensors, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  switch (out->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I64: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  const int elem = kgb_dtype_size(out->dtype);
  const int rank = out->rank;
  if (rank < 1 || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const int d = static_cast<int>(dim);
  hipStream_t s = static_cast<hipStream_t>(stream);

  Batch batch;
  batch.count = 0;
  long long blocks = 0;
  auto flush = [&]() -> bool {
    if (batch.count == 0) return true;
    cat_batch<<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(batch);
    batch.count = 0;
    blocks = 0;
    return hipGetLastError() == hipSuccess;
  };
  int64_t offset = 0;
  for (int64_t k = 0; k < tensors->count; ++k) {
    const kgb_tensor* t = tensors->items[k];
    if (!t || t->dtype != out->dtype) return KGB_ERR_INVALID;
    if (t->rank == 1 && t->sizes[0] == 0) continue;  // the legacy rule: [0] items are skipped
    if (t->rank != rank) return KGB_ERR_INVALID;
    for (int i = 0; i < rank; ++i)
      if (i != d && t->sizes[i] != out->sizes[i]) return KGB_ERR_INVALID;
    if (kgb_numel(t) > 0) {
      Item& it = batch.items[batch.count];
      describe(t, static_cast<char*>(out->data) + offset * out->strides[d] * elem, out->strides, elem, it);
      it.block_begin = blocks;
      blocks += blocks_of(it);
      if (++batch.count == kMaxItems && !flush()) return KGB_ERR_INVALID;
    }
    offset += t->sizes[d];
  }
  if (kgb_numel(out) != 0 && offset != out->sizes[d]) return KGB_ERR_INVALID;
  return flush() ? KGB_OK : KGB_ERR_INVALID;
}
