// aten/diff on CUDA: out = the n-th forward difference of [prepend, self,
// append] along dim, each difference step rounded to the dtype (16-bit floats
// after every step), integers wrapping, bool steps a != b.
//
// Output element k along dim depends on the joined elements k..k+n only, and
// the n steps restricted to that window give exactly the full computation's
// value. So one thread computes one output element from its window (in
// registers up to n = 4, n <= 32 in all), with no scratch and no
// synchronisation: a grid-stride loop over out's elements in row-major order
// (the last dim fastest, so neighbouring threads touch neighbouring addresses
// of row-major tensors).
// The kernel is templated on the element type; index arithmetic is 64-bit.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

#define HD __host__ __device__ __forceinline__

namespace {

constexpr int kSmall = 4;      // orders unrolled in registers
constexpr int kMaxOrder = 32;  // window of at most 33 values

// ---- element types: storage S, computation type W, one difference step ------
struct F32 { using S = float; using W = float;
  static HD W load(S v) { return v; } static HD S store(W w) { return w; } static HD W step(W a, W b) { return a - b; } };
struct F64 { using S = double; using W = double;
  static HD W load(S v) { return v; } static HD S store(W w) { return w; } static HD W step(W a, W b) { return a - b; } };
struct F16 { using S = uint16_t; using W = float;
  static HD W load(S v) { return kgb_f16_to_float(v); } static HD S store(W w) { return kgb_float_to_f16(w); }
  static HD W step(W a, W b) { return kgb_f16_to_float(kgb_float_to_f16(a - b)); } };  // rounded every step
struct BF16 { using S = uint16_t; using W = float;
  static HD W load(S v) { return kgb_bf16_to_float(v); } static HD S store(W w) { return kgb_float_to_bf16(w); }
  static HD W step(W a, W b) { return kgb_bf16_to_float(kgb_float_to_bf16(a - b)); } };
struct I32 { using S = int32_t; using W = int32_t;
  static HD W load(S v) { return v; } static HD S store(W w) { return w; }
  static HD W step(W a, W b) { return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b)); } };
struct I64 { using S = int64_t; using W = int64_t;
  static HD W load(S v) { return v; } static HD S store(W w) { return w; }
  static HD W step(W a, W b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); } };
struct Bool { using S = uint8_t; using W = uint8_t;
  static HD W load(S v) { return v != 0; } static HD S store(W w) { return w; } static HD W step(W a, W b) { return a != b; } };

// ---- the problem, passed by value ----------------------------------------------
struct Problem {
  int rank, dim, pieces;        // pieces: prepend, self, append that take part (length > 0), in order
  int64_t n, count;             // order (clipped), number of out elements
  const void* data[3];
  int64_t start[3];             // joined position of each piece's first element
  int64_t stride[3][KGB_MAX_RANK];
  int64_t sizes[KGB_MAX_RANK], out_stride[KGB_MAX_RANK];
};

// Joined element `pos` of the line whose other indices give the piece offsets `base`.
template <typename T>
__device__ __forceinline__ typename T::W load_at(const Problem& pb, const int64_t* base, int64_t pos) {
  int p = 0;
  while (p + 1 < pb.pieces && pos >= pb.start[p + 1]) ++p;
  const typename T::S* src = static_cast<const typename T::S*>(pb.data[p]);
  return T::load(src[base[p] + (pos - pb.start[p]) * pb.stride[p][pb.dim]]);
}

// The n steps on the window k..k+n. Orders up to kSmall run fully unrolled
// with predicates, so the window stays in registers; larger ones use a
// (local-memory) array.
template <typename T>
__device__ __forceinline__ typename T::W window_diff(const Problem& pb, const int64_t* base, int64_t k) {
  if (pb.n <= kSmall) {
    typename T::W w[kSmall + 1];
#pragma unroll
    for (int i = 0; i <= kSmall; ++i)
      if (i <= pb.n) w[i] = load_at<T>(pb, base, k + i);
#pragma unroll
    for (int len = kSmall; len > 0; --len)
      if (len <= pb.n)
#pragma unroll
        for (int i = 0; i < len; ++i) w[i] = T::step(w[i + 1], w[i]);
    return w[0];
  }
  typename T::W w[kMaxOrder + 1];
  for (int64_t i = 0; i <= pb.n; ++i) w[i] = load_at<T>(pb, base, k + i);
  for (int64_t len = pb.n; len > 0; --len)
    for (int64_t i = 0; i < len; ++i) w[i] = T::step(w[i + 1], w[i]);
  return w[0];
}

