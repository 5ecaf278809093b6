#!/usr/bin/env python3
"""Generator of the ATen unary float-op tasks (issue 14): silu, sin, cos, rsqrt,
log10, asin, acosh, cosh, erfc, hardsigmoid, mish, special_entr, logit, i0,
polygamma, sgn.

Usage: scripts/taskgen/unary.py [--check] [op ...]   (no op: every op), run
from the repository root; --check writes nothing and lists the files that
differ from what it would write (exit 1 if any). For each op it writes

  benchmark/tasks/aten/<op>/spec.json          cases, tolerance, description
  benchmark/tasks/aten/<op>/reference.cpp      fp64 reference (pointwise_reference.h)
  benchmark/tasks/aten/<op>/solutions/{cpu.cpp,cuda.cu,hip.hip,opencl.cpp}
  backends/opencl/baselines/aten/<op>.cpp      plain OpenCL baseline (unary_plain.h)

The skeleton (dtype dispatch with ATen's float(T) promotion, folding self/out
into the fewest dimensions, contiguous fast paths, strided fallbacks) lives in
unary_templates.py; each op contributes its formula in every language, its
special values, input distribution and argument handling. Every emitted file
is standalone and readable on its own: re-run the generator after changing a
template and commit its output. The generated files are the source of truth
for review; this script only keeps the family consistent.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import unary_templates as tpl  # noqa: E402

FLOAT_T = ["f32", "f64", "f16", "bf16"]
PROMOTE_T = FLOAT_T + ["i32", "i64", "bool"]

# ---- op-specific code shared by several ops -------------------------------

NO_ARGS_CPU = "template <typename C>\nstruct OpArgs {};\n"
NO_ARGS_GPU = NO_ARGS_CPU

I0_CPU = r'''// Modified Bessel function of the first kind, order 0.
// float: the polynomial approximations of Abramowitz & Stegun 9.8.1 (|x| < 3.75)
// and 9.8.2 (above; e^-|x| sqrt(|x|) I0 in powers of 3.75/|x|), relative error
// below 1e-6 in float: a few multiply-adds and one exp, no data-dependent loop.
// double: the power series sum_k ((x/2)^2)^k / (k!)^2 up to |x| = 30, the
// asymptotic expansion e^|x| / sqrt(2 pi |x|) * sum_k prod_{j<=k} (2j-1)^2 / (8 j |x|)
// above. Both multiply e^|x| last, as ATen does: +inf exactly when e^|x|
// overflows the compute type, NaN at |x| = inf (inf * 0).
template <typename C>
inline C bessel_i0(C x) {
  const C ax = fabs(x);
  if (sizeof(C) == 4) {
    if (ax < C(3.75)) {
      C t = ax / C(3.75);
      t *= t;
      return C(1) + t * (C(3.5156229) + t * (C(3.0899424) + t * (C(1.2067492) + t * (C(0.2659732) +
             t * (C(0.0360768) + t * C(0.0045813))))));
    }
    const C u = C(3.75) / ax;
    const C p = C(0.39894228) + u * (C(0.01328592) + u * (C(0.00225319) + u * (C(-0.00157565) + u * (C(0.00916281) +
                u * (C(-0.02057706) + u * (C(0.02635537) + u * (C(-0.01647633) + u * C(0.00392377))))))));
    return exp(ax) * (p / sqrt(ax));
  }
  if (ax <= C(30)) {
    const C q = C(0.25) * ax * ax;
    C term = 1, sum = 1;
    for (int k = 1; k < 120; ++k) {
      term *= q / C(k * k);
      sum += term;
      if (term <= sum * C(1e-17)) break;
    }
    return sum;
  }
  const C inv8x = C(1) / (C(8) * ax);
  C term = 1, sum = 1;
  for (int k = 1; k <= 25; ++k) {
    term *= C((2 * k - 1) * (2 * k - 1)) * inv8x / C(k);
    sum += term;
  }
  return exp(ax) * (sum / sqrt(C(6.283185307179586476925) * ax));
}
'''

# psi^(n)(x) for x >= 0: recurrence up to x >= SHIFT, then the asymptotic
# series with Bernoulli numbers B_2k.
POLYGAMMA_CPU = r'''// Bernoulli numbers B_2, B_4, ..., B_20 (the asymptotic series' coefficients).
constexpr double kBernoulli[10] = {1.0 / 6,         -1.0 / 30,     1.0 / 42,        -1.0 / 30,
                                   5.0 / 66,        -691.0 / 2730, 7.0 / 6,         -3617.0 / 510,
                                   43867.0 / 798,   -174611.0 / 330};

// psi^(n)(x), x >= 0. Shift x up to SHIFT with the recurrence
// psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1), then the asymptotic
// expansion: n = 0: ln x - 1/(2x) - sum_k B_2k / (2k x^2k); n >= 1:
// (-1)^(n+1) [(n-1)!/x^n + n!/(2 x^(n+1)) + sum_k B_2k (2k+n-1)!/((2k)! x^(2k+n))].
// x = +0 gives digamma's -inf and the poles' +-inf through the 1/x terms.
template <typename C>
inline C polygamma_pos(int n, C x) {
  const bool dbl = sizeof(C) == 8;
  const C shift = C(dbl ? 20 : 10);
  const int terms = dbl ? 10 : 6;
  if (n == 0) {
    C acc = 0;
    for (; x < shift; x += C(1)) acc -= C(1) / x;
    const C r = C(1) / (x * x);
    C series = 0, rk = r;
    for (int k = 1; k <= terms; ++k, rk *= r) series += C(kBernoulli[k - 1]) / C(2 * k) * rk;
    return acc + log(x) - C(0.5) / x - series;
  }
  C fact = 1;  // n!
  for (int j = 2; j <= n; ++j) fact *= C(j);
  C acc = 0;
  for (; x < shift; x += C(1)) {
    C xp = x;  // x^(n+1)
    for (int j = 0; j < n; ++j) xp *= x;
    acc += fact / xp;
  }
  C xn = x;  // x^n
  for (int j = 1; j < n; ++j) xn *= x;
  const C inv_x2 = C(1) / (x * x);
  C sum = fact / C(n) / xn + fact / (C(2) * xn * x);
  C a = fact * C(n + 1) / C(2) / (xn * x * x);  // (2k+n-1)!/(2k)! / x^(2k+n) for k = 1
  for (int k = 1; k <= terms; ++k) {
    sum += C(kBernoulli[k - 1]) * a;
    a *= C(2 * k + n) * C(2 * k + n + 1) / (C(2 * k + 1) * C(2 * k + 2)) * inv_x2;
  }
  const C sign = (n % 2) ? C(1) : C(-1);
  return sign * (acc + sum);
}
'''


def cpu_to_gpu(code):
    """The CPU helper code as CUDA/HIP device code (math functions are overloaded there too)."""
    return (code.replace(">\ninline ", ">\n__device__ __forceinline__ ")
            .replace("constexpr double kBernoulli", "__device__ constexpr double kBernoulli"))


def cpu_to_ocl(code):
    """The CPU helper code as OpenCL C on the typedef C (one compute type per build)."""
    out = (code.replace("template <typename C>\ninline C", "C")
           .replace("constexpr double kBernoulli[10]", "__constant C kBernoulli[10]"))
    return re.sub(r"\bC\(", "(C)(", out)  # OpenCL C has no functional casts


OPS = {}


def op(name, **kw):
    kw["name"] = name
    kw.setdefault("cname", name)
    kw.setdefault("promote", True)
    kw.setdefault("dtypes", PROMOTE_T if kw["promote"] else FLOAT_T)
    kw.setdefault("cpu_helpers", "")
    kw.setdefault("ref_includes", "")
    kw.setdefault("ref_helpers", "")
    kw.setdefault("ref_setup", "")
    kw.setdefault("ref_note", "")
    kw.setdefault("atol", 1e-6)
    kw.setdefault("extra", None)
    kw.setdefault("cpu_perf_big", True)
    kw.setdefault("simd", [])
    OPS[name] = kw


op("silu", simd=['exp'], upstream="aten::silu", promote=False,
   summary="SiLU / swish activation: out = self * sigmoid(self) (torch.nn.functional.silu)",
   math="x / (1 + exp(-x))",
   semantics="silu(x) = x * sigmoid(x) = x / (1 + exp(-x)), evaluated as that quotient, as ATen does. Special values follow "
             "the formula in IEEE arithmetic: NaN gives NaN, +inf gives +inf, -inf gives NaN (-inf / (1 + inf)); for large "
             "negative x, exp(-x) overflows and the result is -0 or a tiny negative number.",
   dist={"kind": "normal", "mean": 0, "stddev": 4, "special": 0.02}, flops=4,
   ref="return x / (1.0 + std::exp(-x));",
   cpu="  return x / (C(1) + exp(-x));", gpu="  return x / (C(1) + exp(-x));", ocl="  return x / ((C)1 + exp(-x));",
   note="The quotient x / (1 + exp(-x)), as ATen evaluates it.")

op("sin", simd=['sin'], upstream="aten::sin", summary="Elementwise sine (torch.sin)", math="sin(x)",
   semantics="out = sin(self), radians. NaN and +-inf give NaN; sin(-0) = -0. The inputs include large arguments "
             "(|x| in the hundreds and thousands): the float evaluation needs a full-accuracy argument reduction, as libm's "
             "sinf and CUDA's sinf do; fast hardware approximations (__sinf, native_sin) lose too much there.",
   dist={"kind": "normal", "mean": 0, "stddev": 300, "special": 0.02}, flops=12,
   ref="return std::sin(x);", cpu="  return sin(x);", gpu="  return sin(x);", ocl="  return sin(x);",
   note="Full-range argument reduction (libm / CUDA sinf), not a fast intrinsic: inputs reach the thousands.")

op("cos", simd=['cos'], upstream="aten::cos", summary="Elementwise cosine (torch.cos)", math="cos(x)",
   semantics="out = cos(self), radians. NaN and +-inf give NaN. The inputs include large arguments (|x| in the hundreds "
             "and thousands): the float evaluation needs a full-accuracy argument reduction, as libm's cosf and CUDA's cosf "
             "do; fast hardware approximations (__cosf, native_cos) lose too much there.",
   dist={"kind": "normal", "mean": 0, "stddev": 300, "special": 0.02}, flops=12,
   ref="return std::cos(x);", cpu="  return cos(x);", gpu="  return cos(x);", ocl="  return cos(x);",
   note="Full-range argument reduction (libm / CUDA cosf), not a fast intrinsic: inputs reach the thousands.")

op("rsqrt", upstream="aten::rsqrt", summary="Elementwise reciprocal square root (torch.rsqrt)", math="1 / sqrt(x)",
   semantics="out = 1 / sqrt(self). Domain edges: rsqrt(+0) = +inf, rsqrt(-0) = -inf, rsqrt(x < 0) = NaN, rsqrt(+inf) = 0, "
             "NaN gives NaN. Integer inputs include 0 (giving +inf) and negative values (NaN).",
   dist={"kind": "uniform", "low": "-1", "high": "9", "special": 0.02}, flops=2,
   ref="return 1.0 / std::sqrt(x);", cpu="  return C(1) / sqrt(x);", gpu="  return rsqrt(x);", ocl="  return rsqrt(x);",
   note="1/sqrt on the CPU (vectorises to sqrt and divide); the hardware rsqrt (2 ulp) on GPUs.")

op("log10", simd=['log10'], upstream="aten::log10", dtypes=FLOAT_T + ["i32", "i64"], summary="Elementwise base-10 logarithm (torch.log10)", math="log10(x)",
   semantics="out = log10(self). Domain edges: log10(+-0) = -inf, log10(x < 0) = NaN, log10(+inf) = +inf, log10(1) = 0, "
             "NaN gives NaN. Integer inputs include 0 (giving -inf) and negative values (NaN).",
   dist={"kind": "uniform", "low": "-2", "high": "60", "special": 0.02}, flops=10,
   one_element_dtypes=["i64"], ref="return std::log10(x);", cpu="  return log10(x);", gpu="  return log10(x);", ocl="  return log10(x);",
   note="libm / device log10.")

op("asin", simd=['asin'], upstream="aten::asin", summary="Elementwise arcsine (torch.asin)", math="asin(x)",
   semantics="out = asin(self), in radians within [-pi/2, pi/2]. Domain edges: |x| > 1 gives NaN (including +-inf), "
             "asin(+-1) = +-pi/2, asin(-0) = -0, NaN gives NaN. The inputs cover [-1.1, 1.1].",
   dist={"kind": "uniform", "low": "-1.1", "high": "1.1", "special": 0.02}, flops=10,
   one_element_dtypes=["i64"], rank0=False,  # its one integer value is 0 for the validator's seed: asin(0) = 0
   ref="return std::asin(x);", cpu="  return asin(x);", gpu="  return asin(x);", ocl="  return asin(x);",
   note="libm / device asin.")

op("acosh", simd=['acosh'], upstream="aten::acosh", dtypes=FLOAT_T + ["i32", "i64"], summary="Elementwise inverse hyperbolic cosine (torch.acosh)", math="acosh(x)",
   semantics="out = acosh(self) = ln(x + sqrt(x^2 - 1)) for x >= 1. Domain edges: x < 1 gives NaN (0 and -inf included), "
             "acosh(1) = 0, acosh(+inf) = +inf, NaN gives NaN. Near x = 1 the result is small and must keep its relative "
             "accuracy (use acosh, not the textbook logarithm).",
   dist={"kind": "uniform", "low": "0.5", "high": "20", "special": 0.02}, flops=10,
   one_element_dtypes=["i64"], ref="return std::acosh(x);", cpu="  return acosh(x);", gpu="  return acosh(x);", ocl="  return acosh(x);",
   note="libm / device acosh (keeps relative accuracy near x = 1).")

op("cosh", simd=['cosh'], upstream="aten::cosh", summary="Elementwise hyperbolic cosine (torch.cosh)", math="cosh(x)",
   semantics="out = cosh(self) = (e^x + e^-x) / 2. cosh(+-inf) = +inf, NaN gives NaN. The result overflows to +inf for "
             "|x| > about 89.4 in f32 and bf16 (computed in float, so bf16 overflows where float does) and for |x| > about "
             "11.8 in f16, whose largest finite value is 65504: the overflow comes from rounding the float result to f16. "
             "Finite test inputs stay within |x| <= 88: between 88.72 and 89.41 a float e^x overflows while cosh does not, "
             "and implementations differ there (libtorch's CPU kernel returns +inf).",
   dist={"kind": "uniform", "low": "-88", "high": "88", "special": 0.02}, flops=10,
   ref="return std::cosh(x);", cpu="  return cosh(x);", gpu="  return cosh(x);", ocl="  return cosh(x);",
   note="libm / device cosh; overflow to +inf comes from the float result or its 16-bit rounding.")

op("erfc", simd=['erfc'], upstream="aten::erfc", summary="Elementwise complementary error function (torch.erfc)", math="erfc(x)",
   semantics="out = erfc(self) = 1 - erf(self) = (2 / sqrt(pi)) * integral from x to inf of e^(-t^2) dt, in (0, 2). "
             "erfc(-inf) = 2, erfc(+inf) = 0, NaN gives NaN. The far right tail must keep its relative accuracy (not "
             "1 - erf(x)), and underflows to 0 past x of about 10 in float.",
   dist={"kind": "normal", "mean": 0, "stddev": 3, "special": 0.02}, flops=20,
   one_element_dtypes=["bool"], ref="return std::erfc(x);", cpu="  return erfc(x);", gpu="  return erfc(x);", ocl="  return erfc(x);",
   note="libm / device erfc (relative accuracy in the right tail, unlike 1 - erf).")

op("hardsigmoid", upstream="aten::hardsigmoid", promote=False,
   summary="Hard sigmoid activation: out = clamp(self / 6 + 1/2, 0, 1) (torch.nn.functional.hardsigmoid)",
   math="min(max(x + 3, 0), 6) / 6",
   semantics="out = min(max(x + 3, 0), 6) / 6, i.e. 0 for x <= -3, 1 for x >= 3 and x/6 + 1/2 in between. NaN gives NaN "
             "(neither clamp may turn it into a number); -inf gives 0, +inf gives 1.",
   dist={"kind": "uniform", "low": "-5", "high": "5", "special": 0.02}, flops=4,
   ref="if (std::isnan(x)) return x;\n    return std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;",
   cpu="  C y = x + C(3);\n  y = y < C(0) ? C(0) : y;  // comparisons keep NaN\n  y = y > C(6) ? C(6) : y;\n  return y / C(6);",
   gpu="  C y = x + C(3);\n  y = y < C(0) ? C(0) : y;  // comparisons keep NaN\n  y = y > C(6) ? C(6) : y;\n  return y / C(6);",
   ocl="  C y = x + (C)3;\n  y = y < (C)0 ? (C)0 : y;  /* comparisons keep NaN */\n  y = y > (C)6 ? (C)6 : y;\n  return y / (C)6;",
   note="Clamps written as comparisons so that NaN stays NaN (fmin/fmax would drop it).")

op("mish", cpu_perf_dtype="f32", simd=['exp', 'log1p', 'tanh'], upstream="aten::mish", promote=False,
   summary="Mish activation: out = self * tanh(softplus(self)) (torch.nn.functional.mish)",
   math="x * tanh(log1p(exp(x)))",
   semantics="mish(x) = x * tanh(softplus(x)) with softplus(x) = ln(1 + e^x), evaluated as x * tanh(log1p(exp(x))) as ATen "
             "does (no threshold). Special values follow that formula in IEEE arithmetic: NaN gives NaN, +inf gives +inf, "
             "-inf gives NaN (-inf * tanh(0)); for large negative x, exp(x) underflows and the result is -0 or a tiny "
             "negative number; for large positive x, exp(x) overflows, tanh(inf) = 1 and the result is x.",
   dist={"kind": "normal", "mean": 0, "stddev": 5, "special": 0.02}, flops=30,
   ref="return x * std::tanh(std::log1p(std::exp(x)));",
   cpu="  return x * tanh(log1p(exp(x)));", gpu="  return x * tanh(log1p(exp(x)));", ocl="  return x * tanh(log1p(exp(x)));",
   note="x * tanh(log1p(exp(x))), ATen's formula, special values included.")

op("special_entr", simd=['log'], upstream="aten::special_entr", dtypes=FLOAT_T + ["i32", "i64"], summary="Elementwise entropy term -x * ln(x) (torch.special.entr)",
   math="-x * ln(x)",
   semantics="out = -x * ln(x) for x > 0, 0 for x == 0 (either sign of zero), -inf for x < 0 (including -inf); NaN gives "
             "NaN; +inf gives -inf. Integer inputs include 0 and negative values.",
   dist={"kind": "uniform", "low": "-0.5", "high": "4", "special": 0.02}, flops=4, one_element_dtypes=["i64"], rank0=False,  # its one value is 0 or 1 for the validator's seed: entr = 0
   ref="if (std::isnan(x)) return x;\n    if (x > 0) return -x * std::log(x);\n    if (x == 0) return 0.0;\n"
       "    return -std::numeric_limits<double>::infinity();",
   cpu="  const C e = -x * log(x);  // NaN or garbage for x <= 0: selected away below\n"
       "  return x > C(0) ? e : (x == C(0) ? C(0) : (x != x ? x : -C(INFINITY)));",
   gpu="  if (x != x) return x;\n  if (x > C(0)) return -x * log(x);\n  return x == C(0) ? C(0) : -C(INFINITY);",
   ocl="  if (isnan(x)) return x;\n  if (x > (C)0) return -x * log(x);\n  return x == (C)0 ? (C)0 : -(C)INFINITY;",
   note="Selects instead of branches on the CPU so that the contiguous loop stays branch-free.")

op("i0", upstream="aten::i0", summary="Elementwise modified Bessel function of the first kind, order 0 (torch.i0)",
   math="I0(x)",
   semantics="out = I0(self) = sum over k >= 0 of (x/2)^(2k) / (k!)^2, the modified Bessel function of the first kind of "
             "order 0: even, I0(0) = 1, growing like e^|x| / sqrt(2 pi |x|). ATen evaluates the large-|x| branch as "
             "e^|x| * p(|x|) / sqrt(|x|), and the task follows it: the result is +inf as soon as e^|x| overflows the compute "
             "type (|x| > ln(FLT_MAX) = 88.7228... in float, for f32, bf16 and integer inputs; ln(DBL_MAX) = 709.78... "
             "in double), although the true I0 would still be finite up to about 91.9; I0(+-inf) is NaN (inf / inf), NaN "
             "gives NaN. f16 results overflow to +inf for |x| > about 13.7 (largest finite 65504). The tolerance (relative 1e-5 in f32) leaves room for ATen's own float evaluation "
             "(Chebyshev expansions computed in float), so any accurate float method passes.",
   dist={"kind": "normal", "mean": 0, "stddev": 25, "special": 0.02}, flops=40,
   ref_includes="#include <boost/math/special_functions/bessel.hpp>",
   ref_setup="  // ATen's large-|x| branch is e^|x| * p(|x|) / sqrt(|x|): +inf once e^|x| overflows the\n"
             "  // compute type (float unless out is f64), NaN at |x| = inf.\n"
             "  const double overflow = out.dtype() == kgb::DType::F64 ? std::log(std::numeric_limits<double>::max())\n"
             "                                                         : std::log(std::numeric_limits<float>::max());\n",
   ref="if (std::isnan(x) || std::isinf(x)) return std::numeric_limits<double>::quiet_NaN();\n"
       "    const double ax = std::fabs(x);\n"
       "    if (ax > overflow) return std::numeric_limits<double>::infinity();\n"
       "    return boost::math::cyl_bessel_i(0, ax);",
   cpu_helpers=I0_CPU, cpu="  return bessel_i0(x);", gpu="  return bessel_i0(x);", ocl="  return bessel_i0(x);",
   note="float: Abramowitz & Stegun's polynomial approximations; double: power series up to |x| = 30, asymptotic expansion above.")

op("logit", cpu_perf_dtype="f32", simd=['log'], upstream="aten::logit", summary="Elementwise logit ln(p / (1 - p)) with an optional clamp (torch.logit)",
   math="log(z / (1 - z)), z = clamp(x, eps, 1 - eps) when eps is given",
   semantics="out = ln(z / (1 - z)), where z = self when eps is None (eps == NULL) and z = clamp(self, eps, 1 - eps) when "
             "eps is given: z = eps if x < eps, 1 - eps if x > 1 - eps, else x (a NaN input stays NaN). The clamp bounds "
             "are in the compute type, as ATen's CUDA kernel has them: for f32, f16, bf16 and integer inputs lo = "
             "(float)eps and hi = 1.0f - lo computed in float; for f64 in double. Without eps: logit(0) = -inf, logit(1) = "
             "+inf, x < 0 or x > 1 gives NaN. The inputs cover [-0.1, 1.1]; integer inputs are 0 and 1 (and -1 or 2 never "
             "occur). Test values of eps: 0.25 and 0.0625 (exact in every dtype), 1e-6 (f32 and f64 only).",
   dist={"kind": "uniform", "low": "-0.1", "high": "1.1", "special": 0.02}, flops=4,
   ref_setup="  // The clamp bounds in the kernel's compute type: float unless out is f64.\n"
             "  const bool clamp = args.has(\"eps\");\n"
             "  const double eps = clamp ? args.scalar(\"eps\") : 0.0;\n"
             "  const bool in_double = out.dtype() == kgb::DType::F64;\n"
             "  const double lo = in_double ? eps : static_cast<double>(static_cast<float>(eps));\n"
             "  const double hi = in_double ? 1.0 - eps : static_cast<double>(1.0f - static_cast<float>(eps));\n",
   ref="const double z = !clamp ? x : (x < lo ? lo : (x > hi ? hi : x));\n    return std::log(z / (1.0 - z));",
   ref_note="\n// With eps, the clamp bounds are rounded as ATen's CUDA kernel has them (in\n"
            "// float unless out is f64); the logarithm is then exact in double.",
   extra="logit", atol=1e-6,
   cpu="  if (p.clamp) x = x < p.lo ? p.lo : (x > p.hi ? p.hi : x);\n  return log(x / (C(1) - x));",
   gpu="  if (p.clamp) x = x < p.lo ? p.lo : (x > p.hi ? p.hi : x);\n  return log(x / (C(1) - x));",
   ocl="  if (clamp) x = x < lo ? lo : (x > hi ? hi : x);\n  return log(x / ((C)1 - x));",
   note="Clamp bounds lo = eps, hi = 1 - lo in the compute type (ATen's CUDA kernel), then log(z / (1 - z)).")

op("polygamma", upstream="aten::polygamma",
   summary="Elementwise polygamma function psi^(n)(x), the n-th derivative of digamma (torch.polygamma)",
   math="psi^(n)(x)",
   semantics="out = psi^(n)(self), the n-th derivative of the digamma function psi = Gamma'/Gamma; n = 0 is digamma itself, "
             "n = 1 trigamma. For n >= 1, psi^(n)(x) = (-1)^(n+1) n! sum over k >= 0 of 1 / (x + k)^(n+1). n comes first "
             "in the schema: polygamma(int n, Tensor self); n >= 0. The tests use x >= 0: floating inputs in (0, 8], integer "
             "inputs 0..8. At x = +0 the function has a pole: digamma(+0) = -inf, and for n >= 1 the value is "
             "(-1)^(n+1) * inf (+inf for odd n, -inf for even n). Near the root of digamma (x ~ 1.4616) the result is "
             "small and only its absolute error counts (atol 1e-5). Large orders overflow for small x: psi^(n)(x) ~ "
             "(-1)^(n+1) n! / x^(n+1).",
   dist={"kind": "uniform", "low": "0", "high": "8"}, flops=60, atol=1e-5, extra="polygamma",
   ref_includes="#include <boost/math/special_functions/digamma.hpp>\n#include <boost/math/special_functions/polygamma.hpp>",
   ref_setup="  const int n = static_cast<int>(args.int_scalar(\"n\"));\n",
   ref="if (std::isnan(x)) return x;\n    if (x == 0) {  // the pole: digamma(+0) = -inf; (-1)^(n+1) * inf for n >= 1\n"
       "      const double inf = std::numeric_limits<double>::infinity();\n"
       "      return n == 0 ? -inf : (n % 2 ? inf : -inf);\n    }\n"
       "    return n == 0 ? boost::math::digamma(x) : boost::math::polygamma(n, x);",
   cpu_helpers=POLYGAMMA_CPU, cpu="  return polygamma_pos(p.n, x);", gpu="  return polygamma_pos(p.n, x);",
   ocl="  return polygamma_pos(order, x);",
   note="Recurrence up to x >= 10 (float) / 20 (double), then the asymptotic series with Bernoulli numbers.",
   cpu_perf_big=False)

# ---- sgn: real sign and complex z / |z| --------------------------------------

SGN_CX_CPU = r'''// Complex values as stored: real part first (c10::complex, std::complex).
template <typename R>
struct alignas(2 * sizeof(R)) Cx {
  R re, im;
};

// z / |z| with |z| = hypot(re, im) (no overflow in re^2 + im^2); 0 for z == 0.
template <typename R>
inline Cx<R> complex_sgn(Cx<R> z) {
  if (z.re == R(0) && z.im == R(0)) return {R(0), R(0)};
  const R h = hypot(z.re, z.im);
  return {z.re / h, z.im / h};
}
'''

SGN_CPU_OP = r'''
// The complex compute types take z / |z|.
template <>
inline Cx<float> op<Cx<float>>(Cx<float> z, const OpArgs<Cx<float>>& p) {
  (void)p;
  return complex_sgn(z);
}
template <>
inline Cx<double> op<Cx<double>>(Cx<double> z, const OpArgs<Cx<double>>& p) {
  (void)p;
  return complex_sgn(z);
}
'''

SGN_CPU_ELEMS = r'''template <> struct Elem<KGB_C64> {
  using S = Cx<float>;
  static Cx<float> load(S v) { return v; }
  static S store(Cx<float> v) { return v; }
};
template <> struct Elem<KGB_C128> {
  using S = Cx<double>;
  static Cx<double> load(S v) { return v; }
  static S store(Cx<double> v) { return v; }
};
'''

SGN_CPU_COMPUTE = r'''// The compute type of each output dtype: float, double for f64, complex
// float / double for c64 / c128.
template <int OUT>
struct ComputeOf {
  using type = std::conditional_t<OUT == KGB_F64, double, float>;
};
template <> struct ComputeOf<KGB_C64> { using type = Cx<float>; };
template <> struct ComputeOf<KGB_C128> { using type = Cx<double>; };
template <int OUT>
using Compute = typename ComputeOf<OUT>::type;
'''

SGN_CPU_CASES = r'''    case KGB_C64: return out->dtype == KGB_C64 ? run<KGB_C64, KGB_C64>(self, out, make_args(Cx<float>())) : KGB_ERR_UNSUPPORTED;
    case KGB_C128: return out->dtype == KGB_C128 ? run<KGB_C128, KGB_C128>(self, out, make_args(Cx<double>())) : KGB_ERR_UNSUPPORTED;
'''


def sgn_gpu(text):
    return (text.replace("inline Cx<R> complex_sgn", "__device__ __forceinline__ Cx<R> complex_sgn")
            .replace("inline Cx<float> op<", "__device__ __forceinline__ Cx<float> op<")
            .replace("inline Cx<double> op<", "__device__ __forceinline__ Cx<double> op<")
            .replace("  static Cx<float> load", "  static __device__ __forceinline__ Cx<float> load")
            .replace("  static S store(Cx<float>", "  static __device__ __forceinline__ S store(Cx<float>")
            .replace("  static Cx<double> load", "  static __device__ __forceinline__ Cx<double> load")
            .replace("  static S store(Cx<double>", "  static __device__ __forceinline__ S store(Cx<double>")
            .replace("std::conditional_t<OUT == KGB_F64, double, float>",
                     "typename std::conditional<OUT == KGB_F64, double, float>::type")
            .replace(", s) : KGB_ERR", ", s) : KGB_ERR"))


SGN_OCL_COMPUTE = r'''#if KGB_OUT == 7 || KGB_OUT == 9
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if KGB_OUT == 7
typedef double C;
#elif KGB_OUT == 8
typedef float2 C;  /* c64: (re, im) */
#elif KGB_OUT == 9
typedef double2 C; /* c128 */
#else
typedef float C;
#endif
'''

SGN_OCL_BODY = r'''#if KGB_OUT == 8 || KGB_OUT == 9
  if (x.x == 0 && x.y == 0) return (C)(0);  /* sgn(0) = 0 */
  return x / hypot(x.x, x.y);               /* z / |z| */
#else
  return (C)(((C)0 < x) - (x < (C)0));      /* +-0 and NaN give 0 */
#endif'''

SGN_REFERENCE = r'''// Reference for aten/sgn: out = sgn(self), elementwise.
// Real dtypes: the sign as ATen computes it, (0 < x) - (x < 0): 1, -1, or 0
// for +-0 and NaN. Complex dtypes: z / |z| in complex<double> with
// |z| = hypot(re, im), 0 for z == 0. Rounded once into out's dtype.
#include <cmath>
#include <complex>
#include <vector>

#include "../pointwise_reference.h"
#include "kgb/dtype.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void sgn_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (kgb::is_complex(out.dtype())) {
    kgb::pointwise::map_complex({&self}, out, [](const std::vector<std::complex<double>>& v) {
      const std::complex<double> z = v[0];
      if (z.real() == 0 && z.imag() == 0) return std::complex<double>(0, 0);
      const double h = std::hypot(z.real(), z.imag());
      return std::complex<double>(z.real() / h, z.imag() / h);
    });
    return;
  }
  kgb::pointwise::map_doubles({&self}, out, [](const std::vector<double>& v) {
    return static_cast<double>((0 < v[0]) - (v[0] < 0));
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/sgn", sgn_reference);
'''

op("sgn", upstream="aten::sgn", promote=False, dtypes=FLOAT_T + ["c64", "c128"],
   summary="Elementwise sign, z / |z| for complex inputs (torch.sgn)", math="sgn(x)",
   semantics="Real dtypes: sgn is the sign, as ATen computes it: (0 < x) - (x < 0), i.e. 1 for x > 0 (+inf included), -1 "
             "for x < 0, and 0 for +0, -0 and NaN (NaN compares false both ways, so it gives 0, not NaN). Complex dtypes: "
             "sgn(z) = z / |z|, the unit number in z's direction, with |z| = hypot(re, im) (no overflow of re^2 + im^2) and "
             "each part divided by |z|; sgn(0) = 0. Special values follow that formula in IEEE arithmetic: a NaN part makes "
             "|z| NaN and both parts NaN; an infinite part (the other finite) makes |z| infinite, so that part becomes "
             "inf / inf = NaN and the finite part 0.",
   dtype_text="Dtypes: self and out have the same dtype T, one of f32, f64, f16 (IEEE binary16 stored as uint16_t), bf16 "
              "(bfloat16 stored as uint16_t, the upper half of a float), c64 (complex float: two floats per element, real "
              "part first) and c128 (two doubles). Return 1 (KGB_ERR_UNSUPPORTED) for any other dtype; c64 computes in "
              "float, c128 in double.",
   dist={"kind": "normal", "mean": 0, "stddev": 2, "special": 0.02}, flops=6,
   ref="", ref_full=SGN_REFERENCE,
   cpu_helpers=SGN_CX_CPU,
   cpu="  return C(C(0) < x) - C(x < C(0));  // +-0 and NaN give 0",
   gpu="  return C(C(0) < x) - C(x < C(0));  // +-0 and NaN give 0",
   ocl=SGN_OCL_BODY,
   note="Real: (0 < x) - (x < 0) as ATen (NaN gives 0); complex: z / hypot(re, im), 0 for z == 0.",
   complex=dict(cpu_op=SGN_CPU_OP, cpu_elems=SGN_CPU_ELEMS, cpu_compute=SGN_CPU_COMPUTE, cpu_cases=SGN_CPU_CASES,
                gpu_op=sgn_gpu(SGN_CPU_OP), gpu_elems=sgn_gpu(SGN_CPU_ELEMS), gpu_compute=sgn_gpu(SGN_CPU_COMPUTE),
                gpu_cases=SGN_CPU_CASES.replace("())) :", "()), s) :"),
                ocl_compute=SGN_OCL_COMPUTE,
                ocl_in="#elif KGB_IN == 8\ntypedef float2 SI;\n#define LOAD(v) (v)\n#elif KGB_IN == 9\ntypedef double2 SI;\n#define LOAD(v) (v)\n",
                ocl_out="#elif KGB_OUT == 8\ntypedef float2 SO;\n#define STORE(v) (v)\n#elif KGB_OUT == 9\ntypedef double2 SO;\n#define STORE(v) (v)\n",
                ocl_cases="    case KGB_C64: case KGB_C128: return out == in;\n"))


# ---- per-op argument plumbing ---------------------------------------------


def extra_parts(o):
    """Signature, OpArgs struct, host checks/setup, OpenCL parameters for the op's scalar arguments."""
    e = o["extra"]
    if e is None:
        return dict(signature="const kgb_tensor* self, kgb_tensor* out, kgb_stream stream",
                    cpu_args=NO_ARGS_CPU, gpu_args=NO_ARGS_GPU, host_checks="", host_args="",
                    ocl_params="", ocl_args="", ocl_host_args="", bl_args="", bl_call="{}")
    if e == "logit":
        args = ("// eps given: clamp x to [lo, hi] = [eps, 1 - eps], bounds in the compute type.\n"
                "template <typename C>\nstruct OpArgs {\n  bool clamp;\n  C lo, hi;\n};\n")
        host_args = ("    if (eps) {\n      p.clamp = true;\n      p.lo = static_cast<C>(*eps);\n      p.hi = C(1) - p.lo;\n    }\n")
        return dict(signature="const kgb_tensor* self, const double* eps, kgb_tensor* out, kgb_stream stream",
                    cpu_args=args, gpu_args=args, host_checks="", host_args=host_args,
                    ocl_params=", int clamp, C lo, C hi", ocl_args=", clamp, lo, hi",
                    ocl_host_args=("  // The clamp bounds in the compute type: lo = eps, hi = 1 - lo.\n"
                                   "  const cl_int clamp = eps != nullptr;\n"
                                   "  err |= clSetKernelArg(k, next++, sizeof clamp, &clamp);\n"
                                   "  if (out->dtype == KGB_F64) {\n"
                                   "    const cl_double lo = eps ? *eps : 0.0, hi = 1.0 - lo;\n"
                                   "    err |= clSetKernelArg(k, next++, sizeof lo, &lo);\n"
                                   "    err |= clSetKernelArg(k, next++, sizeof hi, &hi);\n"
                                   "  } else {\n"
                                   "    const cl_float lo = eps ? static_cast<cl_float>(*eps) : 0.0f, hi = 1.0f - lo;\n"
                                   "    err |= clSetKernelArg(k, next++, sizeof lo, &lo);\n"
                                   "    err |= clSetKernelArg(k, next++, sizeof hi, &hi);\n"
                                   "  }\n"),
                    bl_args=("  // k = 1: clamp to [p0, p1] = [eps, 1 - eps], the upper bound rounded as the kernel's type.\n"
                             "  unary::OpScalars s;\n"
                             "  if (eps) {\n"
                             "    s.k = 1;\n"
                             "    s.p0 = out->dtype == KGB_F64 ? *eps : static_cast<double>(static_cast<float>(*eps));\n"
                             "    s.p1 = out->dtype == KGB_F64 ? 1.0 - *eps : static_cast<double>(1.0f - static_cast<float>(*eps));\n"
                             "  }\n"),
                    bl_call="s")
    if e == "polygamma":
        args = "template <typename C>\nstruct OpArgs {\n  int n;  // the derivative's order\n};\n"
        return dict(signature="int64_t n, const kgb_tensor* self, kgb_tensor* out, kgb_stream stream",
                    cpu_args=args, gpu_args=args,
                    host_checks="  if (n < 0) return KGB_ERR_INVALID;\n",
                    host_args="    p.n = static_cast<int>(n);\n",
                    ocl_params=", int order", ocl_args=", order",
                    ocl_host_args=("  const cl_int order = static_cast<cl_int>(n);\n"
                                   "  err |= clSetKernelArg(k, next++, sizeof order, &order);\n"),
                    bl_args="  unary::OpScalars s;\n  s.k = n;\n", bl_call="s")
    raise ValueError(e)


