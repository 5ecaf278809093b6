// Reference, input generator and check for aten/rrelu_with_noise: randomized
// leaky ReLU that records its slopes in noise.
//
// training: where x <= 0 (both zeros and -inf included) the slope r is drawn
// uniformly from [lower, upper] and rounded to T, noise = r, out = x * r
// (the stored x times the stored r, rounded once to T); elsewhere (x > 0 or
// NaN) noise = 1 and out = x. eval: noise is not touched and out is
// leaky_relu(x, (lower + upper) / 2), the slope converted to float (double
// for f64), the product rounded to float and then to T (ATen's CUDA opmath).
//
// The reference is one correct sampler (splitmix64 keyed by (seed, logical
// index), u in (0, 1], r = lower + u * (upper - lower) in double, rounded
// once). The check is exact wherever the op is deterministic (eval; in
// training noise = 1 and out = x where x > 0 or NaN, the slope's range, and
// out = x * noise on every drawn element: a joint check of the two outputs)
// and statistical on the drawn slopes: a two-sample Kolmogorov-Smirnov test at
// the resolution of one step of T
// against the reference's slopes at the same positions, uncorrelated
// neighbours, and uncorrelated slopes under another seed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../random_check.h"
#include "kgb/random.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

using kgb::random_check::correlation;
using kgb::random_check::ks_distance_within_step;
using kgb::random_check::splitmix64;

// The eval slope in the compute type: float, or double for f64.
double eval_slope(kgb::DType t, double lower, double upper) {
  const double slope = (lower + upper) / 2;
  return t == kgb::DType::F64 ? slope : static_cast<double>(static_cast<float>(slope));
}

void rrelu_with_noise_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& noise = args.tensor("noise");
  kgb::HostTensor& out = args.tensor("out");
  if (self.sizes() != out.sizes() || noise.sizes() != out.sizes())
    throw std::runtime_error("aten/rrelu_with_noise: self, noise and out differ in shape");
  const double lower = args.scalar("lower"), upper = args.scalar("upper");
  if (!(lower <= upper)) throw std::runtime_error("aten/rrelu_with_noise: the cases keep lower <= upper");
  const kgb::DType t = out.dtype();
  const std::vector<double> x = kgb::to_doubles(self);
  std::vector<double> o(x.size());
  if (!args.bool_scalar("training")) {
    const double slope = eval_slope(t, lower, upper);
    // x * slope is exact in double for f32/f16/bf16 operands; rounded to
    // float first (opmath), then to T by from_doubles.
    const kgb::DType compute = t == kgb::DType::F64 ? t : kgb::DType::F32;
    for (size_t i = 0; i < x.size(); ++i) o[i] = x[i] > 0 || std::isnan(x[i]) ? x[i] : kgb::round_to(compute, x[i] * slope);
    kgb::from_doubles(out, o);
    return;
  }
  const uint64_t key = splitmix64(static_cast<uint64_t>(args.int_scalar("seed")));
  std::vector<double> r(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] <= 0) {
      const double u = static_cast<double>((splitmix64(key ^ splitmix64(i)) >> 11) + 1) * 0x1.0p-53;  // (0, 1]
      r[i] = kgb::round_to(t, lower + u * (upper - lower));
      o[i] = x[i] * r[i];  // exact for f32/f16/bf16 operands; rounded once by from_doubles
    } else {
      r[i] = 1;
      o[i] = x[i];
    }
  }
  kgb::from_doubles(noise, r);
  kgb::from_doubles(out, o);
}

// Inputs with the edges the op distinguishes: standard normal values, 1/8
// exactly +0, 1/16 exactly -0 (both draw a slope: the rule is x <= 0), and
// 1/64 each NaN, +inf and -inf. Tensors of fewer than 64 elements get plain
// nonzero normal values (their outputs are checked exactly).
void rrelu_inputs(kgb::GeneratorArgs& g) {
  std::vector<double> v(static_cast<size_t>(g.tensor.numel()));
  const bool tiny = v.size() < 64;
  for (double& x : v) {
    const uint64_t pick = g.rng() & 63;
    const double u1 = kgb::uniform_open01(g.rng), u2 = kgb::uniform_open01(g.rng);
    x = std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    if (tiny) continue;
    if (pick < 8) x = 0.0;
    else if (pick < 12) x = -0.0;
    else if (pick == 12) x = std::nan("");
    else if (pick == 13) x = INFINITY;
    else if (pick == 14) x = -INFINITY;
  }
  kgb::from_doubles(g.tensor, v);
}

