#!/usr/bin/env python3
"""Emits the bundled solutions of ATen's promoting binary pointwise tasks.

The tasks aten/eq, gt, le, div, div_, floor_divide, pow, logaddexp2, prelu
and copy_ share one structure: out = op(a, b) where a is a tensor, b a
tensor or an ATen Scalar, with PyTorch broadcasting and torch.result_type
promotion, computed in the op's computation type and stored into out's dtype
(prelu views its weight as [C, 1, ..., 1] so that it broadcasts along dim 1;
copy_ converts src into self with an unused bool Scalar as b; div_ is div
with self as both a and out, so its emitted files declare no pointer
restrict). This script fills
the skeletons in binary_pointwise/ (cpu.cpp.in, cuda.cu.in, opencl.cpp.in)
with each op's functor, dispatch and entry points, writing
benchmark/tasks/aten/<op>/solutions/{cpu.cpp, cuda.cu, opencl.cpp, hip.hip};
the HIP solution is the CUDA one with HIP's runtime names and without the
vectorised flat path. Every emitted file is standalone: a model could have
written it. spec.json, reference.cpp and the OpenCL baselines are written
by hand (compare_specs.py writes the three comparison specs).

Usage: scripts/taskgen/binary_pointwise.py [--check] [op ...]   (default: every op)
  --check  compare instead of writing; exit 1 if a file differs (CI runs it:
           ctest taskgen.binary_pointwise).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKELETONS = os.path.join(HERE, "binary_pointwise")

T2 = "const kgb_tensor* self, const kgb_tensor* other"
TS = "const kgb_tensor* self, kgb_scalar other"
SELF_OTHER = ("tensor_operand(self)", "tensor_operand(other)")
SELF_SCALAR = ("tensor_operand(self)", "scalar_operand(other)")


def compare(name, symbol, words):
    return {
        "formula": "out = (self %s other) as bool" % symbol,
        "ops": f"""// ---- the operation --------------------------------------------------------------
// {name}: {words}, compared in ATen's common dtype of self and other (a
// comparison with NaN is false{', so NaN != NaN' if name == 'eq' else ''}); the result is a bool.
struct Op {{
  static int32_t compute_dtype(int32_t common) {{ return common; }}
  static constexpr bool kDouble = true, kInt64 = true;  // computation types besides float
  template <typename C>
  static @DEV@ bool apply(C a, C b) {{ return a {symbol} b; }}
}};
""",
        "dispatch": "  (void)mode;\n  return run<Op>(a, b, out, stream);\n",
        "cl_ops": f"""/* {name}: {words}; a bool result. */
