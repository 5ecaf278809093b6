// aten/full on the CPU. A fill stores one bit pattern everywhere, so the
// value is converted once into the element's bytes and the kernel only
// knows element widths (1, 2, 4, 8, 16 bytes). The view is folded into the
// fewest dims (size-1 dims dropped, dims walked by falling stride, adjacent
// dims fused when they tile), so a contiguous or padded view becomes long
// unit-stride rows: those are filled with plain loops GCC vectorises into
// full-width stores, split across cores with OpenMP.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

// ---- the value as the element's bytes ---------------------------------------
// PyTorch's Scalar::to<T>: f16/bf16 are built from a float (the double is
// rounded to float first), floats truncate into integers, ints wrap.
bool encode(const kgb_scalar& v, int32_t dtype, unsigned char bytes[16]) {
  const bool complex_value = v.dtype == KGB_C128;
  const double re = complex_value ? v.v.c.re : v.dtype == KGB_F64 ? v.v.f : static_cast<double>(v.v.i);
  const double im = complex_value ? v.v.c.im : 0.0;
  const bool integral = v.dtype == KGB_I64 || v.dtype == KGB_BOOL;
  const int64_t as_int = integral ? v.v.i : static_cast<int64_t>(trunc(re));
  memset(bytes, 0, 16);
  switch (dtype) {
    case KGB_BOOL: { const uint8_t b = integral ? v.v.i != 0 : (re != 0 || im != 0); memcpy(bytes, &b, 1); return true; }
    case KGB_U8: { const uint8_t x = static_cast<uint8_t>(as_int); memcpy(bytes, &x, 1); return true; }
    case KGB_I8: { const int8_t x = static_cast<int8_t>(as_int); memcpy(bytes, &x, 1); return true; }
    case KGB_I16: { const int16_t x = static_cast<int16_t>(as_int); memcpy(bytes, &x, 2); return true; }
    case KGB_I32: { const int32_t x = static_cast<int32_t>(as_int); memcpy(bytes, &x, 4); return true; }
    case KGB_I64: { memcpy(bytes, &as_int, 8); return true; }
    case KGB_F16: { const uint16_t h = kgb_float_to_f16(static_cast<float>(re)); memcpy(bytes, &h, 2); return true; }
    case KGB_BF16: { const uint16_t h = kgb_float_to_bf16(static_cast<float>(re)); memcpy(bytes, &h, 2); return true; }
    case KGB_F32: { const float f = static_cast<float>(re); memcpy(bytes, &f, 4); return true; }
    case KGB_F64: { memcpy(bytes, &re, 8); return true; }
    case KGB_C64: {
      const float parts[2] = {static_cast<float>(re), static_cast<float>(im)};
      memcpy(bytes, parts, 8);
      return true;
    }
    case KGB_C128: {
      const double parts[2] = {re, im};
      memcpy(bytes, parts, 16);
      return true;
    }
    default: return false;
  }
}

// ---- the view folded into rows ----------------------------------------------
struct Space {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t stride[KGB_MAX_RANK];
};

void fold(const kgb_tensor* t, Space& sp) {
  Space raw;
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    raw.size[raw.rank] = t->sizes[d];
    raw.stride[raw.rank] = t->strides[d];
    ++raw.rank;
  }
  for (int i = 1; i < raw.rank; ++i)  // largest stride first: the innermost dim has the smallest
    for (int j = i; j > 0 && raw.stride[j - 1] < raw.stride[j]; --j) {
      int64_t s = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = s;
      s = raw.stride[j]; raw.stride[j] = raw.stride[j - 1]; raw.stride[j - 1] = s;
    }
  sp.rank = 0;
  for (int d = 0; d < raw.rank; ++d) {
    if (sp.rank > 0 && sp.stride[sp.rank - 1] == raw.stride[d] * raw.size[d]) {
      sp.size[sp.rank - 1] *= raw.size[d];
      sp.stride[sp.rank - 1] = raw.stride[d];
      continue;
    }
    sp.size[sp.rank] = raw.size[d];
    sp.stride[sp.rank] = raw.stride[d];
    ++sp.rank;
  }
  if (sp.rank == 0) {
    sp.rank = 1;
    sp.size[0] = 1;
    sp.stride[0] = 1;
  }
}

// ---- the stores ---------------------------------------------------------------
template <typename W>
void fill_row(W* __restrict p, int64_t n, int64_t stride, W v) {
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) p[i] = v;  // vectorised: full-width stores
  } else {
    for (int64_t i = 0; i < n; ++i) p[i * stride] = v;
  }
}

template <typename W>
void fill_view(const kgb_tensor* t, const Space& sp, W v) {
  W* base = static_cast<W*>(t->data);
  const int inner_dim = sp.rank - 1;
  const int64_t inner = sp.size[inner_dim], inner_stride = sp.stride[inner_dim];
  int64_t outer = 1;
  for (int d = 0; d < inner_dim; ++d) outer *= sp.size[d];
  if (outer == 1) {
    // One long row: cores take contiguous blocks of it.
    const int64_t block = 16384;
    const int64_t blocks = (inner + block - 1) / block;
#pragma omp parallel for schedule(static) if (blocks > 4)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t first = b * block, n = inner - first < block ? inner - first : block;
      fill_row(base + first * inner_stride, n, inner_stride, v);
    }
    return;
  }
#pragma omp parallel for schedule(static) if (outer * inner > 32768)
  for (int64_t r = 0; r < outer; ++r) {
    int64_t offset = 0, rest = r;
    for (int d = inner_dim - 1; d >= 0; --d) {
      offset += (rest % sp.size[d]) * sp.stride[d];
      rest /= sp.size[d];
    }
    fill_row(base + offset, inner, inner_stride, v);
  }
}

int fill_bytes(kgb_tensor* out, const unsigned char bytes[16]) {
  const int32_t elem = kgb_dtype_size(out->dtype);
  if (elem == 0) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  Space sp;
  fold(out, sp);
  switch (elem) {
    case 1: { uint8_t v; memcpy(&v, bytes, 1); fill_view(out, sp, v); break; }
    case 2: { uint16_t v; memcpy(&v, bytes, 2); fill_view(out, sp, v); break; }
    case 4: { uint32_t v; memcpy(&v, bytes, 4); fill_view(out, sp, v); break; }
    case 8: { uint64_t v; memcpy(&v, bytes, 8); fill_view(out, sp, v); break; }
    default: { Bytes16 v; memcpy(&v, bytes, 16); fill_view(out, sp, v); break; }
  }
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_aten_full(kgb_int_list size, kgb_scalar fill_value, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  // out already has the shape and the dtype (given, or inferred from fill_value): size and dtype only describe it.
  if (size.count != out->rank || (dtype && *dtype != out->dtype)) return KGB_ERR_INVALID;
  (void)stream;
  unsigned char bytes[16];
  if (!encode(fill_value, out->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  return fill_bytes(out, bytes);
}
