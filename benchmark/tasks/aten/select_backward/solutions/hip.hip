// aten/select_backward in HIP (gfx90a), a port of the CUDA solution (plain
// loads where CUDA uses __ldg): out = 0 everywhere, then the slice at
// `index` along `dim` gets grad_output (bit-for-bit copies; zero is the
// all-zero pattern in every float format, so elements move as raw words).
//  - Dense out: hipMemsetAsync clears it at full bandwidth, then one
//    grid-stride kernel copies grad_output into the slice (a 1/size share of
//    out). Slice dims that are contiguous in both tensors are merged, so the
//    copy of a row slice is one long coalesced run.
//  - Strided out (padded, stepped, transposed): one fused grid-stride
//    kernel over out's elements in row-major order writes either the grad
//    value or zero, touching only elements of the view.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

struct Layout {
  int rank;
  long long size[KGB_MAX_RANK];
  long long ostride[KGB_MAX_RANK], gstride[KGB_MAX_RANK];  // gstride 0 at dim (fused kernel)
  long long numel;
  int dim;           // fused kernel: the selected dim (-1: none)
  long long index;   // fused kernel: the selected position
};

template <typename E>
__global__ void __launch_bounds__(kThreads) copy_slice(E* __restrict__ out, const E* __restrict__ grad, Layout l) {
  for (long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; i < l.numel;
       i += static_cast<long long>(gridDim.x) * kThreads) {
    long long rest = i, oo = 0, go = 0;
    for (int d = l.rank - 1; d >= 0; --d) {
      const long long c = rest % l.size[d];
      rest /= l.size[d];
      oo += c * l.ostride[d];
      go += c * l.gstride[d];
    }
    out[oo] = (*(grad + go));
  }
}

template <typename E>
__global__ void __launch_bounds__(kThreads) fill_fused(E* __restrict__ out, const E* __restrict__ grad, Layout l) {
  for (long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; i < l.numel;
       i += static_cast<long long>(gridDim.x) * kThreads) {
    long long rest = i, oo = 0, go = 0;
    bool selected = true;
    for (int d = l.rank - 1; d >= 0; --d) {
      const long long c = rest % l.size[d];
      rest /= l.size[d];
      oo += c * l.ostride[d];
      go += c * l.gstride[d];
      if (d == l.dim) selected = c == l.index;
    }
    out[oo] = selected ? (*(grad + go)) : E(0);
  }
}

unsigned blocks_for(long long items) {
  const long long b = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 16384 ? 16384 : b));
}

// Appends a dim to a row-major layout, merging it into the previous one when
// both stride sets allow it; size-1 dims are dropped.
void add_dim(Layout& l, long long n, long long os, long long gs) {
  if (n == 1) return;
  if (l.rank > 0 && l.ostride[l.rank - 1] == os * n && l.gstride[l.rank - 1] == gs * n) {
    l.size[l.rank - 1] *= n;
    l.ostride[l.rank - 1] = os;
    l.gstride[l.rank - 1] = gs;
    return;
  }
  l.size[l.rank] = n;
  l.ostride[l.rank] = os;
  l.gstride[l.rank] = gs;
  ++l.rank;
}

bool dense(const kgb_tensor* t) {
  long long expect = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->sizes[d];
  }
  return true;
}

template <typename E>
int launch(const kgb_tensor* grad, kgb_tensor* out, int dim, long long index, long long numel, hipStream_t s) {
  E* y = static_cast<E*>(out->data);
  const E* g = static_cast<const E*>(grad->data);
  if (dense(out)) {
    if (hipMemsetAsync(y, 0, static_cast<size_t>(numel) * sizeof(E), s) != hipSuccess) return KGB_ERR_INVALID;
    Layout l{};
    l.numel = 1;
    l.dim = -1;
    for (int d = 0; d < out->rank; ++d) {
      if (d == dim) continue;
      add_dim(l, out->sizes[d], out->strides[d], grad->strides[d < dim ? d : d - 1]);
      l.numel *= out->sizes[d];
    }
    copy_slice<E><<<blocks_for(l.numel), kThreads, 0, s>>>(y + index * out->strides[dim], g, l);
  } else {
    Layout l{};
    l.rank = out->rank;
    l.numel = numel;
    l.dim = dim;
    l.index = index;
    for (int d = 0; d < out->rank; ++d) {
      l.size[d] = out->sizes[d];
      l.ostride[d] = out->strides[d];
      l.gstride[d] = d == dim ? 0 : grad->strides[d < dim ? d : d - 1];
    }
    fill_fused<E><<<blocks_for(numel), kThreads, 0, s>>>(y, g, l);
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_select_backward(const kgb_tensor* grad_output, kgb_int_list input_sizes, int64_t dim,
                                        int64_t index, kgb_tensor* out, kgb_stream stream) {
  const int rank = static_cast<int>(input_sizes.count);
  if (rank < 1 || out->rank != rank || grad_output->rank != rank - 1 || out->dtype != grad_output->dtype)
    return KGB_ERR_INVALID;
  if (dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const int d = static_cast<int>(dim);
  const int64_t size = input_sizes.values[d];
  if (index < -size || index >= size) return KGB_ERR_INVALID;
  if (index < 0) index += size;
  long long numel = 1;
  for (int k = 0; k < rank; ++k) {
    if (out->sizes[k] != input_sizes.values[k]) return KGB_ERR_INVALID;
    if (k != d && grad_output->sizes[k < d ? k : k - 1] != out->sizes[k]) return KGB_ERR_INVALID;
    numel *= out->sizes[k];
  }
  if (numel == 0) return KGB_OK;
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (out->dtype) {
    case KGB_F16: case KGB_BF16: return launch<unsigned short>(grad_output, out, d, index, numel, s);
    case KGB_F32: return launch<unsigned int>(grad_output, out, d, index, numel, s);
    case KGB_F64: return launch<unsigned long long>(grad_output, out, d, index, numel, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