template <typename T>
__global__ void diff_kernel(Problem pb, typename T::S* __restrict__ out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < pb.count; e += step) {
    int64_t rest = e, o = 0, k = 0, base[3] = {0, 0, 0};
    for (int d = pb.rank - 1; d >= 0; --d) {
      const int64_t q = rest / pb.sizes[d], i = rest - q * pb.sizes[d];
      rest = q;
      o += i * pb.out_stride[d];
      if (d == pb.dim) k = i;
      else
        for (int p = 0; p < pb.pieces; ++p) base[p] += i * pb.stride[p][d];
    }
    out[o] = T::store(window_diff<T>(pb, base, k));
  }
}

template <typename T>
int launch(const Problem& pb, void* out, cudaStream_t stream) {
  constexpr int kThreads = 256;
  int64_t blocks = (pb.count + kThreads - 1) / kThreads;
  if (blocks > 65535) blocks = 65535;
  diff_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(pb, static_cast<typename T::S*>(out));
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

bool same_other_sizes(const kgb_tensor* a, const kgb_tensor* b, int dim) {
  if (a->rank != b->rank) return false;
  for (int d = 0; d < a->rank; ++d)
    if (d != dim && a->sizes[d] != b->sizes[d]) return false;
  return true;
}

}  // namespace

extern "C" int kgb_aten_diff(const kgb_tensor* self, int64_t n, int64_t dim, const kgb_tensor* prepend,
                             const kgb_tensor* append, kgb_tensor* out, kgb_stream stream) {
  const int rank = self->rank;
  if (rank < 1 || n < 0) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return KGB_ERR_INVALID;
  Problem pb{};
  pb.rank = rank;
  pb.dim = static_cast<int>(dim);
  int64_t joined = 0;
  // n == 0 is a copy of self: ATen ignores prepend and append then.
  const kgb_tensor* parts[3] = {n > 0 ? prepend : nullptr, self, n > 0 ? append : nullptr};
  for (const kgb_tensor* t : parts) {
    if (!t) continue;
    if (t->dtype != self->dtype || !same_other_sizes(t, self, pb.dim)) return KGB_ERR_INVALID;
    if (t->sizes[dim] > 0) {  // an empty piece holds no position
      const int p = pb.pieces++;
      pb.data[p] = t->data;
      pb.start[p] = joined;
      for (int d = 0; d < rank; ++d) pb.stride[p][d] = t->strides[d];
    }
    joined += t->sizes[dim];
  }
  pb.n = n < joined ? n : joined;
  if (out->dtype != self->dtype || !same_other_sizes(out, self, pb.dim) || out->sizes[dim] != joined - pb.n)
    return KGB_ERR_INVALID;
  pb.count = kgb_numel(out);
  if (pb.count == 0) return KGB_OK;
  if (pb.n > kMaxOrder) return KGB_ERR_UNSUPPORTED;
  for (int d = 0; d < rank; ++d) {
    pb.sizes[d] = out->sizes[d];
    pb.out_stride[d] = out->strides[d];
  }
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (self->dtype) {
    case KGB_F32: return launch<F32>(pb, out->data, s);
    case KGB_F64: return launch<F64>(pb, out->data, s);
    case KGB_F16: return launch<F16>(pb, out->data, s);
    case KGB_BF16: return launch<BF16>(pb, out->data, s);
    case KGB_I32: return launch<I32>(pb, out->data, s);
    case KGB_I64: return launch<I64>(pb, out->data, s);
    case KGB_BOOL: return launch<Bool>(pb, out->data, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