BASELINE_BODIES = {
    # The baseline's op takes (x, k, p0, p1); most ops ignore the scalars.
    "logit": "  if (k) x = x < p0 ? p0 : (x > p1 ? p1 : x);\n  return log(x / ((C)1 - x));",
    "polygamma": "  return polygamma_pos((int)k, x);",
}

# ---- cases -----------------------------------------------------------------


def cases(o):
    dts = o["dtypes"]
    ints = [d for d in dts if d in ("i32", "i64", "bool")]
    floats = [d for d in dts if d not in ints]
    some_int = ints[:1]
    # A one-element float input always draws a NaN (the special share is at
    # least one element), which the validator rightly calls degenerate: the
    # rank-0 and size-1 cases run on integer inputs, where the op promotes them.
    c = []
    # The one integer value must not map to 0 or NaN for the validator's seed
    # (asin(0), acosh(1), log10(1), entr(0) and entr(1) are 0): per-op dtypes.
    if ints:
        one = o.get("one_element_dtypes", ["bool", "i64"])
        if o.get("rank0", True):
            c.append({"name": "rank0", "shapes": {"self": [], "out": []}, "dtypes": one})
        c.append({"name": "size1", "shapes": {"self": [1], "out": [1]}, "dtypes": one[:1]})
    c += [
        {"name": "odd_7x33", "dims": {"M": 7, "N": 33}},
        {"name": "rank1_prime_1009", "shapes": {"self": [1009], "out": [1009]}},
        {"name": "empty_0x16", "dims": {"M": 0, "N": 16}},
        {"name": "grid_20x320x15", "shapes": {"self": [20, 320, 15], "out": [20, 320, 15]},
         "dtypes": ["f32", "bf16"] + ints[1:2]},
        {"name": "grid_16x7x57x32x29", "shapes": {"self": [16, 7, 57, 32, 29], "out": [16, 7, 57, 32, 29]},
         "dtypes": ["f16"]},
        {"name": "transposed_self", "dims": {"M": 19, "N": 23}, "layouts": {"self": {"kind": "transposed"}},
         "dtypes": floats + some_int},
        {"name": "padded_self_stepped_out", "dims": {"M": 9, "N": 31},
         "layouts": {"self": {"kind": "contiguous", "pad": 3}, "out": {"kind": "step", "step": 2}}, "dtypes": floats},
        {"name": "transposed_out", "dims": {"M": 17, "N": 10}, "layouts": {"out": {"kind": "transposed"}},
         "dtypes": floats},
        {"name": "stride0_rows_self", "dims": {"M": 6, "N": 40},
         "layouts": {"self": {"kind": "strides", "strides": [0, 1]}}, "dtypes": floats + ints[2:3]},
        {"name": "offset_self_padded_out", "dims": {"M": 5, "N": 13},
         "layouts": {"self": {"kind": "contiguous", "offset": 7}, "out": {"kind": "contiguous", "pad": 2}}},
        {"name": "rank3_stepped_self", "shapes": {"self": [4, 6, 9], "out": [4, 6, 9]},
         "layouts": {"self": {"kind": "step", "step": 3}}, "dtypes": floats},
        {"name": "contiguous_64x257", "dims": {"M": 64, "N": 257}, "dtypes": floats},
    ]
    for x in c:
        if "dtypes" in x and x["dtypes"] == dts:
            del x["dtypes"]
    e = o["extra"]
    if e == "logit":
        # eps: None, exact values in every dtype, and 1e-6 where only f32/f64 run.
        epss = [None, 0.25, None, 0.0625, None, 0.25, None, None, 0.0625, None, 0.25, None, None, 0.0625]
        for x, eps in zip(c, epss):
            x["scalars"] = {"eps": eps}
        c.append({"name": "tiny_eps_f32_f64", "dims": {"M": 8, "N": 50}, "scalars": {"eps": 1e-6},
                  "dtypes": ["f32", "f64"]})
    if e == "polygamma":
        orders = [0, 1, 2, 3, 0, 1, 2, 0, 1, 3, 4, 2, 0, 1]
        for x, n in zip(c, orders):
            x["scalars"] = {"n": n}
        c.append({"name": "order6_small_x", "dims": {"M": 6, "N": 21}, "scalars": {"n": 6}, "dtypes": ["f32", "f64"]})
    return c


