// aten/masked_fill_ on the CPU: self[i] = value where the broadcast mask is
// true, in place. The value is converted once on the host into self's dtype,
// so the fill itself moves raw 1/2/4/8-byte elements whatever the dtype. The
// views of self and mask are folded into one iteration space (mask's
// broadcast dims get stride 0, size-1 dims go, dims contiguous for both fuse)
// and walked in self's storage order, rows in parallel with OpenMP; a row
// with unit strides is a select loop (p[i] = m[i] ? v : p[i]) the compiler
// turns into vector blends.
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

struct Space {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t st[2][KGB_MAX_RANK];  // element strides of self, mask
};

bool build_space(const kgb_tensor* self, const kgb_tensor* mask, Space& sp) {
  if (mask->rank > self->rank) return false;
  Space raw;
  for (int d = 0; d < self->rank; ++d) {
    const int64_t n = self->sizes[d];
    const int k = d - (self->rank - mask->rank);
    int64_t ms = 0;
    if (k >= 0 && mask->sizes[k] != 1) {
      if (mask->sizes[k] != n) return false;
      ms = mask->strides[k];
    }
    if (n == 1) continue;
    raw.size[raw.rank] = n;
    raw.st[0][raw.rank] = self->strides[d];
    raw.st[1][raw.rank] = ms;
    ++raw.rank;
  }
  // self's storage order: dims by |stride|, largest first.
  for (int i = 1; i < raw.rank; ++i)
    for (int j = i; j > 0; --j) {
      const int64_t x = raw.st[0][j - 1] < 0 ? -raw.st[0][j - 1] : raw.st[0][j - 1];
      const int64_t y = raw.st[0][j] < 0 ? -raw.st[0][j] : raw.st[0][j];
      if (x >= y) break;
      const int64_t ts = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = ts;
      for (int k = 0; k < 2; ++k) { const int64_t t = raw.st[k][j]; raw.st[k][j] = raw.st[k][j - 1]; raw.st[k][j - 1] = t; }
    }
  sp.rank = 0;
  for (int d = 0; d < raw.rank; ++d) {
    if (sp.rank > 0) {
      const int p = sp.rank - 1;
      if (sp.st[0][p] == raw.st[0][d] * raw.size[d] && sp.st[1][p] == raw.st[1][d] * raw.size[d]) {
        sp.size[p] *= raw.size[d];
        sp.st[0][p] = raw.st[0][d];
        sp.st[1][p] = raw.st[1][d];
        continue;
      }
    }
    sp.size[sp.rank] = raw.size[d];
    sp.st[0][sp.rank] = raw.st[0][d];
    sp.st[1][sp.rank] = raw.st[1][d];
    ++sp.rank;
  }
  if (sp.rank == 0) {
    sp.rank = 1;
    sp.size[0] = 1;
    sp.st[0][0] = sp.st[1][0] = 0;
  }
  return true;
}

template <typename E>
void fill_row(E* __restrict p, const uint8_t* __restrict m, int64_t n, int64_t ps, int64_t ms, E v) {
  if (ps == 1 && ms == 1) {
    for (int64_t i = 0; i < n; ++i) p[i] = m[i] ? v : p[i];
  } else if (ms == 0) {
    if (!m[0]) return;
    if (ps == 1) for (int64_t i = 0; i < n; ++i) p[i] = v;
    else for (int64_t i = 0; i < n; ++i) p[i * ps] = v;
  } else {
    for (int64_t i = 0; i < n; ++i)
      if (m[i * ms]) p[i * ps] = v;
  }
}

template <typename E>
void fill(const Space& sp, kgb_tensor* self, const kgb_tensor* mask, E v) {
  const int last = sp.rank - 1;
  const int64_t inner = sp.size[last];
  int64_t outer = 1;
  for (int d = 0; d < last; ++d) outer *= sp.size[d];
  const int64_t kChunk = 16384;
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  const int64_t items = outer * chunks;
  E* base = static_cast<E*>(self->data);
  const uint8_t* mbase = static_cast<const uint8_t*>(mask->data);
#pragma omp parallel for schedule(static) if (outer * inner > 32768)
  for (int64_t w = 0; w < items; ++w) {
    int64_t rem = w / chunks;
    const int64_t begin = (w % chunks) * kChunk;
    int64_t po = begin * sp.st[0][last], mo = begin * sp.st[1][last];
    for (int d = last - 1; d >= 0; --d) {
      const int64_t i = rem % sp.size[d];
      rem /= sp.size[d];
      po += i * sp.st[0][d];
      mo += i * sp.st[1][d];
    }
    const int64_t len = inner - begin < kChunk ? inner - begin : kChunk;
    fill_row(base + po, mbase + mo, len, sp.st[0][last], sp.st[1][last], v);
  }
}

// The value's bytes in self's dtype (a cast: f16/bf16 round to nearest even).
bool value_bits(int32_t dtype, double real, int64_t integer, uint64_t* bits) {
  switch (dtype) {
    case KGB_F32: { const float f = static_cast<float>(real); uint32_t u; memcpy(&u, &f, 4); *bits = u; return true; }
    case KGB_F64: { memcpy(bits, &real, 8); return true; }
    case KGB_F16: *bits = kgb_float_to_f16(static_cast<float>(real)); return true;
    case KGB_BF16: *bits = kgb_float_to_bf16(static_cast<float>(real)); return true;
    case KGB_I32: *bits = static_cast<uint32_t>(static_cast<int32_t>(integer)); return true;
    case KGB_I64: *bits = static_cast<uint64_t>(integer); return true;
    case KGB_BOOL: *bits = integer != 0 || real != 0; return true;
    default: return false;
  }
}

int masked_fill(kgb_tensor* self, const kgb_tensor* mask, uint64_t bits) {
  if (mask->dtype != KGB_BOOL) return KGB_ERR_UNSUPPORTED;
  Space sp;
  if (!build_space(self, mask, sp)) return KGB_ERR_INVALID;
  if (kgb_numel(self) == 0) return KGB_OK;
  switch (kgb_dtype_size(self->dtype)) {
    case 1: fill<uint8_t>(sp, self, mask, static_cast<uint8_t>(bits)); break;
    case 2: fill<uint16_t>(sp, self, mask, static_cast<uint16_t>(bits)); break;
    case 4: fill<uint32_t>(sp, self, mask, static_cast<uint32_t>(bits)); break;
    default: fill<uint64_t>(sp, self, mask, bits); break;
  }
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_aten_masked_fill_(kgb_tensor* self, const kgb_tensor* mask, kgb_scalar value, kgb_stream stream) {
  (void)stream;
  const double real = value.dtype == KGB_F64 ? value.v.f : static_cast<double>(value.v.i);
  const int64_t integer = value.dtype == KGB_F64 ? static_cast<int64_t>(value.v.f) : value.v.i;
  uint64_t bits = 0;
  if (!value_bits(self->dtype, real, integer, &bits)) return KGB_ERR_UNSUPPORTED;
  return masked_fill(self, mask, bits);
}

extern "C" int kgb_aten_masked_fill__Tensor(kgb_tensor* self, const kgb_tensor* mask, const kgb_tensor* value,
                                            kgb_stream stream) {
  (void)stream;
  if (value->dtype != self->dtype || kgb_numel(value) != 1) return KGB_ERR_UNSUPPORTED;
  uint64_t bits = 0;
  memcpy(&bits, value->data, static_cast<size_t>(kgb_dtype_size(value->dtype)));  // little-endian: the low bytes
  return masked_fill(self, mask, bits);
}
