// aten/reshape on the CPU.
//
// The shape is completed first (one -1 takes the remaining count). Alias
// path: ATen's computeStride finds strides that address self's elements in
// the new shape (self's dims, cut into chunks that are dense runs, are each
// covered by whole dims of the new shape), so out becomes that view and
// nothing is copied.
// Copy path: out is row-major in the new shape, which holds the same bytes as
// a row-major copy in self's shape. The dims are folded first (size-1 dims
// dropped, dims that are contiguous in self merged), then out is filled row
// by row (a row = the innermost folded dim) by one of three loops, all over
// OpenMP:
//  - self's innermost stride is 1: every row is one memcpy;
//  - another dim of self has stride 1 (a transpose): 32 x 32 tiles, read
//    along self's stride-1 dim and written along out's rows, so both sides
//    stay in cache;
//  - otherwise (stepped, broadcast): a strided gather per row.
// Elements move bit for bit, so only the element size (1-16 bytes) matters.
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

namespace {

// ATen's infer_size: at most one -1; the product must be numel.
bool infer_shape(kgb_int_list shape, int64_t numel, int64_t* sizes) {
  if (shape.count > KGB_MAX_RANK) return false;
  int64_t known = 1, infer = -1;
  for (int64_t d = 0; d < shape.count; ++d) {
    sizes[d] = shape.values[d];
    if (sizes[d] == -1) {
      if (infer >= 0) return false;
      infer = d;
    } else if (sizes[d] < 0) {
      return false;
    } else {
      known *= sizes[d];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) return false;
    sizes[infer] = numel / known;
    return true;
  }
  return known == numel;
}

// ATen's computeStride: strides for the new shape over self's storage, or false.
bool compute_stride(const kgb_tensor* t, const int64_t* shape, int rank, int64_t* strides) {
  if (t->rank == 0) {
    for (int d = 0; d < rank; ++d) strides[d] = 1;
    return true;
  }
  const int64_t numel = kgb_numel(t);
  if (numel == 0) {
    bool same = rank == t->rank;
    for (int d = 0; same && d < rank; ++d) same = shape[d] == t->sizes[d];
    for (int d = rank - 1; d >= 0; --d)
      strides[d] = same ? t->strides[d] : d == rank - 1 ? 1 : (shape[d + 1] > 1 ? shape[d + 1] : 1) * strides[d + 1];
    return true;
  }
  int view_d = rank - 1;
  int64_t base = t->strides[t->rank - 1], tensor_numel = 1, view_numel = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    tensor_numel *= t->sizes[d];
    if (d == 0 || (t->sizes[d - 1] != 1 && t->strides[d - 1] != tensor_numel * base)) {  // end of a chunk
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        strides[view_d] = view_numel * base;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        base = t->strides[d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

struct Plan {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t src[KGB_MAX_RANK];  // self's strides; out is row-major over these sizes
};

Plan fold(const kgb_tensor* t) {
  Plan p;
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    if (p.rank > 0 && p.src[p.rank - 1] == t->strides[d] * t->sizes[d]) {  // merges with the dim before
      p.size[p.rank - 1] *= t->sizes[d];
      p.src[p.rank - 1] = t->strides[d];
      continue;
    }
    p.size[p.rank] = t->sizes[d];
    p.src[p.rank] = t->strides[d];
    ++p.rank;
  }
  if (p.rank == 0) {  // one element
    p.size[0] = 1;
    p.src[0] = 0;
    p.rank = 1;
  }
  return p;
}

// Source offset of the first element of outer index `index` over dims [0, n).
int64_t outer_offset(const Plan& p, int n, int64_t index) {
  int64_t off = 0;
  for (int d = n - 1; d >= 0; --d) {
    off += (index % p.size[d]) * p.src[d];
    index /= p.size[d];
  }
  return off;
}

struct Bytes16 {
  uint64_t lo, hi;
};

template <typename E>
void copy_rows(const E* src, E* dst, const Plan& p) {
  const int64_t len = p.size[p.rank - 1];
  const int64_t rows = [&] {
    int64_t r = 1;
    for (int d = 0; d < p.rank - 1; ++d) r *= p.size[d];
    return r;
  }();
  const int64_t inner = p.src[p.rank - 1];
#pragma omp parallel for schedule(static) if (rows * len > 32768)
  for (int64_t r = 0; r < rows; ++r) {
    const E* from = src + outer_offset(p, p.rank - 1, r);
    E* to = dst + r * len;
    if (inner == 1) {
      memcpy(to, from, static_cast<size_t>(len) * sizeof(E));
    } else {
      for (int64_t k = 0; k < len; ++k) to[k] = from[k * inner];
    }
  }
}

// Dim `a` of self has stride 1 and is not the innermost: copy 32 x 32 tiles
// of (a, last) for every index of the other dims.
template <typename E>
void copy_transposed(const E* src, E* dst, const Plan& p, int a) {
  constexpr int64_t kTile = 32;
  const int last = p.rank - 1;
  const int64_t na = p.size[a], nl = p.size[last], sl = p.src[last];
  int64_t out_stride[KGB_MAX_RANK];
  out_stride[last] = 1;
  for (int d = last - 1; d >= 0; --d) out_stride[d] = out_stride[d + 1] * p.size[d + 1];
  int64_t batches = 1;
  for (int d = 0; d < last; ++d)
    if (d != a) batches *= p.size[d];
  const int64_t tiles_a = (na + kTile - 1) / kTile, tiles_l = (nl + kTile - 1) / kTile;
  const int64_t work = batches * tiles_a * tiles_l;
#pragma omp parallel for schedule(static) if (batches * na * nl > 32768)
  for (int64_t w = 0; w < work; ++w) {
    const int64_t tl = w % tiles_l, ta = (w / tiles_l) % tiles_a;
    int64_t b = w / (tiles_l * tiles_a), s_off = 0, o_off = 0;
    for (int d = last - 1; d >= 0; --d) {  // the batch index over the dims other than a and last
      if (d == a) continue;
      const int64_t i = b % p.size[d];
      b /= p.size[d];
      s_off += i * p.src[d];
      o_off += i * out_stride[d];
    }
    const int64_t a0 = ta * kTile, a1 = a0 + kTile < na ? a0 + kTile : na;
    const int64_t l0 = tl * kTile, l1 = l0 + kTile < nl ? l0 + kTile : nl;
    for (int64_t l = l0; l < l1; ++l) {  // reads run along a (stride 1 in self)
      const E* from = src + s_off + l * sl;
      E* to = dst + o_off + l;
      for (int64_t i = a0; i < a1; ++i) to[i * out_stride[a]] = from[i];
    }
  }
}

template <typename E>
void copy_plan(const void* src, void* dst, const Plan& p) {
  const E* s = static_cast<const E*>(src);
  E* d = static_cast<E*>(dst);
  if (p.src[p.rank - 1] != 1) {
    for (int a = p.rank - 2; a >= 0; --a)
      if (p.src[a] == 1 && p.size[a] >= 8) {
        copy_transposed(s, d, p, a);
        return;
      }
  }
  copy_rows(s, d, p);
}

}  // namespace

extern "C" int kgb_aten_reshape(const kgb_tensor* self, kgb_int_list shape, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (self->dtype != out->dtype) return KGB_ERR_INVALID;
  int64_t sizes[KGB_MAX_RANK], strides[KGB_MAX_RANK];
  if (!infer_shape(shape, kgb_numel(self), sizes)) return KGB_ERR_INVALID;
  const int rank = static_cast<int>(shape.count);
  if (out->rank != rank) return KGB_ERR_INVALID;
  for (int d = 0; d < rank; ++d)
    if (out->sizes[d] != sizes[d]) return KGB_ERR_INVALID;
  if (compute_stride(self, sizes, rank, strides)) {  // ATen returns a view: out becomes it
    out->data = self->data;
    for (int d = 0; d < rank; ++d) out->strides[d] = strides[d];
    out->storage_offset = self->storage_offset;
    out->flags = self->flags;
    return KGB_OK;
  }
  if (!kgb_is_contiguous(out)) return KGB_ERR_INVALID;  // the copy is row-major
  const Plan p = fold(self);
  switch (kgb_dtype_size(self->dtype)) {
    case 1: copy_plan<uint8_t>(self->data, out->data, p); break;
    case 2: copy_plan<uint16_t>(self->data, out->data, p); break;
    case 4: copy_plan<uint32_t>(self->data, out->data, p); break;
    case 8: copy_plan<uint64_t>(self->data, out->data, p); break;
    case 16: copy_plan<Bytes16>(self->data, out->data, p); break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  return KGB_OK;
}