def perf_cases(o):
    sc = {}
    if o["extra"] == "logit":
        sc = {"scalars": {"eps": None}}
    if o["extra"] == "polygamma":
        sc = {"scalars": {"n": 1}}
    p = [dict({"name": "1024x1024", "cpu": True, "dims": {"M": 1024, "N": 1024}, "dtypes": ["f32"]}, **sc)]
    if o["cpu_perf_big"]:
        # CPU-timed cases need a libtorch 1.13 CPU kernel as the baseline: bf16 where it has a correct one.
        dt = o.get("cpu_perf_dtype", "bf16")
        p.append(dict({"name": f"16x128x64x60_{dt}", "cpu": True,
                       "shapes": {"self": [16, 128, 64, 60], "out": [16, 128, 64, 60]}, "dtypes": [dt]}, **sc))
    p.append(dict({"name": "8192x8192", "dims": {"M": 8192, "N": 8192}, "dtypes": ["f32", "bf16"]}, **sc))
    if o["extra"] == "logit":
        p.append({"name": "8192x8192_eps", "dims": {"M": 8192, "N": 8192}, "dtypes": ["bf16"], "scalars": {"eps": 0.0625}})
    return p

# ---- description -----------------------------------------------------------


def description(o):
    call = {"logit": "logit(self, eps)", "polygamma": "polygamma(n, self)"}.get(o["name"], o["name"] + "(self)")
    atol = o["atol"]
    parts = [
        f"Implement PyTorch's {call} ({o['upstream']}) into a pre-allocated output: out = {o['math']}, elementwise; "
        "self and out have the same shape.",
        o["semantics"],
    ]
    if "dtype_text" in o:
        parts.append(o["dtype_text"])
    elif o["promote"]:
        ints = [d for d in o["dtypes"] if d not in FLOAT_T]
        names = {"i32": "i32", "i64": "i64", "bool": "bool (one byte, 0 or 1)"}
        listed = ", ".join(names[d] for d in ints[:-1]) + (" or " if len(ints) > 1 else "") + names[ints[-1]]
        short = ", ".join(ints[:-1]) + (" and " if len(ints) > 1 else "") + ints[-1]
        parts.append(
            "Dtypes: self has dtype T, one of f32, f64, f16 (IEEE binary16 stored as uint16_t), bf16 (bfloat16 stored as "
            f"uint16_t, the upper half of a float), {listed}. out has dtype float(T): T itself for the four floating "
            f"types, f32 for {short} (ATen promotes integer inputs of float ops to the default float type: the integer "
            f"value is converted to float, then the op runs in float). Handle every one of these {len(o['dtypes'])} "
            "(self, out) pairs in this one entry point; return 1 (KGB_ERR_UNSUPPORTED) for any other.")
    else:
        parts.append(
            "Dtypes: self and out have the same dtype T, one of f32, f64, f16 (IEEE binary16 stored as uint16_t) and bf16 "
            "(bfloat16 stored as uint16_t, the upper half of a float); ATen defines this op for floating types only. "
            "Return 1 (KGB_ERR_UNSUPPORTED) for any other dtype.")
    parts.append(
        "Arithmetic: f64 computes in double. f32, f16, bf16 (and integer inputs) compute in float, ATen's opmath type: "
        "convert the input to float, evaluate the function in float and round the result once to out's dtype (round to "
        "nearest even for f16 and bf16; a float result beyond the 16-bit range becomes +-inf).")
    parts.append(
        "Layouts: self and out are strided views with the same sizes; element (i0,...,ik) of a tensor t lives at "
        "((T*)t->data)[i0*t->strides[0] + ... + ik*t->strides[k]], strides counted in elements. self may be transposed, "
        "padded (row pitch larger than the row), an every-n-th-element view, start at a storage offset, or have stride 0 "
        "in a dimension (rows sharing storage); out may be padded, stepped or transposed: write exactly the elements of "
        "the out view and nothing else. out never overlaps self. A rank-0 tensor is one element.")
    parts.append(
        f"Checked elementwise against the exact result rounded once to out's dtype: |got - expected| <= {atol:g} + rtol * "
        "|expected|, rtol f32 1e-5, f64 1e-10, f16 1e-3, bf16 1.6e-2"
        + (", c64 1.3e-6, c128 1e-10 (real and imaginary parts separately)" if "c64" in o["dtypes"] else "")
        + "; NaN must be NaN and an infinity the same infinity. "
        "A float evaluation accurate to a few ulp passes; fast approximate intrinsics, or f64 computed in float, do not.")
    parts.append("Empty tensors (a dimension of size 0) are valid: write nothing and return 0.")
    return "\n\n".join(parts)


