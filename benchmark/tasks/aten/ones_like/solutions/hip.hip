// aten/ones_like in HIP, a port of the CUDA solution. A tensor of ones with
// self's shape and layout: out holds the bytes of 1 in its dtype everywhere
// (self's values are never read), and the kernel only knows element widths
// (1, 2, 4, 8, 16 bytes).
//  - The view is folded into the fewest dims (size-1 dims dropped, dims by
//    falling stride, adjacent dims fused when they tile). A dense out (any
//    dim order) is one row: fill_rows writes it with 16-byte stores (the
//    element pattern replicated), after a head of elements up to 16-byte
//    alignment and before a short tail.
//  - Any other view: one element per thread, offsets from the linear index,
//    grid-stride loop.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <string.h>

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

// The element bytes of 1 in `dtype`: true, 1, 1.0 (f16 0x3C00, bf16 0x3F80),
// (1, 0) for complex.
bool one_bytes(int32_t dtype, unsigned char bytes[16]) {
  memset(bytes, 0, 16);
  switch (dtype) {
    case KGB_BOOL: case KGB_U8: case KGB_I8: bytes[0] = 1; return true;
    case KGB_I16: { const int16_t x = 1; memcpy(bytes, &x, 2); return true; }
    case KGB_I32: { const int32_t x = 1; memcpy(bytes, &x, 4); return true; }
    case KGB_I64: { const int64_t x = 1; memcpy(bytes, &x, 8); return true; }
    case KGB_F16: { const uint16_t h = 0x3C00; memcpy(bytes, &h, 2); return true; }
    case KGB_BF16: { const uint16_t h = 0x3F80; memcpy(bytes, &h, 2); return true; }
    case KGB_F32: case KGB_C64: { const float f = 1.0f; memcpy(bytes, &f, 4); return true; }
    case KGB_F64: case KGB_C128: { const double d = 1.0; memcpy(bytes, &d, 8); return true; }
    default: return false;
  }
}

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

// Rows of unit stride, `row_stride` elements apart; 16-byte stores in the
// aligned body of each row.
template <typename W>
__global__ void fill_rows(W* __restrict__ p, int64_t rows, int64_t cols, int64_t row_stride, W v) {
  constexpr int kPer = 16 / sizeof(W);
  union {
    uint4 u;
    W w[kPer];
  } pattern;
#pragma unroll
  for (int k = 0; k < kPer; ++k) pattern.w[k] = v;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    W* row = p + r * row_stride;
    const uintptr_t addr = reinterpret_cast<uintptr_t>(row);
    if (addr % sizeof(W) != 0 || (sizeof(W) == 16 && addr % 16 != 0)) {  // never for harness buffers
      for (int64_t i = first; i < cols; i += step) row[i] = v;
      continue;
    }
    int64_t head = static_cast<int64_t>((16 - (addr & 15)) & 15) / static_cast<int64_t>(sizeof(W));
    if (head > cols) head = cols;
    const int64_t packs = (cols - head) / kPer;
    uint4* body = reinterpret_cast<uint4*>(row + head);
    for (int64_t i = first; i < packs; i += step) body[i] = pattern.u;
    const int64_t tail = head + packs * kPer;
    if (first < head) row[first] = v;
    if (first < cols - tail) row[tail + first] = v;
  }
}

template <typename W>
__global__ void fill_strided(W* __restrict__ p, Folded f, int64_t n, W v) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t offset = 0, rest = i;
    for (int d = f.rank - 1; d > 0; --d) {
      const int64_t q = rest / f.size[d];
      offset += (rest - q * f.size[d]) * f.stride[d];
      rest = q;
    }
    p[offset + rest * f.stride[0]] = v;
  }
}

unsigned blocks_for(int64_t items, int64_t cap) {
  int64_t b = (items + kThreads - 1) / kThreads;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b < cap ? b : cap);
}

template <typename W>
int launch(kgb_tensor* out, const unsigned char bytes[16], hipStream_t s) {
  W v;
  memcpy(&v, bytes, sizeof v);
  W* p = static_cast<W*>(out->data);
  Folded f;
  fold(out, f);
  if (f.rank <= 2 && f.stride[f.rank - 1] == 1) {
    const int64_t rows = f.rank == 2 ? f.size[0] : 1, cols = f.size[f.rank - 1];
    const int64_t row_stride = f.rank == 2 ? f.stride[0] : 0;
    const int64_t packs = cols / (16 / static_cast<int64_t>(sizeof(W))) + 1;
    const unsigned y = static_cast<unsigned>(rows < 65535 ? rows : 65535);
    const int64_t cap = 4096 / y > 0 ? 4096 / y : 1;
    dim3 grid(blocks_for(packs, cap), y);
    fill_rows<W><<<grid, kThreads, 0, s>>>(p, rows, cols, row_stride, v);
  } else {
    const int64_t n = kgb_numel(out);
    fill_strided<W><<<blocks_for(n, 4096), kThreads, 0, s>>>(p, f, n, v);
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

int fill(kgb_tensor* out, const unsigned char bytes[16], kgb_stream stream) {
  if (kgb_numel(out) == 0) return KGB_OK;
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (kgb_dtype_size(out->dtype)) {
    case 1: return launch<uint8_t>(out, bytes, s);
    case 2: return launch<uint16_t>(out, bytes, s);
    case 4: return launch<uint32_t>(out, bytes, s);
    case 8: return launch<uint64_t>(out, bytes, s);
    case 16: return launch<Bytes16>(out, bytes, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

extern "C" int kgb_aten_ones_like(const kgb_tensor* self, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  // out already has self's shape, the layout memory_format=preserve gives and the dtype (given, or self's).
  if (self->rank != out->rank || (dtype ? *dtype != out->dtype : self->dtype != out->dtype)) return KGB_ERR_INVALID;
  unsigned char bytes[16];
  if (!one_bytes(out->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  return fill(out, bytes, stream);
}