typedef int R;
R op(C x, C y) {{ return x {symbol} y; }}
""",
        "host_ops": "// The dtype the comparison runs in: ATen's common dtype.\n"
                    "int32_t compute_dtype(int32_t common, int mode) {\n  (void)mode;\n  return common;\n}\n",
        "entries": [("", T2 + ", kgb_tensor* out", SELF_OTHER, "0"),
                    ("_Scalar", TS + ", kgb_tensor* out", SELF_SCALAR, "0")],
    }


TMODE = "const kgb_tensor* self, const kgb_tensor* other, const int* rounding_mode"
SMODE = "const kgb_tensor* self, kgb_scalar other, const int* rounding_mode"
MODE_OF = "rounding_mode ? *rounding_mode : 0"

# ATen's floor division of floating values (div_floor_floating): the floor of
# the exact quotient, from fmod, so a quotient that rounds up to an integer
# does not floor to it; a zero result takes the sign of a / b.
FLOOR_FLOATING = """\
      if (b == C(0)) return a / b;
      C mod = fmod(a, b);
      C div = (a - mod) / b;
      if (mod != C(0) && (b < C(0)) != (mod < C(0))) div -= C(1);
      if (div == C(0)) return copysign(C(0), a / b);
      C floordiv = floor(div);
      if (div - floordiv > C(0.5)) floordiv += C(1);
      return floordiv;"""
FLOOR_INTEGER = """\
      const C q = a / b, r = a % b;
      return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;"""

DIV_OPS = f"""// ---- the operation --------------------------------------------------------------
// True division computes in float(common dtype): integer operands divide in f32.
struct DivTrue {{
  static int32_t compute_dtype(int32_t common) {{ return is_float_dtype(common) ? common : KGB_F32; }}
  static constexpr bool kDouble = true, kInt64 = false;  // computation types besides float
  template <typename C>
  static @DEV@ C apply(C a, C b) {{ return a / b; }}
}};
// rounding_mode "trunc": the quotient rounded toward zero, in the common dtype.
struct DivTrunc {{
  static int32_t compute_dtype(int32_t common) {{ return common; }}
  static constexpr bool kDouble = true, kInt64 = true;  // computation types besides float
  template <typename C>
  static @DEV@ C apply(C a, C b) {{
    if constexpr (std::is_integral<C>::value) return a / b;
    else return trunc(a / b);
  }}
}};
// "trunc" with an f16/bf16 common dtype: ATen divides in that dtype, so the
// float quotient is rounded to 16 bits before it is truncated.
struct RoundF16 {{
  static @DEV@ float apply(float v) {{ return kgb_f16_to_float(kgb_float_to_f16(v)); }}
}};
struct RoundBF16 {{
  static @DEV@ float apply(float v) {{ return kgb_bf16_to_float(kgb_float_to_bf16(v)); }}
}};
template <typename Round>
struct DivTruncRounded {{
  static int32_t compute_dtype(int32_t common) {{ return common; }}
  static constexpr bool kDouble = false, kInt64 = false;  // computation types besides float
  template <typename C>
  static @DEV@ C apply(C a, C b) {{
    if constexpr (std::is_integral<C>::value) return a / b;
    else return trunc(static_cast<C>(Round::apply(static_cast<float>(a / b))));
  }}
}};
// rounding_mode "floor": the quotient rounded toward -inf, in the common dtype.
struct DivFloor {{
  static int32_t compute_dtype(int32_t common) {{ return common; }}
  static constexpr bool kDouble = true, kInt64 = true;  // computation types besides float
  template <typename C>
  static @DEV@ C apply(C a, C b) {{
    if constexpr (std::is_integral<C>::value) {{
{FLOOR_INTEGER}
    }} else {{
{FLOOR_FLOATING}
    }}
  }}
}};
"""

FLOOR_DIVIDE_OPS = DIV_OPS[DIV_OPS.index("// rounding_mode \"floor\""):].replace(
    '// rounding_mode "floor": the quotient', "// floor_divide: the quotient").replace("DivFloor", "FloorDivide")
FLOOR_DIVIDE_OPS = "// ---- the operation --------------------------------------------------------------\n" + FLOOR_DIVIDE_OPS

# x / y correctly rounded in OpenCL C. Single-precision division there may be
# off by 2.5 ulp (NVIDIA's is), and a quotient an ulp below an integer
# truncates to the wrong value; ATen divides IEEE-exactly. The launcher builds
# with -cl-fp32-correctly-rounded-divide-sqrt (and -DCORRECT_DIV) where the
# device reports CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT; elsewhere one fma
# residual step corrects the quotient (exact whenever the quotient is
# representable, e.g. an integer). Doubles divide correctly rounded anyway.
CL_QUOTIENT = """/* x / y correctly rounded: OpenCL C's float division may be off by 2.5 ulp
   unless the program is built with -cl-fp32-correctly-rounded-divide-sqrt
   (CORRECT_DIV); otherwise the fma residual x - q*y (exact) corrects q. */