def spec(o):
    out_dtype = "float(T)" if o["promote"] else "T"
    self_p = {"name": "self", "tensor": "input", "dtype": "T", "shape": ["M", "N"], "dist": o["dist"]}
    out_p = {"name": "out", "tensor": "output", "dtype": out_dtype, "shape": ["M", "N"]}
    params = [self_p, out_p]
    if o["extra"] == "logit":
        params = [self_p, {"name": "eps", "scalar": "float64", "optional": True,
                           "description": "clamp bound: NULL (None) = no clamp; else z = clamp(x, eps, 1 - eps)"}, out_p]
    if o["extra"] == "polygamma":
        params = [{"name": "n", "scalar": "int64", "description": "order of the derivative, n >= 0 (0: digamma)"},
                  self_p, out_p]
    s = {
        "id": f"aten/{o['name']}",
        "upstream_name": o["upstream"],
        "summary": o["summary"],
        "description": description(o),
        "type_variables": {"T": o["dtypes"]},
        "params": params,
        "correctness": cases(o),
        "performance": perf_cases(o),
        "tolerance": {"reduction": "1", "atol": o["atol"],
                      "rtol": dict({"f64": 1e-10}, **({"c128": 1e-10} if "c128" in o["dtypes"] else {}))},
        "check": "elementwise",
        "deterministic": True,
        "flops": f"{o['flops']} * numel(out)",
        "bytes": "numel(self) * elem(self) + numel(out) * elem(out)",
        "banned_apis": ["at::", "torch::", "c10::"],
        "baseline": "aten",
    }
    return s


