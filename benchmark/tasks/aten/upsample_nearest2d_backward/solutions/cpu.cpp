// aten/upsample_nearest2d_backward on the CPU: every grad_input pixel sums the
// grad_output pixels whose legacy nearest source it is.
//
// The source rule src(o) = min(floor(o * s), in - 1) (float32 math, as ATen)
// is non-decreasing in o, so each input row / column owns a contiguous run of
// output rows / columns. Both run tables are built once on the host from the
// forward rule itself (exact, no inverse formula). The work is then a gather:
// one unit = one grad_input row (n, c, ih); OpenMP spreads the units over the
// cores, each sums its run of output rows into a per-thread accumulator row
// (float for f32/f16/bf16, double for f64) and rounds it once into grad_input.
// Every element is produced by one thread in a fixed order: deterministic.
// Inner loops: an exact integer width factor of 1 or 2 with unit-stride rows
// is a straight loop the compiler vectorises; anything else walks the runs.
#include <math.h>
#include <stdint.h>

#include <vector>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

// first[i] .. first[i + 1] - 1: the output positions whose source is i.
std::vector<int64_t> source_runs(int64_t in, int64_t out, const double* scale) {
  const float s = (scale && *scale > 0) ? static_cast<float>(1.0 / *scale) : static_cast<float>(in) / static_cast<float>(out);
  std::vector<int64_t> first(static_cast<size_t>(in) + 1, out);
  int64_t next = 0;
  for (int64_t o = 0; o < out; ++o) {
    int64_t src = static_cast<int64_t>(floorf(static_cast<float>(o) * s));
    if (src > in - 1) src = in - 1;
    while (next <= src) first[static_cast<size_t>(next++)] = o;
  }
  return first;
}

template <typename S> struct Traits;
template <> struct Traits<float> {
  using Acc = float;
  static float load(float v) { return v; }
  static float store(float v) { return v; }
};
template <> struct Traits<double> {
  using Acc = double;
  static double load(double v) { return v; }
  static double store(double v) { return v; }
};
struct F16 { uint16_t bits; };
struct BF16 { uint16_t bits; };
template <> struct Traits<F16> {
  using Acc = float;
  static float load(F16 v) { return kgb_f16_to_float(v.bits); }
  static F16 store(float v) { return F16{kgb_float_to_f16(v)}; }
};
template <> struct Traits<BF16> {
  using Acc = float;
  static float load(BF16 v) { return kgb_bf16_to_float(v.bits); }
  static BF16 store(float v) { return BF16{kgb_float_to_bf16(v)}; }
};

// acc[iw] += the sum of one grad_output row over iw's run of columns.
// Factor > 0: exact integer width factor with unit stride (run of iw is
// factor * iw .. factor * iw + factor - 1).
template <typename S, int Factor>
inline void add_row(typename Traits<S>::Acc* __restrict acc, const S* __restrict g, int64_t W, int64_t gs,
                    const int64_t* cols) {
  using T = Traits<S>;
  if constexpr (Factor == 1) {
    for (int64_t iw = 0; iw < W; ++iw) acc[iw] += T::load(g[iw]);
  } else if constexpr (Factor == 2) {
    for (int64_t iw = 0; iw < W; ++iw) acc[iw] += T::load(g[2 * iw]) + T::load(g[2 * iw + 1]);
  } else {
    for (int64_t iw = 0; iw < W; ++iw) {
      typename T::Acc s = 0;
      for (int64_t ow = cols[iw]; ow < cols[iw + 1]; ++ow) s += T::load(g[ow * gs]);
      acc[iw] += s;
    }
  }
}

struct Problem {
  int64_t N, C, H, W, OH, OW;
  const int64_t* gs;  // grad_output strides
  const int64_t* os;  // grad_input strides
  std::vector<int64_t> rows, cols;
};