C quotient(C x, C y) {
#if (DC == 4 || DC == 5 || DC == 6) && !defined(CORRECT_DIV)
  float q = x / y;
  if (isfinite(q) && q != 0.0f) q += fma(-q, y, x) / y;
  return q;
#else
  return x / y;
#endif
}
"""
HOST_DIVIDE = """// OpenCL C's float division may be off by 2.5 ulp: where the device can
// divide correctly rounded (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT), build with
// that option; elsewhere the kernel's quotient() corrects the quotient.
const char* divide_options(kgb_stream stream) {
  cl_device_fp_config fp = 0;
  const bool exact = clGetDeviceInfo(kgb_cl_get_device(stream), CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr) ==
                         CL_SUCCESS &&
                     (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  return exact ? " -cl-fp32-correctly-rounded-divide-sqrt -DCORRECT_DIV=1" : "";
}
"""

CL_FLOOR = """#if DC == 2 || DC == 3 || DC == 0
  const C q = x / y, r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? q - 1 : q;
#else
  if (y == (C)0) return x / y;
  C mod = fmod(x, y);
  C div = quotient(x - mod, y);
  if (mod != (C)0 && (y < (C)0) != (mod < (C)0)) div -= (C)1;
  if (div == (C)0) return copysign((C)0, x / y);
  C fl = floor(div);
  if (div - fl > (C)0.5) fl += (C)1;
  return fl;
#endif"""

POW_OPS = """// ---- the operation --------------------------------------------------------------
// Integer powers by squaring in wrapping unsigned arithmetic; a negative
// exponent gives 1 for base 1, +-1 for base -1 and 0 otherwise (ATen's powi).
template <typename C>
@DEV@ C integer_pow(C base, C exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exp); e != 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return static_cast<C>(result);
}
// pow(self, exponent) in the common dtype: IEEE pow for floats (pow(x, 0) = 1, 0^0 = 1).
struct Pow {
  static int32_t compute_dtype(int32_t common) { return common; }
  static constexpr bool kDouble = true, kInt64 = true;  // computation types besides float
  template <typename C>
  static @DEV@ C apply(C a, C b) {
    if constexpr (std::is_integral<C>::value) return integer_pow(a, b);
    else return pow(a, b);
  }
};
// pow.Tensor_Scalar: ATen computes exponents 0.5 and -0.5 as sqrt and 1/sqrt
// (so pow(-inf, 0.5) is NaN and pow(-0.0, 0.5) is -0.0 there), and 2, 3, -1,
// -2 as products and reciprocals (the exponent is uniform: the loops unswitch).
struct PowScalarExponent {
  static int32_t compute_dtype(int32_t common) { return common; }
  static constexpr bool kDouble = true, kInt64 = true;  // computation types besides float
  template <typename C>
  static @DEV@ C apply(C a, C b) {
    if constexpr (std::is_integral<C>::value) {
      return integer_pow(a, b);
    } else {
      if (b == C(2)) return a * a;
      if (b == C(3)) return a * a * a;
      if (b == C(-1)) return C(1) / a;
      if (b == C(-2)) return C(1) / (a * a);
      if (b == C(0.5)) return sqrt(a);
      if (b == C(-0.5)) return C(1) / sqrt(a);
      return pow(a, b);
    }
  }
};
// pow.Scalar: a is the exponent tensor, b the Scalar base.
struct PowScalarBase {
  static int32_t compute_dtype(int32_t common) { return common; }
  static constexpr bool kDouble = true, kInt64 = true;  // computation types besides float
  template <typename C>
  static @DEV@ C apply(C a, C b) { return Pow::apply(b, a); }
};
"""

CL_POW = """#if DC == 2 || DC == 3 || DC == 0
C integer_pow(C base, C e) {
  if (e < 0) return base == 1 ? 1 : (base == -1 ? ((e & 1) ? -1 : 1) : 0);
  ulong result = 1, b = (ulong)base;
  for (ulong k = (ulong)e; k != 0; k >>= 1) {
    if (k & 1) result *= b;
    b *= b;
  }
  return (C)result;
}
#endif
C pow_of(C a, C b) {
#if DC == 2 || DC == 3 || DC == 0
  return integer_pow(a, b);
#else
#if MODE == 1
  if (b == (C)2) return a * a;
  if (b == (C)3) return a * a * a;
  if (b == (C)-1) return (C)1 / a;
  if (b == (C)-2) return (C)1 / (a * a);
  if (b == (C)0.5) return sqrt(a);
  if (b == (C)-0.5) return (C)1 / sqrt(a);
#endif
  return pow(a, b);
#endif
}
"""

OPS = {
    "div": {
        "formula": "out = self / other (true, trunc or floor rounding)",
        "ops": DIV_OPS,
        "dispatch": "  switch (mode) {\n    case 1:\n      if (result_type(a, b) == KGB_F16) return run<DivTruncRounded<RoundF16>>(a, b, out, stream);\n"
                    "      if (result_type(a, b) == KGB_BF16) return run<DivTruncRounded<RoundBF16>>(a, b, out, stream);\n"
                    "      return run<DivTrunc>(a, b, out, stream);\n"
                    "    case 2: return run<DivFloor>(a, b, out, stream);\n"
                    "    default: return run<DivTrue>(a, b, out, stream);\n  }\n",
        "cl_ops": CL_QUOTIENT + "/* div: MODE 0 true division, 1 rounded toward zero, 2 toward -inf. */\ntypedef C R;\nR op(C x, C y) {\n"
                  "#if MODE == 1 && (DC == 2 || DC == 3)\n  return x / y;\n#elif MODE == 1 && DC == 4\n"
                  "  return trunc(kgb_f16_to_float(kgb_float_to_f16(quotient(x, y)))); /* the quotient rounds to f16 first */\n"
                  "#elif MODE == 1 && DC == 5\n  return trunc(kgb_bf16_to_float(kgb_float_to_bf16(quotient(x, y))));\n"
                  "#elif MODE == 1\n  return trunc(quotient(x, y));\n"
                  "#elif MODE == 2\n" + CL_FLOOR + "\n#else\n  return quotient(x, y);\n#endif\n}\n",
        "divides": True,
        "host_ops": "// The dtype div computes in: float(common) for true division (mode 0), else the common dtype.\n"
                    "int32_t compute_dtype(int32_t common, int mode) {\n"
                    "  return mode == 0 && !is_float_dtype(common) ? KGB_F32 : common;\n}\n",
        "entries": [("", T2 + ", kgb_tensor* out", SELF_OTHER, "0"),
                    ("_Scalar", TS + ", kgb_tensor* out", SELF_SCALAR, "0"),
                    ("_Tensor_mode", TMODE + ", kgb_tensor* out", SELF_OTHER, MODE_OF),
                    ("_Scalar_mode", SMODE + ", kgb_tensor* out", SELF_SCALAR, MODE_OF)],
    },
    "floor_divide": {
        "formula": "out = floor(self / other), rounded toward -inf",
        "ops": FLOOR_DIVIDE_OPS,
        "dispatch": "  (void)mode;\n  return run<FloorDivide>(a, b, out, stream);\n",
        "cl_ops": CL_QUOTIENT + "/* floor_divide: the quotient rounded toward -inf. */\ntypedef C R;\nR op(C x, C y) {\n" + CL_FLOOR + "\n}\n",
        "divides": True,
        "host_ops": "// floor_divide computes in the common dtype.\nint32_t compute_dtype(int32_t common, int mode) {\n"
                    "  (void)mode;\n  return common;\n}\n",
        "entries": [("", T2 + ", kgb_tensor* out", SELF_OTHER, "0"),
                    ("_Scalar", TS + ", kgb_tensor* out", SELF_SCALAR, "0")],
    },
    "pow": {
        "formula": "out = self ** exponent",
        "ops": POW_OPS,
        "dispatch": "  switch (mode) {\n    case 1: return run<PowScalarExponent>(a, b, out, stream);\n"
                    "    case 2: return run<PowScalarBase>(a, b, out, stream);\n"
                    "    default: return run<Pow>(a, b, out, stream);\n  }\n",
        "cl_ops": "/* pow: MODE 0 tensor ** tensor, 1 tensor ** Scalar, 2 Scalar ** tensor (a is the exponent). */\n"
                  + CL_POW + "typedef C R;\nR op(C x, C y) {\n#if MODE == 2\n  return pow_of(y, x);\n#else\n"
                  "  return pow_of(x, y);\n#endif\n}\n",
        "host_ops": "// pow computes in the common dtype.\nint32_t compute_dtype(int32_t common, int mode) {\n"
                    "  (void)mode;\n  return common;\n}\n",
        "entries": [("", "const kgb_tensor* self, const kgb_tensor* exponent, kgb_tensor* out",
                     ("tensor_operand(self)", "tensor_operand(exponent)"), "0"),
                    ("_Tensor_Scalar", "const kgb_tensor* self, kgb_scalar exponent, kgb_tensor* out",
                     ("tensor_operand(self)", "scalar_operand(exponent)"), "1"),
                    ("_Scalar", "kgb_scalar self, const kgb_tensor* exponent, kgb_tensor* out",
                     ("tensor_operand(exponent)", "scalar_operand(self)"), "2")],
    },
    "logaddexp2": {
        "formula": "out = log2(2**self + 2**other)",
        "ops": """// ---- the operation --------------------------------------------------------------
// log2(2^a + 2^b) in the stable form max + log1p(2^-|a-b|) / ln 2; equal
// infinities give themselves (inf - inf would be NaN). Floating dtypes only.
struct LogAddExp2 {
  static int32_t compute_dtype(int32_t common) { return is_float_dtype(common) ? common : -1; }
  static constexpr bool kDouble = true, kInt64 = false;  // computation types besides float
  template <typename C>
  static @DEV@ C apply(C a, C b) {
    if (isinf(a) && a == b) return a;
    const C m = a > b ? a : b;
    return m + log1p(exp2(-fabs(a - b))) * C(1.4426950408889634);
  }
};
""",
        "dispatch": "  (void)mode;\n  return run<LogAddExp2>(a, b, out, stream);\n",
        "cl_ops": "/* logaddexp2: max + log1p(2^-|x-y|) / ln 2; equal infinities give themselves. */\ntypedef C R;\n"
                  "R op(C x, C y) {\n  if (isinf(x) && x == y) return x;\n  C m = x > y ? x : y;\n"
                  "  return m + log1p(exp2(-fabs(x - y))) * (C)1.4426950408889634;\n}\n",
        "host_ops": "// logaddexp2 is defined on floating dtypes only.\nint32_t compute_dtype(int32_t common, int mode) {\n"
                    "  (void)mode;\n  return is_float_dtype(common) ? common : -1;\n}\n",
        "entries": [("", T2 + ", kgb_tensor* out", SELF_OTHER, "0")],
    },
    "copy_": {
        "formula": "self = src converted to self's dtype (in place)",
        "ops": """// ---- the operation --------------------------------------------------------------
// copy_ reuses the binary machinery with a = src and an unused bool Scalar as
// b: the common dtype is then src's own, each element is loaded in src's
// computation type and stored into self's dtype (a C cast: floats into
// integers truncate toward zero, f64 into f16/bf16 goes through float, any
// value into bool is value != 0).
struct Copy {
  static int32_t compute_dtype(int32_t common) { return common; }
  static constexpr bool kDouble = true, kInt64 = true;  // computation types besides float
  template <typename C>
  static @DEV@ C apply(C a, C) { return a; }
};
""",
        "dispatch": "  (void)mode;\n  return run<Copy>(a, b, out, stream);\n",
        "cl_ops": "/* copy_: the value itself, converted into self's dtype by the store. */\ntypedef C R;\n"
                  "R op(C x, C y) { return x; }\n",
        "host_ops": "// copy_ loads src in its own dtype (the unused Scalar is a bool).\n"
                    "int32_t compute_dtype(int32_t common, int mode) {\n  (void)mode;\n  return common;\n}\n",
        "entries": [("", "kgb_tensor* self, const kgb_tensor* src, int non_blocking",
                     ("tensor_operand(src)", "scalar_operand(kgb_scalar{})"), "0", "self",
                     "  (void)non_blocking;  // the copy is ordered on the stream either way\n"
                     "  // b: an unused bool Scalar (kgb_scalar{} is KGB_BOOL 0), so the common dtype is src's.\n")],
    },
    "prelu": {
        "formula": "out = self > 0 ? self : weight[c] * self, c the index along dim 1",
        "ops": """// ---- the operation --------------------------------------------------------------
// prelu: a where a > 0, else weight * a (b is the weight broadcast over dim 1);
// floating dtypes only, so NaN (not > 0) gives weight * NaN = NaN.
struct Prelu {
  static int32_t compute_dtype(int32_t common) { return is_float_dtype(common) ? common : -1; }
  static constexpr bool kDouble = true, kInt64 = false;  // computation types besides float
  template <typename C>
  static @DEV@ C apply(C a, C w) { return a > C(0) ? a : w * a; }
};
""",
        "dispatch": "  (void)mode;\n  return run<Prelu>(a, b, out, stream);\n",
        "cl_ops": "/* prelu: x where x > 0, else weight * x. */\ntypedef C R;\nR op(C x, C w) { return x > (C)0 ? x : w * x; }\n",
        "host_ops": "// prelu is defined on floating dtypes only.\nint32_t compute_dtype(int32_t common, int mode) {\n"
                    "  (void)mode;\n  return is_float_dtype(common) ? common : -1;\n}\n",
        "entries": [("", "const kgb_tensor* self, const kgb_tensor* weight, kgb_tensor* out",
                     ("tensor_operand(self)", "tensor_operand(&w)"), "0", "out",
                     "  // weight has 1 or size(self, 1) elements. Viewed as [C, 1, ..., 1] (rank self.rank - 1) it\n"
                     "  // broadcasts, right-aligned, along dim 1 of self; a 1-element weight broadcasts as it is.\n"
                     "  if (weight->dtype != self->dtype || weight->rank != 1) return KGB_ERR_UNSUPPORTED;\n"
                     "  kgb_tensor w = *weight;\n"
                     "  if (weight->sizes[0] != 1) {\n"
                     "    if (self->rank < 2 || self->sizes[1] != weight->sizes[0]) return KGB_ERR_INVALID;\n"
                     "    w.rank = self->rank - 1;\n"
                     "    for (int d = 1; d < w.rank; ++d) w.sizes[d] = 1, w.strides[d] = 0;\n"
                     "  }\n")],
    },
    "eq": compare("eq", "==", "self is equal to other"),
    "gt": compare("gt", ">", "self is greater than other"),
    "le": compare("le", "<=", "self is less than or equal to other"),
}


# div_: div in place, self is both the dividend and the written tensor (other
# is broadcast to self; the quotient is converted back into self's dtype).
TMODE_ = "kgb_tensor* self, const kgb_tensor* other, const int* rounding_mode"
SMODE_ = "kgb_tensor* self, kgb_scalar other, const int* rounding_mode"
OPS["div_"] = dict(OPS["div"], formula="self /= other (true, trunc or floor rounding)", inplace=True,
                   entries=[("", "kgb_tensor* self, const kgb_tensor* other", SELF_OTHER, "0", "self"),
                            ("_Scalar", "kgb_tensor* self, kgb_scalar other", SELF_SCALAR, "0", "self"),
                            ("_Tensor_mode", TMODE_, SELF_OTHER, MODE_OF, "self"),
                            ("_Scalar_mode", SMODE_, SELF_SCALAR, MODE_OF, "self")])


def fill(template, op, spec, device):
    dev = "__host__ __device__ __forceinline__" if device else "inline"
    ops = spec["ops"].replace("@DEV@", dev)
    text = template.replace("@ID@", "aten/" + op).replace("@FORMULA@", spec["formula"])
    text = text.replace("@OPS@", ops).replace("@CL_OPS@", spec["cl_ops"]).replace("@HOST_OPS@", spec["host_ops"])
    if spec.get("divides"):  # OpenCL: ask for correctly rounded float division where the device has it
        text = text.replace("@DIVIDE_HOST@", HOST_DIVIDE).replace("@OPTIONS_SIZE@", "256")
        text = text.replace("-DNEED_FP64=%d\",", "-DNEED_FP64=%d%s\",").replace(
            "fp64 ? 1 : 0);", "fp64 ? 1 : 0, divide_options(stream));")
    else:
        text = text.replace("@DIVIDE_HOST@", "").replace("@OPTIONS_SIZE@", "160")
    return text


def entries(op, spec, opencl):
    out = []
    for entry in spec["entries"]:
        suffix, params, (a, b), mode = entry[:4]
        target = entry[4] if len(entry) > 4 else "out"  # the written tensor
        prefix = entry[5] if len(entry) > 5 else ""
        call = ("run(%s, %s, %s, %s, stream)" if opencl else "dispatch(%s, %s, %s, %s, stream)") % (a, b, target, mode)
        out.append('extern "C" int kgb_aten_%s%s(%s, kgb_stream stream) {\n%s  return %s;\n}\n' % (op, suffix, params, prefix, call))
    return "\n".join(out)


def dispatch_fn(spec):
    return ("// The entry points' common path: the functor for the mode, then run.\n"
            "int dispatch(const Operand& a, const Operand& b, kgb_tensor* out, int mode, kgb_stream stream) {\n"
            + spec["dispatch"] + "}\n")


def cut(text, start, end, replacement=""):
    """text with [start, end) (both must occur, start first) replaced."""
    a = text.index(start)
    b = text.index(end, a)
    return text[:a] + replacement + text[b:]


def hip_port(cuda):
    """The HIP solution: the CUDA one with HIP's runtime names and without the
    vectorised flat path (one grid-stride kernel on every layout), which keeps
    the port small and quick to compile."""
    hip = cut(cuda, "// ---- element conversions", "// Element i of a dtype-erased operand",
              "// ---- element conversions (device) ----------------------------------------------\n"
              "// Storage type and conversions of each dtype.\n" + cuda[cuda.index("template <int DT> struct Dt;"):
                                                                   cuda.index("// Element i of a dtype-erased operand")])
    hip = cut(hip, "template <typename T, int V>\nstruct alignas", "// The folded problem")
    hip = cut(hip, "bool aligned16(", "template <typename Op, typename C>\nint run_in")
    hip = cut(hip, "  const bool flat = ", "  if (!done) {", "")
    hip = hip.replace("""  if (!done) {
    const Dtypes dt{out->dtype, a.dtype, b.dtype, common};
    binary_strided<Op, C><<<grid_for(n), kThreads, 0, s>>>(static_cast<char*>(out->data), static_cast<const char*>(a.t->data),
                                                          b.t ? static_cast<const char*>(b.t->data) : nullptr, g, n, dt, bs);
  }
""", """  const Dtypes dt{out->dtype, a.dtype, b.dtype, common};
  binary_strided<Op, C><<<grid_for(n), kThreads, 0, s>>>(static_cast<char*>(out->data), static_cast<const char*>(a.t->data),
                                                        b.t ? static_cast<const char*>(b.t->data) : nullptr, g, n, dt, bs);
""")
    hip = hip.replace("""//  - every tensor flat and contiguous, a and b of one dtype: a grid-stride
//    kernel on the storage types with 16-byte vector loads of a and b;
//  - anything else (strided, broadcast, mixed dtypes): one element per thread
//    in a grid-stride loop, offsets from the linear index, each operand
//    converted from its dtype into the computation type (ATen's dynamic cast).""",
                      """// one element per thread in a grid-stride loop, offsets from the linear
// index, each operand converted from its dtype into the computation type
// (ATen's dynamic cast). (The CUDA solution's vectorised flat path is left
// out of this port.)""")
    return (hip.replace(" on CUDA:", " in HIP (a port of the CUDA solution):", 1)
            .replace("#include <cuda_runtime.h>", "#include <hip/hip_runtime.h>")
            .replace("cudaStream_t", "hipStream_t").replace("cudaGetLastError", "hipGetLastError")
            .replace("cudaSuccess", "hipSuccess"))


def emit(op, check=False):
    spec = OPS[op]
    read = lambda n: open(os.path.join(SKELETONS, n)).read()
    folder = os.path.join(ROOT, "benchmark", "tasks", "aten", op, "solutions")
    if not check:
        os.makedirs(folder, exist_ok=True)
    cpu = fill(read("cpu.cpp.in"), op, spec, False).replace(
        "}  // namespace\n\n@ENTRIES@", dispatch_fn(spec) + "\n}  // namespace\n\n" + entries(op, spec, False))
    cuda = fill(read("cuda.cu.in"), op, spec, True).replace(
        "}  // namespace\n\n@ENTRIES@", dispatch_fn(spec) + "\n}  // namespace\n\n" + entries(op, spec, False))
    hip = hip_port(cuda)
    opencl = fill(read("opencl.cpp.in"), op, spec, False).replace("@ENTRIES@", entries(op, spec, True))
    differs = []
    for name, text in (("cpu.cpp", cpu), ("cuda.cu", cuda), ("hip.hip", hip), ("opencl.cpp", opencl)):
        assert "@" not in text.replace("@param", ""), (op, name)
        if spec.get("inplace"):  # out is a: the pointers alias
            text = text.replace("__restrict__ ", "").replace("__restrict ", "")
        path = os.path.join(folder, name)
        if check:
            current = open(path).read() if os.path.exists(path) else None
            if current != text:
                differs.append(path)
            continue
        with open(path, "w") as f:
            f.write(text)
    if not check:
        print("wrote", folder)
    return differs


if __name__ == "__main__":
    args = sys.argv[1:]
    check = "--check" in args
    ops = [a for a in args if a != "--check"] or sorted(OPS)
    differs = [path for op in ops for path in emit(op, check)]
    for path in differs:
        print("differs from the generator:", os.path.relpath(path, ROOT))
    sys.exit(1 if differs else 0)