def dump_spec(s):
    """JSON with one case per line (readable diffs), like the hand-written specs."""
    lines = ["{"]
    items = list(s.items())
    for i, (k, v) in enumerate(items):
        comma = "," if i + 1 < len(items) else ""
        if k in ("params", "correctness", "performance"):
            lines.append(f'  "{k}": [')
            for j, e in enumerate(v):
                lines.append("    " + json.dumps(e) + ("," if j + 1 < len(v) else ""))
            lines.append("  ]" + comma)
        else:
            lines.append(f'  "{k}": ' + json.dumps(v) + comma)
    lines.append("}")
    return "\n".join(lines) + "\n"

# ---- emission --------------------------------------------------------------


def fill(text, subs):
    for k, v in subs.items():
        text = text.replace("@" + k + "@", v)
    while "\n\n\n" in text:  # empty placeholders leave no double blank lines
        text = text.replace("\n\n\n", "\n\n")
    assert "@" not in text.replace("@param", "").replace("@brief", ""), [l for l in text.splitlines() if "@" in l][:3]
    return text


def simd_decls(fns):
    """Declarations that let GCC vectorise the contiguous loop with glibc's libmvec."""
    if not fns:
        return ""
    lines = ["// glibc's vector math library (libmvec, linked with libm) has SIMD variants of",
             "// these (<= 4 ulp); declaring them lets the compiler vectorise the",
             "// contiguous loop with them.",
             "#if defined(__x86_64__) && defined(__GLIBC__)",
             'extern "C" {']
    for f in fns:
        lines.append(f'__attribute__((simd("notinbranch"))) float {f}f(float) noexcept;')
        lines.append(f'__attribute__((simd("notinbranch"))) double {f}(double) noexcept;')
    lines += ["}", "#endif", "", ""]
    return "\n".join(lines)


