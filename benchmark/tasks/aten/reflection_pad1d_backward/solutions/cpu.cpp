// aten/reflection_pad1d_backward on the CPU: grad_input[..., i] sums the
// grad_output elements of its row that reflect onto i: its own position
// x = i + pad_left, the left mirror pad_left - i (1 <= i <= pad_left) and the
// right mirror 2 (W - 1) - i + pad_left (W - 1 - pad_right <= i <= W - 2).
//
// A gather per row (rows spread over the cores by OpenMP; each element is
// written by one thread in a fixed order: deterministic). Almost every element
// of a row has only its own term, and its value then is grad_output's bits
// unchanged: that interior [a, b) is a word copy (memcpy for unit strides).
// The few elements at the two ends add their mirror terms in the compute type
// (float for f32/f16/bf16, double for f64) and round once.
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

template <typename S> struct Traits;
template <> struct Traits<float> {
  using Acc = float;
  using Word = uint32_t;
  static float load(float v) { return v; }
  static float store(float v) { return v; }
};
template <> struct Traits<double> {
  using Acc = double;
  using Word = uint64_t;
  static double load(double v) { return v; }
  static double store(double v) { return v; }
};
struct F16 { uint16_t bits; };
struct BF16 { uint16_t bits; };
template <> struct Traits<F16> {
  using Acc = float;
  using Word = uint16_t;
  static float load(F16 v) { return kgb_f16_to_float(v.bits); }
  static F16 store(float v) { return F16{kgb_float_to_f16(v)}; }
};
template <> struct Traits<BF16> {
  using Acc = float;
  using Word = uint16_t;
  static float load(BF16 v) { return kgb_bf16_to_float(v.bits); }
  static BF16 store(float v) { return BF16{kgb_float_to_bf16(v)}; }
};

struct Row {
  int64_t W, pl, pr, OW;
  int64_t a, b;    // [a, b): elements with only their own term
  int64_t gs, os;  // last-dimension strides
};

// Every term of element i, in a fixed order.
template <typename S>
inline S element(const S* g, int64_t i, const Row& r) {
  using T = Traits<S>;
  typename T::Acc s = 0;
  const int64_t x = i + r.pl;
  if (x >= 0 && x < r.OW) s += T::load(g[x * r.gs]);
  if (i >= 1 && i <= r.pl) s += T::load(g[(r.pl - i) * r.gs]);
  if (i <= r.W - 2 && i >= r.W - 1 - r.pr) s += T::load(g[(2 * (r.W - 1) - i + r.pl) * r.gs]);
  return T::store(s);
}

template <typename S>
void run(const kgb_tensor* grad, kgb_tensor* out, const Row& r, int64_t N, int64_t C) {
  using Word = typename Traits<S>::Word;
  const S* g = static_cast<const S*>(grad->data);
  S* o = static_cast<S*>(out->data);
  const bool batched = out->rank == 3;
  const int64_t gn = batched ? grad->strides[0] : 0, gc = grad->strides[batched ? 1 : 0];
  const int64_t on = batched ? out->strides[0] : 0, oc = out->strides[batched ? 1 : 0];
  const int64_t rows = N * C;
#pragma omp parallel for schedule(static) if (rows * r.W > 32768)
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t n = row / C, c = row % C;
    const S* gr = g + n * gn + c * gc;
    S* orow = o + n * on + c * oc;
    for (int64_t i = 0; i < r.a; ++i) orow[i * r.os] = element(gr, i, r);
    if (r.a < r.b) {
      const Word* src = reinterpret_cast<const Word*>(gr + r.pl * r.gs);
      Word* dst = reinterpret_cast<Word*>(orow);
      if (r.gs == 1 && r.os == 1) {
        memcpy(dst + r.a, src + r.a, static_cast<size_t>(r.b - r.a) * sizeof(Word));
      } else {
        for (int64_t i = r.a; i < r.b; ++i) dst[i * r.os] = src[i * r.gs];
      }
    }
    for (int64_t i = r.b > r.a ? r.b : r.a; i < r.W; ++i) orow[i * r.os] = element(gr, i, r);
  }
}

inline int64_t max3(int64_t x, int64_t y, int64_t z) { return x > y ? (x > z ? x : z) : (y > z ? y : z); }

}  // namespace

extern "C" int kgb_aten_reflection_pad1d_backward(const kgb_tensor* grad_output, const kgb_tensor* self,
                                                  kgb_int_list padding, kgb_tensor* grad_input, kgb_stream stream) {
  (void)stream;
  if (padding.count != 2) return KGB_ERR_INVALID;
  const int rank = self->rank;
  if ((rank != 2 && rank != 3) || grad_output->rank != rank || grad_input->rank != rank) return KGB_ERR_INVALID;
  if (grad_output->dtype != self->dtype || grad_input->dtype != self->dtype) return KGB_ERR_INVALID;
  Row r{};
  r.W = self->sizes[rank - 1];
  r.pl = padding.values[0];
  r.pr = padding.values[1];
  r.OW = r.W + r.pl + r.pr;
  if (r.pl >= r.W || r.pr >= r.W) return KGB_ERR_INVALID;
  for (int d = 0; d < rank; ++d) {
    if (grad_input->sizes[d] != self->sizes[d]) return KGB_ERR_INVALID;
    if (grad_output->sizes[d] != (d == rank - 1 ? r.OW : self->sizes[d])) return KGB_ERR_INVALID;
  }
  const int32_t dt = self->dtype;
  if (dt != KGB_F32 && dt != KGB_F64 && dt != KGB_F16 && dt != KGB_BF16) return KGB_ERR_UNSUPPORTED;
  const int64_t N = rank == 3 ? self->sizes[0] : 1, C = self->sizes[rank - 2];
  if (N == 0 || C == 0 || r.W == 0) return KGB_OK;
  if (r.pl <= -r.W || r.pr <= -r.W) return KGB_ERR_INVALID;  // outside what the task defines
  r.gs = grad_output->strides[rank - 1];
  r.os = grad_input->strides[rank - 1];
  // Own term only: inside the crop, past the left mirrors, before the right ones.
  r.a = max3(0, -r.pl, r.pl + 1);
  r.b = r.W + (r.pr < 0 ? r.pr : 0);
  if (r.pr >= 1 && r.W - 1 - r.pr < r.b) r.b = r.W - 1 - r.pr;
  if (r.b < r.a) r.b = r.a;
  if (r.a > r.W) r.a = r.b = r.W;
  switch (dt) {
    case KGB_F32: run<float>(grad_output, grad_input, r, N, C); break;
    case KGB_F64: run<double>(grad_output, grad_input, r, N, C); break;
    case KGB_F16: run<F16>(grad_output, grad_input, r, N, C); break;
    default: run<BF16>(grad_output, grad_input, r, N, C); break;
  }
  return KGB_OK;
}