void fail(kgb::CaseCheck& c, const std::string& output, const std::string& status, const std::string& message) {
  if (c.mismatches == 0) {
    c.status = status;
    c.message = message;
    c.output = output;
  }
  ++c.mismatches;
}

// Equal as stored values: NaN matches NaN, zeros must agree in sign.
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

std::string at_element(size_t i, double x) {
  std::ostringstream os;
  os << " at element " << i << " (row-major), where self is " << x;
  return os.str();
}

// The spacing of T's values just above |v| (v finite): the gap to the next
// representable value up, for a positive v.
double spacing_above(kgb::DType t, double v) {
  int precision = 53, min_exponent = -1074;  // significand bits; the subnormal spacing's exponent
  if (t == kgb::DType::F32) precision = 24, min_exponent = -149;
  if (t == kgb::DType::F16) precision = 11, min_exponent = -24;
  if (t == kgb::DType::BF16) precision = 8, min_exponent = -133;
  int exponent = 0;
  std::frexp(v, &exponent);
  return std::ldexp(1.0, std::max(exponent - precision, min_exponent));
}

// A 16-bit out may be x times the slope before it was rounded to T (ATen
// 2.x on CPU and CUDA multiplies by the float slope): out is then x * r'
// rounded once for some r' that rounds to the stored noise. Rounding is
// monotone, so the products of the two ends of r's rounding interval bound it.
bool from_unrounded_slope(kgb::DType t, double x, double noise, double out) {
  if (t != kgb::DType::F16 && t != kgb::DType::BF16) return false;
  if (!std::isfinite(x) || !std::isfinite(out) || !(noise > 0)) return false;
  const double half_spacing = spacing_above(t, noise) / 2;
  const double a = kgb::round_to(t, x * (noise - half_spacing)), b = kgb::round_to(t, x * (noise + half_spacing));
  return out >= std::min(a, b) && out <= std::max(a, b);
}

