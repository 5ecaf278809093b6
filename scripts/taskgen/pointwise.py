#!/usr/bin/env python3
"""Generates the bundled solutions of ATen's elementwise tasks from one skeleton.

The unary and binary pointwise operators (add, sub, mul, rsub, add_, fmax,
heaviside, neg, floor, square, bitwise_not) share everything but their
scalar function: broadcasting, dtype promotion (self, other and out may each
have their own dtype), strided views, 16-bit opmath (compute in float, round
once). This script fills the templates in templates/ with each operator's
expressions and entry points and writes, per operator, the four standalone
solution files a model could have written:

  benchmark/tasks/aten/<op>/solutions/{cpu.cpp,cuda.cu,hip.hip,opencl.cpp}

Every emitted file is self-contained and readable on its own; the skeleton is
the same across operators on purpose. Template lines starting with
`@[<python expression>]` are kept only when the expression holds for the
operator (`binary`, `alpha`, `inplace`, `scalar`); `{{NAME}}` is substituted.

Usage: scripts/taskgen/pointwise.py [--check] [op ...]
  --check  compare instead of writing; exit 1 if a file differs (CI can run it).
Specs, references and the OpenCL baselines are written by hand.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")

STD = ["f32", "f64", "f16", "bf16", "i32", "i64"]
KGB = {"bool": "KGB_BOOL", "i8": "KGB_I8", "u8": "KGB_U8", "i16": "KGB_I16", "i32": "KGB_I32", "i64": "KGB_I64",
       "f16": "KGB_F16", "bf16": "KGB_BF16", "f32": "KGB_F32", "f64": "KGB_F64"}
CODE = {"bool": 0, "i8": 1, "i32": 2, "i64": 3, "f16": 4, "bf16": 5, "f32": 6, "f64": 7, "u8": 10, "i16": 11}


def wrap(expr_u64, lang):
    """An int64 expression computed on unsigned 64-bit values (ATen's integer wrap-around)."""
    u, i = ("ulong", "long") if lang == "cl" else ("uint64_t", "int64_t")
    return "(%s)(%s)" % (i, expr_u64.replace("U(", "(%s)(" % u))


# Each operator: its scalar function per compute type. `a` is self, `b` other,
# `p.alpha` (OpenCL: `alpha`) the alpha Scalar, all already in the compute type.
OPS = {
    "add": dict(formula="out = self + alpha * other", alpha=True, overloads=["Scalar"],
                f="a + p.alpha * b", i="U(a) + U(p.alpha) * U(b)", dtypes=STD),
    "sub": dict(formula="out = self - alpha * other", alpha=True, overloads=["Scalar"],
                f="a - p.alpha * b", i="U(a) - U(p.alpha) * U(b)", dtypes=STD),
    "rsub": dict(formula="out = other - alpha * self", alpha=True, overloads=["Scalar"],
                 f="b - p.alpha * a", i="U(b) - U(p.alpha) * U(a)", dtypes=STD),
    "mul": dict(formula="out = self * other", overloads=["Scalar"], f="a * b", i="U(a) * U(b)", dtypes=STD),
    "add_": dict(formula="self += alpha * other, in place", alpha=True, overloads=["Scalar"], inplace=True,
                 f="a + p.alpha * b", i="U(a) + U(p.alpha) * U(b)", dtypes=STD),
    "fmax": dict(formula="out = fmax(self, other): the larger value, a NaN loses against a number",
                 f="a != a ? b : (b != b ? a : (a > b ? a : b))", i="a > b ? a : b", raw_int=True, dtypes=STD),
    "heaviside": dict(formula="out = self < 0 ? 0 : (self == 0 ? values : 1)", b_name="values",
                      f="a == 0 ? b : (a > 0 ? 1 : 0)", i="a == 0 ? b : (a > 0 ? 1 : 0)", raw_int=True,
                      bool="a || b", dtypes=STD + ["bool"]),
    "neg": dict(formula="out = -self", arity=1, f="-a", i="0 - U(a)", dtypes=STD),
    "floor": dict(formula="out = floor(self) (the identity on integers)", arity=1, f="floorf(a)", d="floor(a)",
                  cl_f="floor(a)", i="a", raw_int=True, dtypes=STD),
    "square": dict(formula="out = self * self (bool gives i64)", arity=1, f="a * a", i="U(a) * U(a)", dtypes=STD + ["bool"]),
    "bitwise_not": dict(formula="out = ~self (logical not on bool)", arity=1, i="~a", raw_int=True, bool="!a",
                        dtypes=["u8", "i16", "i32", "i64", "bool"]),
}


def info(name):
    op = dict(OPS[name])
    op.setdefault("arity", 2)
    op.setdefault("alpha", False)
    op.setdefault("overloads", [])
    op.setdefault("inplace", False)
    op.setdefault("b_name", "other")
    op["name"] = name
    op["id"] = "aten/" + name
    op["binary"] = op["arity"] == 2
    op["scalar"] = "Scalar" in op["overloads"]
    return op


def int_expr(op, lang):
    e = op["i"]
    if lang == "cl":
        e = e.replace("p.alpha", "alpha")
    if op.get("raw_int"):
        return e
    return wrap(e, lang)


def float_expr(op, lang, double):
    if lang == "cl":
        return op.get("cl_f", op["f"]).replace("p.alpha", "alpha")
    if double:
        return op.get("d", op["f"])
    return op["f"]


def compute_types(op):
    """(C type, out dtypes) pairs that this operator instantiates."""
    types = []
    if "f" in op:
        types += [("float", ["f32", "f16", "bf16"]), ("double", ["f64"])]
    if "i" in op:
        types += [("int64_t", ["i64", "i32", "i16", "i8", "u8"] + ([] if "bool" in op else ["bool"]))]
    if "bool" in op:
        types += [("bool", ["bool"])]
    # Only the dtypes the task allows (inputs of a promoting op may have others than out).
    return [(c, [d for d in outs if d in op["dtypes"]]) for c, outs in types if any(d in op["dtypes"] for d in outs)]


def fill(template, op, subs):
    ctx = dict(binary=op["binary"], alpha=op["alpha"], inplace=op["inplace"], scalar=op["scalar"])
    out = []
    for line in template.split("\n"):
        m = re.match(r"^@\[([^\]]*)\]", line)
        if m:
            if not eval(m.group(1), {}, ctx):
                continue
            line = line[m.end():]
        out.append(line)
    text = "\n".join(out)
    for k, v in subs.items():
        text = text.replace("{{%s}}" % k, v)
    left = re.findall(r"\{\{[A-Z0-9_]+\}\}", text)
    if left:
        raise SystemExit("unfilled placeholders in %s: %s" % (op["name"], left))
    return text


# ---- entry points ---------------------------------------------------------------

def entries(op):
    """[(function name, C parameter list, t[] initialiser, scalar other or None)]."""
    base = "kgb_aten_" + re.sub(r"[^A-Za-z0-9]", "_", op["name"])
    self_t = "kgb_tensor* self" if op["inplace"] else "const kgb_tensor* self"
    out_name = "self" if op["inplace"] else "out"
    alpha = ["kgb_scalar alpha"] if op["alpha"] else []
    out_p = [] if op["inplace"] else ["kgb_tensor* out"]
    res = []
    if op["binary"]:
        b = op["b_name"]
        res.append((base, [self_t, "const kgb_tensor* %s" % b] + alpha + out_p, "{%s, self, %s}" % (out_name, b), None))
        if op["scalar"]:
            res.append((base + "_Scalar", [self_t, "kgb_scalar other"] + alpha + out_p,
                        "{%s, self, nullptr}" % out_name, "other"))
    else:
        res.append((base, [self_t] + out_p, "{%s, self}" % out_name, None))
    return res


def entry_text(op, body):
    text = []
    for name, params, init, scalar in entries(op):
        sig = ", ".join(params + ["kgb_stream stream"])
        text.append('extern "C" int %s(%s) {\n%s}\n' % (name, sig, body(init, scalar)))
    return "\n".join(text).rstrip("\n")


# ---- common substitutions -------------------------------------------------------

def dtypes_of(op):
    return [d for d in KGB if d in op["dtypes"]]


def common(op):
    promo = ("self, other and out may have different dtypes (out has the promoted one); every input is "
             "converted to the compute type on load" if op["binary"] else
             "self and out may have different dtypes; self is converted to the compute type on load")
    if op["inplace"]:
        promo = ("other may have another dtype than self; the result is computed in the promoted type's "
                 "compute type and rounded once into self")
    bool_note = ", bool for bool results" if "bool" in op else ""
    return {
        "ID": op["id"], "FORMULA": op["formula"], "PROMOTION_NOTE": wrap_comment(promo.capitalize() + ".", "// "),
        "BOOL_NOTE": bool_note, "NOPS": "3" if op["binary"] else "2",
        "OTHER_COMMENT": ", %s" % op["b_name"] if op["binary"] else "",
        "SUPPORTED_CASES": "\n".join("    case %s:" % KGB[d] for d in dtypes_of(op)),
    }


def wrap_comment(text, prefix, width=100):
    words, lines, cur = text.split(), [], ""
    for w in words:
        if len(prefix) + len(cur) + len(w) + 1 > width and cur:
            lines.append(cur)
            cur = w
        else:
            cur = (cur + " " + w).strip()
    lines.append(cur)
    return ("\n" + prefix).join(lines)


# ---- CPU ----------------------------------------------------------------------

def cpu_ops(op):
    lines = []
    if op["alpha"]:
        lines.append("template <typename C>\nstruct Params {\n  C alpha;\n};")
    else:
        lines.append("template <typename C>\nstruct Params {};")
    args = "a, b" if op["binary"] else "a"
    for c, _ in compute_types(op):
        if c == "float":
            e = float_expr(op, "cpu", False)
        elif c == "double":
            e = float_expr(op, "cpu", True)
        elif c == "bool":
            e = op["bool"]
        else:
            e = int_expr(op, "cpu")
        sig = ", ".join("%s %s" % (c, x) for x in args.split(", "))
        unused = "" if ("p." in e) else "  (void)p;\n"
        lines.append("inline %s op(%s, const Params<%s>& p) {\n%s  return %s;\n}" % (c, sig, c, unused, e))
    return "\n".join(lines)


def dispatch_cases(op, call):
    cases = []
    for c, outs in compute_types(op):
        labels = " ".join("case %s:" % KGB[d] for d in outs)
        cases.append("    %s\n      return %s;" % (labels, call(c)))
    return "\n".join(cases)


def cpu_dispatch(op):
    alpha = "scalar_as<C>(alpha)" if op["alpha"] else ""
    text = """// An ATen Scalar (KGB_I64, KGB_F64 or KGB_BOOL) in the compute type.
template <typename C>
C scalar_as(kgb_scalar s) {
  return s.dtype == KGB_F64 ? static_cast<C>(s.v.f) : static_cast<C>(s.v.i);
}

"""
    if op["binary"]:
        text += """// t = {out, self, other}; a Scalar other becomes a rank-0 tensor of the compute type.
template <typename C>
int with_other(const kgb_tensor* const* t, const kgb_scalar* other%s) {
  const Params<C> prm{%s};
  if (!other) return compute<C>(t, prm);
  C value = scalar_as<C>(*other);
  kgb_tensor b;
  memset(&b, 0, sizeof b);
  b.data = &value;
  b.dtype = native_dtype<C>();
  const kgb_tensor* u[kOperands] = {t[0], t[1], &b};
  return compute<C>(u, prm);
}

// The compute type follows out's dtype.
int dispatch(const kgb_tensor* const* t, const kgb_scalar* other%s) {
  switch (t[0]->dtype) {
%s
    default:
      return KGB_ERR_UNSUPPORTED;
  }
}""" % (", kgb_scalar alpha" if op["alpha"] else "", alpha, ", kgb_scalar alpha" if op["alpha"] else "",
        dispatch_cases(op, lambda c: "with_other<%s>(t, other%s)" % (c, ", alpha" if op["alpha"] else "")))
    else:
        text = """// The compute type follows out's dtype.
int dispatch(const kgb_tensor* const* t) {
  switch (t[0]->dtype) {
%s
    default:
      return KGB_ERR_UNSUPPORTED;
  }
}""" % dispatch_cases(op, lambda c: "compute<%s>(t, Params<%s>{})" % (c, c))
    return text


def cpu(op):
    def body(init, scalar):
        s = "  (void)stream;\n  const kgb_tensor* t[kOperands] = %s;\n" % init
        if op["binary"]:
            s += "  return dispatch(t, %s%s);\n" % ("&other" if scalar else "nullptr", ", alpha" if op["alpha"] else "")
        else:
            s += "  return dispatch(t);\n"
        return s
    subs = common(op)
    subs.update(CPU_OPS=cpu_ops(op), CPU_DISPATCH=cpu_dispatch(op), CPU_ENTRIES=entry_text(op, body))
    return fill(read("cpu.cpp.in"), op, subs)


# ---- CUDA / HIP -------------------------------------------------------------------

GPU = {
    "cuda": dict(name="CUDA (sm_90)", includes="#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n#include <cuda_runtime.h>",
                 stream="cudaStream_t", last_error="cudaGetLastError() == cudaSuccess",
                 half="""__device__ __forceinline__ float f16_to_float(uint16_t h) { return __half2float(__ushort_as_half(h)); }
__device__ __forceinline__ uint16_t float_to_f16(float f) { return __half_as_ushort(__float2half_rn(f)); }
__device__ __forceinline__ float bf16_to_float(uint16_t h) { return __uint_as_float(static_cast<uint32_t>(h) << 16); }
__device__ __forceinline__ uint16_t float_to_bf16(float f) { return __bfloat16_as_ushort(__float2bfloat16_rn(f)); }"""),
    "hip": dict(name="HIP (a port of the CUDA solution)",
                includes="#include <hip/hip_runtime.h>\n\n#include \"kgb_half.h\"",
                stream="hipStream_t", last_error="hipGetLastError() == hipSuccess",
                half="""__device__ __forceinline__ float f16_to_float(uint16_t h) { return kgb_f16_to_float(h); }
__device__ __forceinline__ uint16_t float_to_f16(float f) { return kgb_float_to_f16(f); }
__device__ __forceinline__ float bf16_to_float(uint16_t h) { return kgb_bf16_to_float(h); }
__device__ __forceinline__ uint16_t float_to_bf16(float f) { return kgb_float_to_bf16(f); }"""),
}

TAGS = {
    "f32": ("F32", "float", "float", "v", "v"),
    "f64": ("F64", "double", "double", "v", "v"),
    "f16": ("F16", "uint16_t", "float", "f16_to_float(v)", "float_to_f16(v)"),
    "bf16": ("BF16", "uint16_t", "float", "bf16_to_float(v)", "float_to_bf16(v)"),
    "i64": ("I64", "int64_t", "int64_t", "v", "v"),
    "i32": ("I32", "int32_t", "int64_t", "v", "static_cast<int32_t>(v)"),
    "i16": ("I16", "int16_t", "int64_t", "v", "static_cast<int16_t>(v)"),
    "i8": ("I8", "int8_t", "int64_t", "v", "static_cast<int8_t>(v)"),
    "u8": ("U8", "uint8_t", "int64_t", "v", "static_cast<uint8_t>(v)"),
    "bool": ("Bool", "uint8_t", "bool", "v != 0", "static_cast<uint8_t>(v)"),
}


def same_dtype_outs(op):
    """out dtypes for which out, self (and other) can share one dtype."""
    outs = []
    for c, ds in compute_types(op):
        for d in ds:
            if d in op.get("same_dtype", dtypes_of(op)):
                if d == "bool" and c != "bool":
                    continue
                outs.append((c, d))
    return outs


def gpu(op, kind):
    g = GPU[kind]
    ops = cpu_ops(op).replace("inline ", "__device__ __forceinline__ ")
    tags = []
    for _, d in same_dtype_outs(op):
        t, s, c, ld, st = TAGS[d]
        tags.append("struct %s {\n  using S = %s;\n  using C = %s;\n"
                    "  static __device__ __forceinline__ C ld(S v) { return %s; }\n"
                    "  static __device__ __forceinline__ S st(C v) { return %s; }\n};" % (t, s, c, ld, st))
    paths = []
    for c, _ in compute_types(op):
        cases = ["    case %s: return try_rows<%s>(t, g, b_value, b_const, prm, s);" % (KGB[d], TAGS[d][0])
                 for cc, d in same_dtype_outs(op) if cc == c]
        paths.append("bool rows_path(const kgb_tensor* const* t, const Geometry& g, %s b_value, bool b_const,\n"
                     "               const Params<%s>& prm, %s s) {\n  switch (t[0]->dtype) {\n%s\n"
                     "    default: return false;\n  }\n}" % (c, c, g["stream"], "\n".join(cases)))
    alpha_arg = ", kgb_scalar alpha" if op["alpha"] else ""
    dispatch = """// An ATen Scalar (KGB_I64, KGB_F64 or KGB_BOOL) in the compute type.
template <typename C>
C scalar_as(kgb_scalar s) {
  return s.dtype == KGB_F64 ? static_cast<C>(s.v.f) : static_cast<C>(s.v.i);
}

bool supported(int32_t dtype) {
  switch (dtype) {
%s
      return true;
    default:
      return false;
  }
}

// t = {out, self%s}; other, when given, is a Scalar that replaces t[2].
// The compute type follows out's dtype.
int dispatch(const kgb_tensor* const* t, const kgb_scalar* other%s, %s s) {
  for (int k = 0; k < kOperands; ++k)
    if (t[k] && !supported(t[k]->dtype)) return KGB_ERR_UNSUPPORTED;
  switch (t[0]->dtype) {
%s
    default:
      return KGB_ERR_UNSUPPORTED;
  }
}""" % (common(op)["SUPPORTED_CASES"], ", other" if op["binary"] else "", alpha_arg, g["stream"],
        dispatch_cases(op, lambda c: "launch<%s>(t, other ? scalar_as<%s>(*other) : %s(), other != nullptr, Params<%s>{%s}, s)"
                       % (c, c, c, c, "scalar_as<%s>(alpha)" % c if op["alpha"] else "")))

    def body(init, scalar):
        s = "  const kgb_tensor* t[kOperands] = %s;\n" % init
        s += "  return dispatch(t, %s%s, static_cast<%s>(stream));\n" % (
            "&other" if scalar else "nullptr", ", alpha" if op["alpha"] else "", g["stream"])
        return s
    # load/store by dtype, only the task's dtypes (bool last: the default)
    ctype = {"f32": "float", "f64": "double", "f16": "uint16_t", "bf16": "uint16_t", "i64": "int64_t",
             "i32": "int32_t", "i16": "int16_t", "i8": "int8_t", "u8": "uint8_t", "bool": "uint8_t"}
    loads, stores = [], []
    for d in dtypes_of(op):
        if d == "bool":
            continue
        src = "static_cast<const %s*>(base)[off]" % ctype[d]
        if d == "f16":
            src = "f16_to_float(%s)" % src
        elif d == "bf16":
            src = "bf16_to_float(%s)" % src
        loads.append("    case %s: return static_cast<C>(%s);" % (KGB[d], src))
        val = {"f16": "float_to_f16(static_cast<float>(v))", "bf16": "float_to_bf16(static_cast<float>(v))"}.get(
            d, "static_cast<%s>(v)" % ctype[d])
        stores.append("    case %s: static_cast<%s*>(base)[off] = %s; break;" % (KGB[d], ctype[d], val))
    if "bool" in op["dtypes"]:
        loads.append("    default: return static_cast<C>(static_cast<const uint8_t*>(base)[off] != 0);  // bool")
        stores.append("    default: static_cast<uint8_t*>(base)[off] = v != 0; break;  // bool")
    else:
        loads.append("    default: return C();  // not a dtype of this task: rejected on the host")
        stores.append("    default: break;  // not a dtype of this task: rejected on the host")
    half = g["half"] if ("f16" in op["dtypes"] or "bf16" in op["dtypes"]) else ""
    half = "\n".join(l for l in half.split("\n") if ("f16" in op["dtypes"] or "bf16(" not in l) and ("bf16" in op["dtypes"] or "f16(" not in l or "bf16" in l))
    subs = common(op)
    subs.update(GPU_LOAD_CASES="\n".join(loads), GPU_STORE_CASES="\n".join(stores),
                GPU_NAME=g["name"], GPU_INCLUDES=g["includes"], GPU_STREAM_T=g["stream"], GPU_LAST_ERROR=g["last_error"],
                GPU_OPS=ops, GPU_HALF=half + "\n" if half else "", GPU_TAGS="\n".join(tags), GPU_ROWS_PATH="\n\n".join(paths),
                GPU_DISPATCH=dispatch, GPU_ENTRIES=entry_text(op, body))
    text = fill(read("gpu.in"), op, subs)
    if op["inplace"]:  # out and self are one tensor: no __restrict__ on either
        text = text.replace("* __restrict__ out", "* out").replace("* __restrict__ a,", "* a,")
    return text


# ---- OpenCL -------------------------------------------------------------------

CL_TYPES = {"bool": "uchar", "u8": "uchar", "i8": "char", "i16": "short", "i32": "int", "i64": "long",
            "f16": "ushort", "bf16": "ushort", "f32": "float", "f64": "double"}


def cl_storage(op, macro, tname):
    ds = dtypes_of(op)
    parts = []
    for i, d in enumerate(ds):
        parts.append("#%s %s == %d\ntypedef %s %s;" % ("if" if i == 0 else "elif", macro, CODE[d], CL_TYPES[d], tname))
    return "\n".join(parts) + "\n#endif"


def cl_load(macro, name):
    return ("#if %s == 4\n#define %s(v) ((C)kgb_f16_to_float(v))\n#elif %s == 5\n#define %s(v) ((C)kgb_bf16_to_float(v))\n"
            "#elif %s == 0\n#define %s(v) ((C)((v) != 0))\n#else\n#define %s(v) ((C)(v))\n#endif") % (
                macro, name, macro, name, macro, name, name)


def opencl(op):
    storage = [cl_storage(op, "KGB_DO", "TO"), cl_storage(op, "KGB_DA", "TA")]
    convert = [cl_load("KGB_DA", "LOAD_A")]
    if op["binary"]:
        storage.append("#if KGB_DB >= 0\n" + cl_storage(op, "KGB_DB", "TB") + "\n#endif")
        convert.append("#if KGB_BSCALAR\n#define B_ARGS C b_value\n#define B_AT(i) (b_value)\n#else\n"
                       + cl_load("KGB_DB", "LOAD_B") + "\n#define B_ARGS __global const TB* b, long b_off\n"
                       "#define B_AT(i) LOAD_B(b[i])\n#endif")
    convert.append("#if KGB_DO == 4\n#define STORE_O(v) kgb_float_to_f16(v)\n#elif KGB_DO == 5\n"
                   "#define STORE_O(v) kgb_float_to_bf16(v)\n#elif KGB_DO == 0\n#define STORE_O(v) ((uchar)((v) != 0))\n"
                   "#else\n#define STORE_O(v) ((TO)(v))\n#endif")
    params = ["C a", "C b"] if op["binary"] else ["C a"]
    if op["alpha"]:
        params.append("C alpha")
    sig = "C op(%s)" % ", ".join(params)
    bodies = []
    types = compute_types(op)
    for idx, (c, outs) in enumerate(types):
        if c == "double":
            continue  # shares the float expression
        if c == "float":
            cond = "KGB_DO == 4 || KGB_DO == 5 || KGB_DO == 6 || KGB_DO == 7"
            e = float_expr(op, "cl", False)
        elif c == "bool":
            cond = "KGB_DO == 0"
            e = op["bool"]
        else:
            cond = None
            e = int_expr(op, "cl")
        bodies.append((cond, e))
    bodies.sort(key=lambda x: x[0] is None)  # the integer body is the #else
    if len(bodies) == 1:
        cl_op = "%s { return %s; }" % (sig, bodies[0][1])
    else:
        parts = []
        for i, (cond, e) in enumerate(bodies):
            head = "#else" if cond is None else ("#if " if i == 0 else "#elif ") + cond
            parts.append("%s\n%s { return %s; }" % (head, sig, e))
        cl_op = "\n".join(parts) + "\n#endif"
    has_bool = "bool" in op
    subs = common(op)
    subs.update(
        DB_OPT="/-DKGB_DB" if op["binary"] else "", DEFAULT_DT=str(CODE[op["dtypes"][0]]),
        TB_COMMENT=", TB (%s)" % op["b_name"] if op["binary"] else "",
        CL_STORAGE="\n".join(storage), CL_CONVERT="\n".join(convert), CL_OP=cl_op,
        CL_BOOL_C="#elif KGB_DO == 0\ntypedef uchar C;\n" if has_bool else "",
        CL_PARAM_ARGS=", C alpha" if op["alpha"] else "", CL_PARAM_USE=", alpha" if op["alpha"] else "",
        CL_BOOL_HOST_NOTE=", uchar for bool" if has_bool else "",
        CL_BOOL_HOST_CASE="      case KGB_BOOL: return value(static_cast<cl_uchar>(i != 0));\n" if has_bool else "",
        OTHER_COMMENT2=", %s" % op["b_name"] if op["binary"] else "",
        CL_HOST_PARAM_DECL=", kgb_scalar alpha" if op["alpha"] else "",
        CL_HOST_PARAM_SET="  args.compute_value(t[0]->dtype, alpha);" if op["alpha"] else "",
    )

    def body(init, scalar):
        s = "  const kgb_tensor* t[kOperands] = %s;\n" % init
        s += "  return launch(t, %s%s, stream);\n" % ("&other" if scalar else "nullptr", ", alpha" if op["alpha"] else "")
        return s
    subs["CL_ENTRIES"] = entry_text(op, body)
    text = fill(read("opencl.cpp.in"), op, subs)
    return text.replace("\n\n\n", "\n\n")


def read(name):
    with open(os.path.join(TEMPLATES, name)) as f:
        return f.read()


def outputs(name):
    op = info(name)
    d = os.path.join(ROOT, "benchmark", "tasks", "aten", name, "solutions")
    return {os.path.join(d, "cpu.cpp"): cpu(op), os.path.join(d, "cuda.cu"): gpu(op, "cuda"),
            os.path.join(d, "hip.hip"): gpu(op, "hip"), os.path.join(d, "opencl.cpp"): opencl(op)}


def main(argv):
    check = "--check" in argv
    names = [a for a in argv if not a.startswith("--")] or sorted(OPS)
    differ = []
    for name in names:
        if name not in OPS:
            raise SystemExit("unknown operator %s (known: %s)" % (name, ", ".join(sorted(OPS))))
        for path, text in outputs(name).items():
            text = text.rstrip("\n") + "\n"
            if check:
                if not os.path.exists(path) or open(path).read() != text:
                    differ.append(os.path.relpath(path, ROOT))
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    if differ:
        print("out of date (run scripts/taskgen/pointwise.py):\n  " + "\n  ".join(differ))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
