// aten/to on the CPU (.dtype, .other, .dtype_layout, .device): when the
// dtype does not change and copy is false, out becomes an alias of self (its
// descriptor takes self's metadata, nothing moves); otherwise out = self
// converted to the target dtype (a C cast, as ATen's copy kernels convert),
// out being the pre-allocated copy in ATen's preserve layout. The two views are folded into the fewest dims (size-1 dims dropped,
// dims walked in out's storage order, dims contiguous for both fused) and cut
// into (row, chunk) work items for OpenMP. A row whose two inner strides are
// 1 is a straight loop on the storage types the compiler vectorises (a
// memcpy when the dtypes agree); anything else is a strided loop. Every
// (source, target) dtype pair is its own instantiation, so the conversion
// inlines into the loop.
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

// ---- storage types and the conversions between them ----------------------------
struct F16 { uint16_t bits; };
struct BF16 { uint16_t bits; };
struct Bool { uint8_t byte; };

// A source element widened without loss: floats to float/double, integers and
// bool to int64.
inline float wide(F16 x) { return kgb_f16_to_float(x.bits); }
inline float wide(BF16 x) { return kgb_bf16_to_float(x.bits); }
inline float wide(float x) { return x; }
inline double wide(double x) { return x; }
inline int64_t wide(int32_t x) { return x; }
inline int64_t wide(int64_t x) { return x; }
inline int64_t wide(Bool x) { return x.byte != 0; }

template <typename T> struct Is { };
// The wide value into a target element: floats round once (16-bit floats
// through float, as c10::Half/BFloat16 convert), floats into integers
// truncate, i64 into i32 keeps the low 32 bits, bool is value != 0 (NaN true).
template <typename W> inline float narrow(W w, Is<float>) { return static_cast<float>(w); }
template <typename W> inline double narrow(W w, Is<double>) { return static_cast<double>(w); }
template <typename W> inline F16 narrow(W w, Is<F16>) { return F16{kgb_float_to_f16(static_cast<float>(w))}; }
template <typename W> inline BF16 narrow(W w, Is<BF16>) { return BF16{kgb_float_to_bf16(static_cast<float>(w))}; }
inline int32_t narrow(float w, Is<int32_t>) { return static_cast<int32_t>(w); }
inline int32_t narrow(double w, Is<int32_t>) { return static_cast<int32_t>(w); }
inline int32_t narrow(int64_t w, Is<int32_t>) { return static_cast<int32_t>(static_cast<uint32_t>(w)); }
template <typename W> inline int64_t narrow(W w, Is<int64_t>) { return static_cast<int64_t>(w); }
template <typename W> inline Bool narrow(W w, Is<Bool>) { return Bool{static_cast<uint8_t>(w != W(0))}; }

template <typename D, typename S>
inline D convert(S s) { return narrow(wide(s), Is<D>()); }

// ---- the iteration space ---------------------------------------------------------
struct Space {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t so[KGB_MAX_RANK], ss[KGB_MAX_RANK];  // element strides of out and self
};

void build_space(const kgb_tensor* self, const kgb_tensor* out, Space& sp) {
  Space raw;
  for (int d = 0; d < out->rank; ++d) {
    if (out->sizes[d] == 1) continue;
    raw.size[raw.rank] = out->sizes[d];
    raw.so[raw.rank] = out->strides[d];
    raw.ss[raw.rank] = self->strides[d];
    ++raw.rank;
  }
  // out's storage order: dims by |out stride|, largest first (insertion sort).
  for (int i = 1; i < raw.rank; ++i)
    for (int j = i; j > 0; --j) {
      const int64_t a = raw.so[j - 1] < 0 ? -raw.so[j - 1] : raw.so[j - 1];
      const int64_t b = raw.so[j] < 0 ? -raw.so[j] : raw.so[j];
      if (a >= b) break;
      int64_t t = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = t;
      t = raw.so[j]; raw.so[j] = raw.so[j - 1]; raw.so[j - 1] = t;
      t = raw.ss[j]; raw.ss[j] = raw.ss[j - 1]; raw.ss[j - 1] = t;
    }
  sp.rank = 0;
  for (int d = 0; d < raw.rank; ++d) {
    const int p = sp.rank - 1;
    if (p >= 0 && sp.so[p] == raw.so[d] * raw.size[d] && sp.ss[p] == raw.ss[d] * raw.size[d]) {
      sp.size[p] *= raw.size[d];
      sp.so[p] = raw.so[d];
      sp.ss[p] = raw.ss[d];
      continue;
    }
    sp.size[sp.rank] = raw.size[d];
    sp.so[sp.rank] = raw.so[d];
    sp.ss[sp.rank] = raw.ss[d];
    ++sp.rank;
  }
  if (sp.rank == 0) {  // one element
    sp.rank = 1;
    sp.size[0] = 1;
    sp.so[0] = sp.ss[0] = 0;
  }
}

template <typename S, typename D>
void convert_row(const S* __restrict s, D* __restrict o, int64_t n, int64_t ss, int64_t so) {
  if (ss == 1 && so == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = convert<D>(s[i]);
  } else if (so == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = convert<D>(s[i * ss]);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i * so] = convert<D>(s[i * ss]);
  }
}