template <typename S, int Factor>
void run(const Problem& p, const S* grad, S* out) {
  using T = Traits<S>;
  using Acc = typename T::Acc;
  const int64_t units = p.N * p.C * p.H;
#pragma omp parallel
  {
    std::vector<Acc> acc(static_cast<size_t>(p.W));
#pragma omp for schedule(static)
    for (int64_t u = 0; u < units; ++u) {
      const int64_t ih = u % p.H, nc = u / p.H, c = nc % p.C, n = nc / p.C;
      for (int64_t iw = 0; iw < p.W; ++iw) acc[static_cast<size_t>(iw)] = 0;
      const S* plane = grad + n * p.gs[0] + c * p.gs[1];
      for (int64_t oh = p.rows[static_cast<size_t>(ih)]; oh < p.rows[static_cast<size_t>(ih) + 1]; ++oh)
        add_row<S, Factor>(acc.data(), plane + oh * p.gs[2], p.W, p.gs[3], p.cols.data());
      S* o = out + n * p.os[0] + c * p.os[1] + ih * p.os[2];
      if (p.os[3] == 1) {
        for (int64_t iw = 0; iw < p.W; ++iw) o[iw] = T::store(acc[static_cast<size_t>(iw)]);
      } else {
        for (int64_t iw = 0; iw < p.W; ++iw) o[iw * p.os[3]] = T::store(acc[static_cast<size_t>(iw)]);
      }
    }
  }
}

template <typename S>
int dispatch(const Problem& p, const kgb_tensor* grad, kgb_tensor* out) {
  const S* g = static_cast<const S*>(grad->data);
  S* o = static_cast<S*>(out->data);
  // Fixed-factor loops only where every run is exactly [k * iw, k * iw + k)
  // (a given scale may make OW == k * W map otherwise).
  const int64_t k = p.OW % p.W == 0 ? p.OW / p.W : 0;
  bool exact = p.gs[3] == 1 && (k == 1 || k == 2);
  for (int64_t iw = 0; iw <= p.W && exact; ++iw) exact = p.cols[static_cast<size_t>(iw)] == k * iw;
  if (exact && k == 1) run<S, 1>(p, g, o);
  else if (exact) run<S, 2>(p, g, o);
  else run<S, 0>(p, g, o);
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_aten_upsample_nearest2d_backward(const kgb_tensor* grad_output, kgb_int_list output_size,
                                                    kgb_int_list input_size, const double* scales_h,
                                                    const double* scales_w, kgb_tensor* grad_input, kgb_stream stream) {
  (void)stream;
  if (output_size.count != 2 || input_size.count != 4) return KGB_ERR_INVALID;
  if (grad_output->rank != 4 || grad_input->rank != 4 || grad_output->dtype != grad_input->dtype) return KGB_ERR_INVALID;
  Problem p{};
  p.N = input_size.values[0];
  p.C = input_size.values[1];
  p.H = input_size.values[2];
  p.W = input_size.values[3];
  p.OH = output_size.values[0];
  p.OW = output_size.values[1];
  if (p.N < 0 || p.C < 0 || p.H <= 0 || p.W <= 0 || p.OH <= 0 || p.OW <= 0) return KGB_ERR_INVALID;
  const int64_t want_out[4] = {p.N, p.C, p.OH, p.OW};
  for (int d = 0; d < 4; ++d)
    if (grad_input->sizes[d] != input_size.values[d] || grad_output->sizes[d] != want_out[d]) return KGB_ERR_INVALID;
  const int32_t dt = grad_input->dtype;
  if (dt != KGB_F32 && dt != KGB_F64 && dt != KGB_F16 && dt != KGB_BF16) return KGB_ERR_UNSUPPORTED;
  if (p.N == 0 || p.C == 0) return KGB_OK;
  p.gs = grad_output->strides;
  p.os = grad_input->strides;
  p.rows = source_runs(p.H, p.OH, scales_h);
  p.cols = source_runs(p.W, p.OW, scales_w);
  switch (dt) {
    case KGB_F32: return dispatch<float>(p, grad_output, grad_input);
    case KGB_F64: return dispatch<double>(p, grad_output, grad_input);
    case KGB_F16: return dispatch<F16>(p, grad_output, grad_input);
    default: return dispatch<BF16>(p, grad_output, grad_input);
  }
}