def emit(o, root, check=False):
    x = extra_parts(o)
    promote = o["promote"]
    rule = ("floating self gives the same dtype, integer and bool self give f32 (ATen's float(T))." if promote
            else "floating types only, out has self's dtype.")
    common = {
        "NAME": o["name"], "CNAME": o["cname"], "MATH": o["math"], "OP_NOTE": o["note"], "SIGNATURE": x["signature"],
        "HOST_CHECKS": x["host_checks"], "HOST_ARGS": x["host_args"], "DTYPE_RULE": rule,
    }
    cx = o.get("complex")  # sgn: complex dtypes with their own element types and op overloads
    if o["simd"]:
        loop_note = ("a unit-stride row is a plain loop the compiler\n"
                     "// vectorises (libm calls through glibc's SIMD variants)")
    elif o["name"] == "polygamma":
        loop_note = ("a unit-stride row is a plain loop (scalar: the\n"
                     "// series' iteration counts depend on x)")
    else:
        loop_note = "a unit-stride row is a plain loop the compiler\n// vectorises"
    cpu = fill(tpl.CPU, dict(common, CPU_LOOP_NOTE=loop_note, CPU_SIMD=simd_decls(o["simd"]), CPU_ARGS=x["cpu_args"], CPU_HELPERS=o["cpu_helpers"],
                             CPU_BODY=o["cpu"], CPU_OP_EXTRA=cx["cpu_op"] if cx else "",
                             CPU_INT_ELEMS=cx["cpu_elems"] if cx else (tpl.CPU_INT_ELEMS if promote else ""),
                             CPU_COMPUTE=cx["cpu_compute"] if cx else tpl.CPU_COMPUTE,
                             CPU_INT_CASES=cx["cpu_cases"] if cx else (tpl.CPU_INT_CASES if promote else "")))
    gpu_common = dict(common, GPU_ARGS=x["gpu_args"], GPU_HELPERS=cpu_to_gpu(o["cpu_helpers"]), GPU_BODY=o["gpu"],
                      GPU_OP_EXTRA=cx["gpu_op"] if cx else "",
                      GPU_INT_ELEMS=cx["gpu_elems"] if cx else (tpl.GPU_INT_ELEMS if promote else ""),
                      GPU_COMPUTE=cx["gpu_compute"] if cx else tpl.GPU_COMPUTE,
                      GPU_INT_CASES=cx["gpu_cases"] if cx else (tpl.GPU_INT_CASES if promote else ""))
    cuda = fill(tpl.GPU.replace("@RT@", "cuda"), dict(gpu_common, LANG="CUDA", RT_HEADER="cuda_runtime.h"))
    hip = fill(tpl.GPU.replace("@RT@", "hip"), dict(gpu_common, LANG="HIP", RT_HEADER="hip/hip_runtime.h"))
    ocl_helpers = "" if cx else cpu_to_ocl(o["cpu_helpers"])
    ocl = fill(tpl.OPENCL, dict(common, OCL_HELPERS=ocl_helpers, OCL_BODY=o["ocl"], OCL_PARAMS=x["ocl_params"],
                                OCL_ARGS=x["ocl_args"], OCL_HOST_ARGS=x["ocl_host_args"],
                                OCL_COMPUTE=cx["ocl_compute"] if cx else tpl.OCL_COMPUTE,
                                OCL_IN_EXTRA=cx["ocl_in"] if cx else (tpl.OCL_IN_INTS if promote else ""),
                                OCL_OUT_EXTRA=cx["ocl_out"] if cx else "",
                                OCL_INT_CASES=cx["ocl_cases"] if cx else (tpl.OCL_INT_CASES if promote else "")))
    if cx:
        ocl = ocl.replace("out->dtype == KGB_F64 && !kgb_cl_has_fp64",
                          "(out->dtype == KGB_F64 || out->dtype == KGB_C128) && !kgb_cl_has_fp64")
    ref = o["ref_full"] if "ref_full" in o else fill(tpl.REFERENCE, dict(common, REF_NOTE=o["ref_note"], REF_INCLUDES=o["ref_includes"],
                                   REF_HELPERS=o["ref_helpers"], REF_SETUP=o["ref_setup"], REF_BODY="    " + o["ref"]))
    bl_body = BASELINE_BODIES.get(o["name"], o["ocl"])
    baseline = fill(tpl.BASELINE, dict(common, OCL_HELPERS=ocl_helpers, BL_BODY=bl_body, BL_ARGS=x["bl_args"],
                                       BL_CALL=x["bl_call"]))
    task = os.path.join(root, "benchmark/tasks/aten", o["name"])
    if not check:
        os.makedirs(os.path.join(task, "solutions"), exist_ok=True)
    files = {
        os.path.join(task, "spec.json"): dump_spec(spec(o)),
        os.path.join(task, "reference.cpp"): ref,
        os.path.join(task, "solutions/cpu.cpp"): cpu,
        os.path.join(task, "solutions/cuda.cu"): cuda,
        os.path.join(task, "solutions/hip.hip"): hip,
        os.path.join(task, "solutions/opencl.cpp"): ocl,
        os.path.join(root, "backends/opencl/baselines/aten", o["name"] + ".cpp"): baseline,
    }
    stale = []
    for path, text in files.items():
        if check:
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                stale.append(path)
            continue
        with open(path, "w") as f:
            f.write(text)
    return stale if check else list(files)


def main(argv):
    root = os.getcwd()
    check = "--check" in argv
    names = [a for a in argv[1:] if a != "--check"] or list(OPS)
    stale = []
    for n in names:
        if n not in OPS:
            sys.exit(f"unknown op {n}; known: {', '.join(OPS)}")
        for p in emit(OPS[n], root, check):
            (stale if check else []).append(p)
            if not check:
                print(os.path.relpath(p, root))
    if check:
        for p in stale:
            print("stale: " + os.path.relpath(p, root))
        sys.exit(1 if stale else 0)


if __name__ == "__main__":
    main(sys.argv)