void rrelu_with_noise_check(const kgb::CheckContext& ctx, kgb::CaseCheck& c) {
  const kgb::HostTensor& got_out = ctx.got.tensor("out");
  const kgb::DType t = got_out.dtype();
  const std::vector<double> x = kgb::to_doubles(ctx.inputs.tensor("self"));
  const std::vector<double> out = kgb::to_doubles(got_out), noise = kgb::to_doubles(ctx.got.tensor("noise"));
  const std::vector<double> want_out = kgb::to_doubles(ctx.expected.tensor("out"));
  const std::vector<double> want_noise = kgb::to_doubles(ctx.expected.tensor("noise"));
  const size_t n = x.size();
  c.checked += static_cast<int64_t>(2 * n);
  if (!ctx.inputs.bool_scalar("training")) {
    // Deterministic: out exactly, noise untouched.
    for (size_t i = 0; i < n; ++i) {
      if (!same(out[i], want_out[i])) {
        std::ostringstream os;
        os << "eval mode: out must be x > 0 ? x : x * (lower + upper) / 2 (rounded as described); expected "
           << want_out[i] << ", got " << out[i] << at_element(i, x[i]);
        fail(c, "out", "mismatch", os.str());
        return;
      }
      if (!same(noise[i], want_noise[i])) {
        std::ostringstream os;
        os << "eval mode must leave noise untouched: it held " << want_noise[i] << ", now " << noise[i] << at_element(i, x[i]);
        fail(c, "noise", "mismatch", os.str());
        return;
      }
    }
    return;
  }
  const double lower = ctx.inputs.scalar("lower"), upper = ctx.inputs.scalar("upper");
  const double lo = kgb::round_to(t, lower), hi = kgb::round_to(t, upper);
  // The joint rule, exactly, element by element.
  std::vector<size_t> drawn;
  for (size_t i = 0; i < n; ++i) {
    if (x[i] <= 0) {
      if (!(noise[i] >= lo && noise[i] <= hi)) {
        std::ostringstream os;
        os << "where self <= 0 (zeros included) noise must be a slope drawn from [lower, upper] = [" << lo << ", " << hi
           << "]; got " << noise[i] << at_element(i, x[i]);
        fail(c, "noise", "outside-support", os.str());
        return;
      }
      const double product = kgb::round_to(t, x[i] * noise[i]);
      if (!same(out[i], product) && !from_unrounded_slope(t, x[i], noise[i], out[i])) {
        std::ostringstream os;
        os << "out must be self * noise (rounded once) where self <= 0: expected " << product << " for noise " << noise[i]
           << ", got " << out[i] << at_element(i, x[i]);
        fail(c, "out", "mismatch", os.str());
        return;
      }
      drawn.push_back(i);
    } else {
      if (noise[i] != 1 || !same(out[i], x[i])) {
        std::ostringstream os;
        os << "where self > 0 or NaN, noise must be 1 and out must be self; got noise " << noise[i] << ", out " << out[i]
           << at_element(i, x[i]);
        fail(c, noise[i] != 1 ? "noise" : "out", "mismatch", os.str());
        return;
      }
    }
  }
  const size_t m = drawn.size();
  if (m < 64 || hi == lo) return;  // too few draws to test, or one possible slope
  // The drawn slopes against the reference's at the same positions.
  std::vector<double> a, b;
  for (size_t i : drawn) a.push_back(noise[i]), b.push_back(want_noise[i]);
  const std::vector<double> in_order = a;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  // At T's resolution: ATen's CUDA kernel rounds its uniform to T before
  // scaling it, which moves a 16-bit slope by up to one step (random_check.h).
  const double d = ks_distance_within_step(a, b, [t](double v) { return v + spacing_above(t, v); });
  const double critical = 3.5 * std::sqrt(2.0 / static_cast<double>(m));
  if (d > critical) {
    std::ostringstream os;
    os << "the slopes drawn where self <= 0 do not follow U[" << lower << ", " << upper << "]: Kolmogorov-Smirnov distance "
       << d << " (at the resolution of one step of the dtype) from the reference sampler's slopes over " << m
       << " draws (allowed " << critical << ")";
    fail(c, "noise", "statistics", os.str());
    return;
  }
  const double root_m = std::sqrt(static_cast<double>(m - 1));
  const double rho1 = correlation(std::span(in_order).first(m - 1), std::span(in_order).subspan(1));
  if (std::fabs(rho1) * root_m > 5) {
    std::ostringstream os;
    os << "slopes are not independent: consecutive drawn slopes (row-major) have correlation " << rho1;
    fail(c, "noise", "statistics", os.str());
    return;
  }
  // The evaluator adds another seed's outputs (first seed of every case) as
  // "noise@other_seed"; elsewhere it is absent.
  const auto other = ctx.got.tensors.find("noise@other_seed");
  if (other == ctx.got.tensors.end() || !other->second || static_cast<size_t>(other->second->numel()) != n) return;
  const std::vector<double> y = kgb::to_doubles(*other->second);
  std::vector<double> b2;
  for (size_t i : drawn) b2.push_back(y[i]);
  const double rho = correlation(in_order, b2);
  if (std::fabs(rho) * std::sqrt(static_cast<double>(m)) > 5) {
    std::ostringstream os;
    os << "the slopes of two seeds are correlated (" << rho << "): the seed must key an independent stream";
    fail(c, "noise", "seed-dependence", os.str());
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/rrelu_with_noise", rrelu_with_noise_reference);
KGB_REGISTER_GENERATOR("aten/rrelu_with_noise/self", rrelu_inputs);
KGB_REGISTER_CHECK("aten/rrelu_with_noise", rrelu_with_noise_check);