template <typename S, typename D>
void run(const Space& sp, const S* self, D* out) {
  const int last = sp.rank - 1;
  const int64_t inner = sp.size[last];
  int64_t outer = 1;
  for (int d = 0; d < last; ++d) outer *= sp.size[d];
  const int64_t kChunk = 16384;
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  const int64_t items = outer * chunks;
  const bool same_bits = std::is_same<S, D>::value;
#pragma omp parallel for schedule(static) if (outer * inner > 32768)
  for (int64_t w = 0; w < items; ++w) {
    int64_t rest = w / chunks;
    const int64_t begin = (w % chunks) * kChunk;
    int64_t os = begin * sp.ss[last], oo = begin * sp.so[last];
    for (int d = last - 1; d >= 0; --d) {
      const int64_t i = rest % sp.size[d];
      rest /= sp.size[d];
      os += i * sp.ss[d];
      oo += i * sp.so[d];
    }
    const int64_t n = inner - begin < kChunk ? inner - begin : kChunk;
    if (same_bits && sp.ss[last] == 1 && sp.so[last] == 1)
      memcpy(out + oo, self + os, static_cast<size_t>(n) * sizeof(D));
    else
      convert_row(self + os, out + oo, n, sp.ss[last], sp.so[last]);
  }
}

template <typename S>
int to_target(const Space& sp, const kgb_tensor* self, kgb_tensor* out) {
  const S* s = static_cast<const S*>(self->data);
  switch (out->dtype) {
    case KGB_F32: run(sp, s, static_cast<float*>(out->data)); return KGB_OK;
    case KGB_F64: run(sp, s, static_cast<double*>(out->data)); return KGB_OK;
    case KGB_F16: run(sp, s, static_cast<F16*>(out->data)); return KGB_OK;
    case KGB_BF16: run(sp, s, static_cast<BF16*>(out->data)); return KGB_OK;
    case KGB_I32: run(sp, s, static_cast<int32_t*>(out->data)); return KGB_OK;
    case KGB_I64: run(sp, s, static_cast<int64_t*>(out->data)); return KGB_OK;
    case KGB_BOOL: run(sp, s, static_cast<Bool*>(out->data)); return KGB_OK;
    default: return KGB_ERR_UNSUPPORTED;
  }
}

bool supported(int32_t t) {
  return t == KGB_F32 || t == KGB_F64 || t == KGB_F16 || t == KGB_BF16 || t == KGB_I32 || t == KGB_I64 || t == KGB_BOOL;
}

// out describes self: what ATen's to() returns when nothing changes.
int alias_self(const kgb_tensor* self, kgb_tensor* out) {
  out->data = self->data;
  out->rank = self->rank;
  for (int d = 0; d < self->rank; ++d) {
    out->sizes[d] = self->sizes[d];
    out->strides[d] = self->strides[d];
  }
  out->storage_offset = self->storage_offset;
  out->flags = self->flags;
  return KGB_OK;
}

// _to_copy's path: self converted to `target` (out->dtype) into out.
int converted_copy(const kgb_tensor* self, int32_t target, kgb_tensor* out, kgb_stream stream) {
  (void)stream;  // the CPU platform has no queue
  if (!supported(self->dtype) || !supported(out->dtype)) return KGB_ERR_UNSUPPORTED;
  if (target != out->dtype || self->rank != out->rank) return KGB_ERR_INVALID;
  for (int d = 0; d < self->rank; ++d)
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;
  Space sp;
  build_space(self, out, sp);
  switch (self->dtype) {
    case KGB_F32: return to_target<float>(sp, self, out);
    case KGB_F64: return to_target<double>(sp, self, out);
    case KGB_F16: return to_target<F16>(sp, self, out);
    case KGB_BF16: return to_target<BF16>(sp, self, out);
    case KGB_I32: return to_target<int32_t>(sp, self, out);
    case KGB_I64: return to_target<int64_t>(sp, self, out);
    default: return to_target<Bool>(sp, self, out);
  }
}

// ATen's to_will_alias, layout, device and memory_format being unchanged:
// alias iff the dtype stays and no copy is asked for.
int to_dtype(const kgb_tensor* self, int32_t target, int copy, kgb_tensor* out, kgb_stream stream) {
  if (target == self->dtype && !copy) return alias_self(self, out);
  return converted_copy(self, target, out, stream);
}

}  // namespace

// non_blocking is a hint for host/device copies; here the copy is ordered on
// the queue either way.
extern "C" int kgb_aten_to(const kgb_tensor* self, int dtype, int non_blocking, int copy, kgb_tensor* out,
                           kgb_stream stream) {
  (void)non_blocking;
  return to_dtype(self, dtype, copy, out, stream);
}

extern "C" int kgb_aten_to_other(const kgb_tensor* self, const kgb_tensor* other, int non_blocking, int copy,
                                 kgb_tensor* out, kgb_stream stream) {
  (void)non_blocking;
  return to_dtype(self, other->dtype, copy, out, stream);
}

extern "C" int kgb_aten_to_dtype_layout(const kgb_tensor* self, const int* dtype, int non_blocking, int copy,
                                        kgb_tensor* out, kgb_stream stream) {
  (void)non_blocking;
  return to_dtype(self, dtype ? *dtype : self->dtype, copy, out, stream);
}

// The device is the one the tensors are on (not an argument of the entry).
extern "C" int kgb_aten_to_device(const kgb_tensor* self, int dtype, int non_blocking, int copy, kgb_tensor* out,
                                  kgb_stream stream) {
  (void)non_blocking;
  return to_dtype(self, dtype, copy, out, stream);
}
