// aten/affine_grid_generator on the CPU. The base coordinates of each dim
// are computed once into small tables (rounded to T, as ATen's base grid
// is), theta is read once per batch, and every output row (n, [d,] h) is a
// run of W points: with the row's constant part c_k = theta[n,k,1]*y (+
// theta[n,k,2]*z) + theta[n,k,last] folded in, point w is
// c_k + theta[n,k,0]*x(w) for each k. Dense rows are written as interleaved
// (x, y[, z]) tuples in a loop the compiler vectorises; other out layouts go
// through out's strides. float arithmetic (double for f64), 16-bit values
// converted with kgb_half.h. Rows are shared by the threads (OpenMP).
#include <stdint.h>

#include <vector>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

template <typename S>
struct Io;  // storage S <-> compute type
template <>
struct Io<float> {
  using C = float;
  static float load(float v) { return v; }
  static float store(float v) { return v; }
  static float round(float v) { return v; }
};
template <>
struct Io<double> {
  using C = double;
  static double load(double v) { return v; }
  static double store(double v) { return v; }
  static double round(double v) { return v; }
};
struct Half {
  uint16_t bits;
};
struct BFloat {
  uint16_t bits;
};
template <>
struct Io<Half> {
  using C = float;
  static float load(Half v) { return kgb_f16_to_float(v.bits); }
  static Half store(float v) { return Half{kgb_float_to_f16(v)}; }
  static float round(float v) { return kgb_f16_to_float(kgb_float_to_f16(v)); }
};
template <>
struct Io<BFloat> {
  using C = float;
  static float load(BFloat v) { return kgb_bf16_to_float(v.bits); }
  static BFloat store(float v) { return BFloat{kgb_float_to_bf16(v)}; }
  static float round(float v) { return kgb_bf16_to_float(kgb_float_to_bf16(v)); }
};

// x(i, S): linspace(-1, 1, S) (0 for S = 1), scaled by (S-1)/S without align_corners; rounded to T.
template <typename S>
std::vector<typename Io<S>::C> coordinates(int64_t size, bool align) {
  using C = typename Io<S>::C;
  std::vector<C> x(static_cast<size_t>(size), C(0));
  if (size <= 1) return x;
  for (int64_t i = 0; i < size; ++i) {
    const double v = align ? -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(size - 1)
                           : (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(size) - 1.0;
    x[static_cast<size_t>(i)] = Io<S>::round(static_cast<C>(v));
  }
  return x;
}

template <typename S, int K>  // K = 2 (2-D) or 3 (3-D) coordinates
void run(const kgb_tensor* theta, kgb_tensor* out, int64_t batch, int64_t depth, int64_t height, int64_t width, bool align) {
  using C = typename Io<S>::C;
  const std::vector<C> xs = coordinates<S>(width, align), ys = coordinates<S>(height, align), zs = coordinates<S>(depth, align);
  const S* th = static_cast<const S*>(theta->data);
  S* o = static_cast<S*>(out->data);
  const int r = out->rank;
  const int64_t on = out->strides[0], od = K == 3 ? out->strides[1] : 0, oh = out->strides[r - 3];
  const int64_t ow = out->strides[r - 2], ok = out->strides[r - 1];
  const bool dense = ok == 1 && ow == K;
  const int64_t rows = batch * depth * height;
#pragma omp parallel for schedule(static) if (rows * width > 16384)
  for (int64_t u = 0; u < rows; ++u) {
    const int64_t n = u / (depth * height), d = (u / height) % depth, h = u % height;
    C a[K], c[K];
    for (int k = 0; k < K; ++k) {
      const S* row = th + n * theta->strides[0] + k * theta->strides[1];
      const int64_t s2 = theta->strides[2];
      a[k] = Io<S>::load(row[0]);
      c[k] = Io<S>::load(row[K * s2]) + Io<S>::load(row[s2]) * ys[static_cast<size_t>(h)];
      if (K == 3) c[k] += Io<S>::load(row[2 * s2]) * zs[static_cast<size_t>(d)];
    }
    S* dst = o + n * on + d * od + h * oh;
    const C* x = xs.data();
    if (dense) {
      S* __restrict p = dst;
      for (int64_t w = 0; w < width; ++w)
        for (int k = 0; k < K; ++k) p[w * K + k] = Io<S>::store(c[k] + a[k] * x[w]);
    } else {
      for (int64_t w = 0; w < width; ++w)
        for (int k = 0; k < K; ++k) dst[w * ow + k * ok] = Io<S>::store(c[k] + a[k] * x[w]);
    }
  }
}

template <typename S>
void dispatch(const kgb_tensor* theta, kgb_tensor* out, int spatial, int64_t batch, int64_t depth, int64_t height,
              int64_t width, bool align) {
  if (spatial == 2) run<S, 2>(theta, out, batch, depth, height, width, align);
  else run<S, 3>(theta, out, batch, depth, height, width, align);
}

}  // namespace

extern "C" int kgb_aten_affine_grid_generator(const kgb_tensor* theta, kgb_int_list size, int align_corners,
                                              kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  switch (theta->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (size.count != 4 && size.count != 5) return KGB_ERR_INVALID;
  const int spatial = static_cast<int>(size.count) - 2;
  for (int64_t i = 0; i < size.count; ++i)
    if (size.values[i] < 0) return KGB_ERR_INVALID;
  const int64_t batch = size.values[0], depth = spatial == 3 ? size.values[2] : 1;
  const int64_t height = size.values[size.count - 2], width = size.values[size.count - 1];
  if (theta->rank != 3 || theta->sizes[0] != batch || theta->sizes[1] != spatial || theta->sizes[2] != spatial + 1)
    return KGB_ERR_INVALID;
  if (out->dtype != theta->dtype || out->rank != spatial + 2 || out->sizes[0] != batch || out->sizes[spatial + 1] != spatial)
    return KGB_ERR_INVALID;
  for (int d = 1; d <= spatial; ++d)
    if (out->sizes[d] != size.values[d + 1]) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;
  const bool align = align_corners != 0;
  switch (theta->dtype) {
    case KGB_F32: dispatch<float>(theta, out, spatial, batch, depth, height, width, align); break;
    case KGB_F64: dispatch<double>(theta, out, spatial, batch, depth, height, width, align); break;
    case KGB_F16: dispatch<Half>(theta, out, spatial, batch, depth, height, width, align); break;
    default: dispatch<BFloat>(theta, out, spatial, batch, depth, height, width, align); break;
  }
  return KGB_OK;
}
