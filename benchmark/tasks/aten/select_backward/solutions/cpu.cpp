// aten/select_backward on the CPU: out = 0 everywhere, then the slice at
// `index` along `dim` gets grad_output.
//
// Both steps are strided copies over a view, run by one helper: the view's
// dimensions are merged where the strides allow it (a dense out becomes a
// single row), and the rows of the last merged dimension are cut into chunks
// that OpenMP spreads over the cores. A unit-stride chunk is a memset or a
// memcpy; anything else is a simple loop. Elements move as 2/4/8-byte words
// (a bit-for-bit copy), and zero is the all-zero bit pattern in every float
// format.
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

namespace {

// A view of up to 8 dims over two tensors: out-side strides `d` and
// grad-side strides `s` (unused for the zero fill).
struct View {
  int rank = 0;
  int64_t size[KGB_MAX_RANK], d[KGB_MAX_RANK], s[KGB_MAX_RANK];

  void add(int64_t n, int64_t ds, int64_t ss) {
    if (n == 1) return;
    if (rank > 0 && d[rank - 1] == ds * n && s[rank - 1] == ss * n) {  // merge with the previous dim
      size[rank - 1] *= n;
      d[rank - 1] = ds;
      s[rank - 1] = ss;
      return;
    }
    size[rank] = n;
    d[rank] = ds;
    s[rank] = ss;
    ++rank;
  }
};

// For every element of the view: dst[d-offset] = src ? src[s-offset] : 0.
template <typename E>
void copy_view(const View& v, E* dst, const E* src) {
  const int last = v.rank - 1;
  const int64_t len = v.rank ? v.size[last] : 1, ds = v.rank ? v.d[last] : 1, ss = v.rank ? v.s[last] : 1;
  int64_t rows = 1;
  for (int k = 0; k < last; ++k) rows *= v.size[k];
  const int64_t kChunk = 16384;
  const int64_t chunks = (len + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (rows * len > 65536)
  for (int64_t t = 0; t < rows * chunks; ++t) {
    int64_t r = t / chunks, dof = 0, sof = 0;
    for (int k = last - 1; k >= 0; --k) {
      const int64_t c = r % v.size[k];
      r /= v.size[k];
      dof += c * v.d[k];
      sof += c * v.s[k];
    }
    const int64_t j0 = (t % chunks) * kChunk, n = len - j0 < kChunk ? len - j0 : kChunk;
    E* __restrict o = dst + dof + j0 * ds;
    if (!src) {
      if (ds == 1) memset(o, 0, static_cast<size_t>(n) * sizeof(E));
      else for (int64_t j = 0; j < n; ++j) o[j * ds] = 0;
      continue;
    }
    const E* __restrict g = src + sof + j0 * ss;
    if (ds == 1 && ss == 1) memcpy(o, g, static_cast<size_t>(n) * sizeof(E));
    else for (int64_t j = 0; j < n; ++j) o[j * ds] = g[j * ss];
  }
}

template <typename E>
void run(const kgb_tensor* grad, kgb_tensor* out, int dim, int64_t index) {
  E* y = static_cast<E*>(out->data);
  View zero;
  for (int k = 0; k < out->rank; ++k) zero.add(out->sizes[k], out->strides[k], 0);
  copy_view<E>(zero, y, nullptr);
  View slice;
  for (int k = 0; k < out->rank; ++k)
    if (k != dim) slice.add(out->sizes[k], out->strides[k], grad->strides[k < dim ? k : k - 1]);
  copy_view<E>(slice, y + index * out->strides[dim], static_cast<const E*>(grad->data));
}

}  // namespace

extern "C" int kgb_aten_select_backward(const kgb_tensor* grad_output, kgb_int_list input_sizes, int64_t dim,
                                        int64_t index, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  const int rank = static_cast<int>(input_sizes.count);
  if (rank < 1 || out->rank != rank || grad_output->rank != rank - 1 || out->dtype != grad_output->dtype)
    return KGB_ERR_INVALID;
  if (dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const int d = static_cast<int>(dim);
  const int64_t size = input_sizes.values[d];
  if (index < -size || index >= size) return KGB_ERR_INVALID;
  if (index < 0) index += size;
  int64_t numel = 1;
  for (int k = 0; k < rank; ++k) {
    if (out->sizes[k] != input_sizes.values[k]) return KGB_ERR_INVALID;
    if (k != d && grad_output->sizes[k < d ? k : k - 1] != out->sizes[k]) return KGB_ERR_INVALID;
    numel *= out->sizes[k];
  }
  if (numel == 0) return KGB_OK;
  switch (out->dtype) {
    case KGB_F16: case KGB_BF16: run<uint16_t>(grad_output, out, d, index); return KGB_OK;
    case KGB_F32: run<uint32_t>(grad_output, out, d, index); return KGB_OK;
    case KGB_F64: run<uint64_t>(grad_output, out, d, index); return KGB_OK;
    default: return KGB_ERR_UNSUPPORTED;
  }
}
