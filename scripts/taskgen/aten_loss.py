#!/usr/bin/env python3
"""Emits the bundled solutions and the plain OpenCL baseline of the ATen loss
and pointwise-backward tasks (aten/mish_backward, aten/softplus_backward,
aten/log_sigmoid_backward, aten/smooth_l1_loss_backward,
aten/rrelu_with_noise_backward, aten/huber_loss, aten/soft_margin_loss,
aten/margin_ranking_loss, aten/binary_cross_entropy_with_logits).

These operators share one shape: a few same-dtype tensors broadcast onto one
iteration space, an element function in the compute type, and either a
pointwise output or (losses with reduction mean/sum) a sum over every element
into a 0-dim output. The skeleton below is written once per language; each
emitted file is one standalone source for its operator (its entry point, its
element function, only the code paths it needs).

Usage: scripts/taskgen/aten_loss.py [op ...]   (default: every op of the table)
Writes benchmark/tasks/aten/<op>/solutions/{cpu.cpp,cuda.cu,opencl.cpp,hip.hip}
and backends/opencl/baselines/aten/<op>.cpp. The operator table, with the
element functions, is aten_loss_ops.py; the specs and references are written
by hand next to the solutions.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aten_loss_ops import OPS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MATH = ("EXP", "LOG1P", "LOG", "TANH")
C_NAMES = {"EXP": ("expf", "exp"), "LOG": ("logf", "log"), "LOG1P": ("log1pf", "log1p"), "TANH": ("tanhf", "tanh")}


def used_math(op):
    return [m for m in MATH if re.search(r"\b" + m + r"\(", op["body"])]


def body_for(op, lang):
    """The element function's body in one language, indented for a function body."""
    text = "  " + op["body"].replace("\n    ", "\n  ")
    for m in MATH:
        text = re.sub(r"\b" + m + r"\(", ("v" + m.lower() + "(") if lang != "opencl" else (m.lower() + "("), text)
    text = re.sub(r"\bFABS\(", "vfabs(" if lang != "opencl" else "fabs(", text)
    text = re.sub(r"\bSELECT\(", "vselect(", text)
    text = re.sub(r"\bRT\(([^()]*)\)", (r"T::load(T::store(\1))" if lang != "opencl" else r"LOAD(STORE(\1))"), text)
    return text


def entry_decl(op_name, op):
    parts = []
    for kind, name in op["params"]:
        parts.append({"tensor": "const kgb_tensor* ", "unused": "const kgb_tensor* ", "optional": "const kgb_tensor* ",
                      "scalar": "kgb_scalar ", "double": "double ", "bool": "int ", "enum": "int ",
                      "out": "kgb_tensor* "}[kind] + name)
    parts.append("kgb_stream stream")
    return "int kgb_aten_%s(%s)" % (op_name, ", ".join(parts))


def out_name(op):
    return next(n for k, n in op["params"] if k == "out")


def has_reduction(op):
    return any(k == "enum" for k, _ in op["params"])


def fields_struct(op, ctype, indent=""):
    lines = []
    for name, kind, _ in op["fields"]:
        lines.append("%s  %s %s;" % (indent, ctype if kind == "real" else "int", name))
    return "\n".join(lines)


def element_args(op, ctype="C"):
    return ", ".join("%s %s" % (ctype, short) for _, short in op["inputs"])


def host_prologue(op):
    """C++ that checks the arguments and fills `fields` and `in[]` (shared by every host side)."""
    out = out_name(op)
    lines = []
    unused = [n for k, n in op["params"] if k in ("unused",)] + \
        [n for k, n in op["params"] if k == "bool" and not any(re.search(r"\b%s\b" % n, f[2]) for f in op["fields"])]
    lines.append("  (void)stream;" if "cuda" not in op.get("_lang", "") else "")
    for n in unused:
        lines.append("  (void)%s;  // %s" % (n, "not needed: the result follows from self" if n == "buffer" else
                                            "does not change the result"))
    if has_reduction(op):
        lines.append("  if (reduction < 0 || reduction > 2) return KGB_ERR_INVALID;")
    lines.append("  Fields fields{};")
    for name, kind, expr in op["fields"]:
        lines.append("  fields.%s = %s;" % (name, expr))
    ins = ", ".join(n for n, _ in op["inputs"])
    lines.append("  const kgb_tensor* in[kInputs] = {%s};" % ins)
    for k, (name, short) in enumerate(op["inputs"]):
        cond = op.get("drop_when", {}).get(short)
        if cond:
            lines.append("  if (%s) in[%d] = nullptr;  // not read in this mode" % (cond, k))
    lines.append("  const int32_t dtype = %s->dtype;" % out)
    lines.append("  for (int k = 0; k < kInputs; ++k)")
    lines.append("    if (in[k] && in[k]->dtype != dtype) return KGB_ERR_INVALID;")
    return "\n".join(l for l in lines if l)


def reduction_arg(op):
    return "reduction" if op.get("loss") else "0"


def host_helpers(op):
    """The small host helpers the op's field expressions use."""
    text = " ".join(f[2] for f in op["fields"])
    out = ""
    if "scalar_value(" in text:
        out += ("// An ATen Scalar as a double (integers and bools arrive in v.i).\n"
                "double scalar_value(kgb_scalar s) { return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i); }\n")
    if "numel_of(" in text:
        out += "int64_t numel_of(const kgb_tensor* t) { return kgb_numel(t); }\n"
    return out

SHAPE_HELPERS = r"""// The iteration shape: out's shape for a pointwise result, else the inputs'
// broadcast shape (right-aligned, size-1 dimensions stretch). False if the
// shapes do not broadcast.
bool iteration_shape(const kgb_tensor* out, const kgb_tensor* const* in, bool reduce, int64_t* shape, int* rank) {
  if (!reduce) {
    *rank = out->rank;
    for (int d = 0; d < out->rank; ++d) shape[d] = out->sizes[d];
    return out->rank <= KGB_MAX_RANK;
  }
  *rank = 0;
  for (int k = 0; k < kInputs; ++k)
    if (in[k] && in[k]->rank > *rank) *rank = in[k]->rank;
  for (int d = 0; d < *rank; ++d) shape[d] = 1;
  for (int k = 0; k < kInputs; ++k) {
    if (!in[k]) continue;
    for (int j = 0; j < in[k]->rank; ++j) {
      const int d = *rank - in[k]->rank + j;
      const int64_t n = in[k]->sizes[j];
      if (n == 1) continue;
      if (shape[d] != 1 && shape[d] != n) return false;
      shape[d] = n;
    }
  }
  return true;
}

// Stride of t along dimension d of the iteration shape (rank r): 0 where t is
// broadcast (missing or size-1 dimension); false if the sizes conflict.
bool broadcast_stride(const kgb_tensor* t, int r, int d, int64_t n, int64_t* stride) {
  const int k = d - (r - t->rank);
  if (k < 0 || t->sizes[k] == 1) { *stride = 0; return true; }
  if (t->sizes[k] != n) return false;
  *stride = t->strides[k];
  return true;
}

// Folds the tensors onto the shape: per dimension the element strides of
// every tensor (index 0 the output: 0 when reducing; absent inputs 0), size-1
// dimensions dropped, ordered by the lead tensor's strides (largest first),
// neighbours merged where every tensor steps over one dimension exactly one
// row of the next.
bool fold(const int64_t* shape, int rank, const kgb_tensor* out, bool reduce, const kgb_tensor* const* in, Space& sp) {
  Space raw;
  raw.rank = 0;
  for (int d = 0; d < rank; ++d) {
    const int64_t n = shape[d];
    int64_t st[kTensors];
    if (reduce) st[0] = 0;
    else if (!broadcast_stride(out, rank, d, n, &st[0])) return false;
    for (int k = 0; k < kInputs; ++k) {
      st[k + 1] = 0;
      if (in[k] && !broadcast_stride(in[k], rank, d, n, &st[k + 1])) return false;
    }
    if (n == 1) continue;
    raw.size[raw.rank] = n;
    for (int k = 0; k < kTensors; ++k) raw.st[k][raw.rank] = st[k];
    ++raw.rank;
  }
  // The lead tensor sets the walking order: the output, or the first input when reducing.
  const int lead = reduce ? 1 : 0;
  for (int i = 1; i < raw.rank; ++i)
    for (int j = i; j > 0; --j) {
      const int64_t x = raw.st[lead][j - 1] < 0 ? -raw.st[lead][j - 1] : raw.st[lead][j - 1];
      const int64_t y = raw.st[lead][j] < 0 ? -raw.st[lead][j] : raw.st[lead][j];
      if (x >= y) break;
      const int64_t s = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = s;
      for (int k = 0; k < kTensors; ++k) {
        const int64_t t = raw.st[k][j]; raw.st[k][j] = raw.st[k][j - 1]; raw.st[k][j - 1] = t;
      }
    }
  sp.rank = 0;
  for (int d = 0; d < raw.rank; ++d) {
    if (sp.rank > 0) {
      const int p = sp.rank - 1;
      bool merge = true;
      for (int k = 0; k < kTensors; ++k) merge = merge && sp.st[k][p] == raw.st[k][d] * raw.size[d];
      if (merge) {
        sp.size[p] *= raw.size[d];
        for (int k = 0; k < kTensors; ++k) sp.st[k][p] = raw.st[k][d];
        continue;
      }
    }
    sp.size[sp.rank] = raw.size[d];
    for (int k = 0; k < kTensors; ++k) sp.st[k][sp.rank] = raw.st[k][d];
    ++sp.rank;
  }
  if (sp.rank == 0) {  // a single element
    sp.rank = 1;
    sp.size[0] = 1;
    for (int k = 0; k < kTensors; ++k) sp.st[k][0] = 0;
  }
  for (int d = sp.rank; d < KGB_MAX_RANK; ++d) {
    sp.size[d] = 1;
    for (int k = 0; k < kTensors; ++k) sp.st[k][d] = 0;
  }
  return true;
}
"""


VSELECT = r"""// Branch-free select: a conditional next to the vector math calls stops GCC's
// if-conversion, and with it the vectoriser (the loop would call scalar expf).
inline float vselect(bool c, float a, float b) {
  uint32_t ia, ib;
  memcpy(&ia, &a, sizeof ia);
  memcpy(&ib, &b, sizeof ib);
  const uint32_t m = 0u - static_cast<uint32_t>(c);
  const uint32_t r = (ia & m) | (ib & ~m);
  float out;
  memcpy(&out, &r, sizeof out);
  return out;
}
inline double vselect(bool c, double a, double b) {
  uint64_t ia, ib;
  memcpy(&ia, &a, sizeof ia);
  memcpy(&ib, &b, sizeof ib);
  const uint64_t m = 0u - static_cast<uint64_t>(c);
  const uint64_t r = (ia & m) | (ib & ~m);
  double out;
  memcpy(&out, &r, sizeof out);
  return out;
}
"""


def header_comment(op_name, op, lang, lines):
    head = "// aten/%s %s: %s." % (op_name, {"cpu": "on the CPU", "cuda": "in CUDA", "hip": "in HIP",
                                             "opencl": "in OpenCL"}[lang], op["summary"])
    return head + "\n" + "\n".join("// " + l if l else "//" for l in lines) + "\n"


# --------------------------------------------------------------------------- CPU
def emit_cpu(op_name, op):
    n_in = len(op["inputs"])
    math = used_math(op)
    reduce = bool(op.get("loss"))
    lines = [
        "Every input is broadcast onto one iteration space (stride 0 on broadcast",
        "dimensions, size-1 dimensions dropped, dimensions contiguous in every tensor",
        "merged) walked in rows of the innermost dimension, split across OpenMP",
        "threads. A row is processed in blocks: each input is converted into the",
        "compute type (float for f32/f16/bf16, double for f64) in a small buffer,",
        "or read in place when it already is that type with unit stride; the element",
        "function runs in a SIMD loop (glibc's vector math through `omp declare simd`)",
        "and every result is rounded once into the output dtype.",
    ]
    if reduce:
        lines += [
            "Reductions (mean, sum): each work item sums its elements, each rounded to",
            "the dtype first as ATen's loss tensor is, in double; the work items' sums",
            "are added in a fixed order, so the result does not depend on the threads.",
        ]
    lines.append("Generated by scripts/taskgen/aten_loss.py from the family's shared skeleton.")
    src = header_comment(op_name, op, "cpu", lines)
    src += "#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n\n#include <type_traits>\n\n"
    src += '#include "kgb_half.h"\n#include "kgb_kernel.h"\n\n'
    if math:
        src += "#if defined(__x86_64__) && defined(__GLIBC__)\n"
        src += "// glibc's libmvec has SIMD variants of these: declared so, the vectoriser calls them.\n"
        src += 'extern "C" {\n'
        for m in math:
            for fn, ty in ((C_NAMES[m][0], "float"), (C_NAMES[m][1], "double")):
                src += "#pragma omp declare simd notinbranch\n%s %s(%s);\n" % (ty, fn, ty)
        src += "}\n#endif\n\n"
    src += "namespace {\n\n"
    src += "constexpr int kInputs = %d;\nconstexpr int kTensors = kInputs + 1;  // [0] is the output\n\n" % n_in
    for m in math:
        src += "inline float v%s(float v) { return %s(v); }\n" % (m.lower(), C_NAMES[m][0])
        src += "inline double v%s(double v) { return %s(v); }\n" % (m.lower(), C_NAMES[m][1])
    if "FABS(" in op["body"]:
        src += "inline float vfabs(float v) { return fabsf(v); }\ninline double vfabs(double v) { return fabs(v); }\n"
    if "SELECT(" in op["body"]:
        src += VSELECT
    src += "\n// Host-side values of the scalar arguments, and the same in the compute type.\n"
    src += "struct Fields {\n%s\n};\n" % (fields_struct(op, "double") or "  // none")
    src += "template <typename C>\nstruct Params {\n%s\n};\n" % (fields_struct(op, "C") or "  // none")
    src += "template <typename C>\nParams<C> params_for(const Fields& f) {\n  Params<C> p{};\n"
    for name, kind, _ in op["fields"]:
        src += "  p.%s = %s;\n" % (name, "static_cast<C>(f.%s)" % name if kind == "real" else "f.%s" % name)
    src += ("" if op["fields"] else "  (void)f;\n") + "  return p;\n}\n\n"
    src += r"""struct F32 {
  using S = float; using C = float;
  static C load(S v) { return v; }
  static S store(C v) { return v; }
};
struct F64 {
  using S = double; using C = double;
  static C load(S v) { return v; }
  static S store(C v) { return v; }
};
struct F16 {
  using S = uint16_t; using C = float;
  static C load(S v) { return kgb_f16_to_float(v); }
  static S store(C v) { return kgb_float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t; using C = float;
  static C load(S v) { return kgb_bf16_to_float(v); }
  static S store(C v) { return kgb_float_to_bf16(v); }
};

struct Space {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t st[kTensors][KGB_MAX_RANK];
};

"""
    src += ("// The element function in the compute type C of the dtype's traits T (RT: round to T and back).\n"
            "template <typename T, typename C = typename T::C>\n")
    src += "inline C element(%s, const Params<C>& p) {\n%s%s\n}\n\n" % (element_args(op), "" if op["fields"] else "  (void)p;\n", body_for(op, "cpu"))
    src += SHAPE_HELPERS + "\n"
    src += r"""constexpr int kBlock = 256;     // elements per SIMD block
constexpr int64_t kChunk = 16384;  // elements per work item along the innermost dimension

// Block of m elements of one input in the compute type: in place when it is
// already that type with unit stride, else converted into buf (1 for an absent input).
template <typename T>
const typename T::C* gather(const typename T::S* p, int64_t s, int m, typename T::C* buf) {
  using C = typename T::C;
  if (!p) {
    for (int i = 0; i < m; ++i) buf[i] = C(1);
    return buf;
  }
  if (s == 0) {
    const C v = T::load(p[0]);
    for (int i = 0; i < m; ++i) buf[i] = v;
    return buf;
  }
  if constexpr (std::is_same<typename T::S, C>::value)
    if (s == 1) return reinterpret_cast<const C*>(p);
  if (s == 1) {
#pragma omp simd
    for (int i = 0; i < m; ++i) buf[i] = T::load(p[i]);
  } else {
    for (int i = 0; i < m; ++i) buf[i] = T::load(p[i * s]);
  }
  return buf;
}

// One row of len elements starting at the element offsets off[]: results
// stored with the output's stride, or (reduce) their sum returned.
template <typename T>
double row(typename T::S* out, const typename T::S* const* in, const int64_t* off, const int64_t* st, int64_t len,
           bool reduce, const Params<typename T::C>& p) {
  using C = typename T::C;
  using S = typename T::S;
  C buf[kInputs][kBlock];
  C res[kBlock];
  double acc = 0;
  for (int64_t start = 0; start < len; start += kBlock) {
    const int m = static_cast<int>(len - start < kBlock ? len - start : kBlock);
    const C* v[kInputs];
    for (int k = 0; k < kInputs; ++k)
      v[k] = gather<T>(in[k] ? in[k] + off[k + 1] + start * st[k + 1] : nullptr, st[k + 1], m, buf[k]);
"""
    call = "element<T>(%s, p)" % ", ".join("v[%d][i]" % k for k in range(n_in))
    src += "#pragma omp simd\n    for (int i = 0; i < m; ++i) res[i] = %s;\n" % call
    src += r"""    if (reduce) {
      double part = 0;
#pragma omp simd reduction(+ : part)
      for (int i = 0; i < m; ++i) part += static_cast<double>(T::load(T::store(res[i])));
      acc += part;
      continue;
    }
    S* o = out + off[0] + start * st[0];
    if (st[0] == 1) {
#pragma omp simd
      for (int i = 0; i < m; ++i) o[i] = T::store(res[i]);
    } else {
      for (int i = 0; i < m; ++i) o[i * st[0]] = T::store(res[i]);
    }
  }
  return acc;
}

// Walks the space in (outer index, chunk of the innermost dimension) work
// items across threads; returns the sum of every element when reducing.
template <typename T>
double walk(const Space& sp, typename T::S* out, const typename T::S* const* in, bool reduce,
            const Params<typename T::C>& p) {
  const int last = sp.rank - 1;
  const int64_t inner = sp.size[last];
  int64_t outer = 1;
  for (int d = 0; d < last; ++d) outer *= sp.size[d];
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  const int64_t items = outer * chunks;
  double* partial = reduce ? static_cast<double*>(malloc(sizeof(double) * items)) : nullptr;
  if (reduce && !partial) return NAN;
  int64_t inner_st[kTensors];
  for (int k = 0; k < kTensors; ++k) inner_st[k] = sp.st[k][last];
#pragma omp parallel for schedule(static) if (items > 1 && outer * inner > 32768)
  for (int64_t w = 0; w < items; ++w) {
    int64_t rest = w / chunks;
    const int64_t begin = (w % chunks) * kChunk;
    int64_t off[kTensors];
    for (int k = 0; k < kTensors; ++k) off[k] = begin * sp.st[k][last];
    for (int d = last - 1; d >= 0; --d) {
      const int64_t i = rest % sp.size[d];
      rest /= sp.size[d];
      for (int k = 0; k < kTensors; ++k) off[k] += i * sp.st[k][d];
    }
    const int64_t len = inner - begin < kChunk ? inner - begin : kChunk;
    const double s = row<T>(out, in, off, inner_st, len, reduce, p);
    if (reduce) partial[w] = s;
  }
  double total = 0;
  if (reduce) {
    for (int64_t w = 0; w < items; ++w) total += partial[w];
    free(partial);
  }
  return total;
}

// reduction: 0 pointwise into out, 1 mean, 2 sum (into the 0-dim out).
template <typename T>
int run(kgb_tensor* out, const kgb_tensor* const* in, int reduction, const Fields& fields) {
  using S = typename T::S;
  using C = typename T::C;
  const bool reduce = reduction != 0;
  int64_t shape[KGB_MAX_RANK];
  int rank = 0;
  if (!iteration_shape(out, in, reduce, shape, &rank)) return KGB_ERR_INVALID;
  if (reduce && kgb_numel(out) != 1) return KGB_ERR_INVALID;
  Space sp;
  if (!fold(shape, rank, out, reduce, in, sp)) return KGB_ERR_INVALID;
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= shape[d];
  const S* ptr[kInputs];
  for (int k = 0; k < kInputs; ++k) ptr[k] = in[k] ? static_cast<const S*>(in[k]->data) : nullptr;
  const Params<C> p = params_for<C>(fields);
  if (!reduce) {
    if (n > 0) walk<T>(sp, static_cast<S*>(out->data), ptr, false, p);
    return KGB_OK;
  }
  double total = n > 0 ? walk<T>(sp, nullptr, ptr, true, p) : 0.0;
  if (reduction == 1) total /= static_cast<double>(n);  // the mean of nothing is NaN, as in ATen
  *static_cast<S*>(out->data) = T::store(static_cast<C>(total));
  return KGB_OK;
}

}  // namespace

"""
    src += 'extern "C" %s {\n' % entry_decl(op_name, op)
    src += host_prologue(op) + "\n"
    red = reduction_arg(op)
    src += "  switch (dtype) {\n"
    for dt, tr in (("KGB_F32", "F32"), ("KGB_F64", "F64"), ("KGB_F16", "F16"), ("KGB_BF16", "BF16")):
        src += "    case %s: return run<%s>(%s, in, %s, fields);\n" % (dt, tr, out_name(op), red)
    src += "    default: return KGB_ERR_UNSUPPORTED;\n  }\n}\n"
    return src


# --------------------------------------------------------------------- CUDA / HIP
def emit_gpu(op_name, op, hip):
    n_in = len(op["inputs"])
    math = used_math(op)
    reduce = bool(op.get("loss"))
    lang = "hip" if hip else "cuda"
    lines = [
        "The host broadcasts every input onto one iteration space (stride 0 on",
        "broadcast dimensions), drops size-1 dimensions and merges dimensions that",
        "are contiguous in every tensor. When everything folds into one dense run,",
        "a grid-stride kernel reads and writes 16-byte vectors; otherwise each",
        "thread decomposes its linear index into every tensor's offset. The element",
        "function computes in float (f32, f16, bf16) or double (f64) and rounds once.",
    ]
    if reduce:
        lines += [
            "mean/sum: a fixed grid of blocks sums the elements (each rounded to the",
            "dtype first, as ATen's loss tensor is) into per-block partials in a",
            "stream-ordered scratch buffer; one block adds the partials in a fixed",
            "order and writes the 0-dim output, so the result is deterministic.",
        ]
    if hip:
        lines.append("f16/bf16 are uint16_t data converted with kgb_half.h.")
    lines.append("Generated by scripts/taskgen/aten_loss.py from the family's shared skeleton.")
    src = header_comment(op_name, op, lang, lines)
    if hip:
        src += "#include <hip/hip_runtime.h>\n#include <math.h>\n#include <stdint.h>\n\n#include \"kgb_half.h\"\n#include \"kgb_kernel.h\"\n\n"
    else:
        src += "#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n#include <cuda_runtime.h>\n#include <stdint.h>\n\n#include \"kgb_kernel.h\"\n\n"
    src += "namespace {\n\n"
    src += "constexpr int kInputs = %d;\nconstexpr int kTensors = kInputs + 1;  // [0] is the output\n" % n_in
    src += "constexpr int kThreads = 256;\n\n"
    for m in math:
        src += "__device__ __forceinline__ float v%s(float v) { return %s(v); }\n" % (m.lower(), C_NAMES[m][0])
        src += "__device__ __forceinline__ double v%s(double v) { return %s(v); }\n" % (m.lower(), C_NAMES[m][1])
    if "SELECT(" in op["body"]:
        src += "template <typename C>\n__device__ __forceinline__ C vselect(bool c, C a, C b) { return c ? a : b; }\n"
    if "FABS(" in op["body"]:
        src += "__device__ __forceinline__ float vfabs(float v) { return fabsf(v); }\n"
        src += "__device__ __forceinline__ double vfabs(double v) { return fabs(v); }\n"
    src += "\n// Host-side values of the scalar arguments, and the same in the compute type.\n"
    src += "struct Fields {\n%s\n};\n" % (fields_struct(op, "double") or "  // none")
    src += "template <typename C>\nstruct Params {\n%s\n};\n" % (fields_struct(op, "C") or "  // none")
    src += "template <typename C>\nParams<C> params_for(const Fields& f) {\n  Params<C> p{};\n"
    for name, kind, _ in op["fields"]:
        src += "  p.%s = %s;\n" % (name, "static_cast<C>(f.%s)" % name if kind == "real" else "f.%s" % name)
    src += ("" if op["fields"] else "  (void)f;\n") + "  return p;\n}\n\n"
    if hip:
        src += r"""struct F32 {
  using S = float; using C = float;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return v; }
};
struct F64 {
  using S = double; using C = double;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return v; }
};
struct F16 {
  using S = uint16_t; using C = float;
  __device__ static C load(S v) { return kgb_f16_to_float(v); }
  __device__ static S store(C v) { return kgb_float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t; using C = float;
  __device__ static C load(S v) { return kgb_bf16_to_float(v); }
  __device__ static S store(C v) { return kgb_float_to_bf16(v); }
};
"""
    else:
        src += r"""struct F32 {
  using S = float; using C = float;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return v; }
};
struct F64 {
  using S = double; using C = double;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return v; }
};
struct F16 {
  using S = uint16_t; using C = float;
  __device__ static C load(S v) { return __half2float(__ushort_as_half(v)); }
  __device__ static S store(C v) { return __half_as_ushort(__float2half_rn(v)); }
};
struct BF16 {
  using S = uint16_t; using C = float;
  __device__ static C load(S v) { return __bfloat162float(__ushort_as_bfloat16(v)); }
  __device__ static S store(C v) { return __bfloat16_as_ushort(__float2bfloat16_rn(v)); }
};
"""
    src += ("\n// The element function in the compute type C of the dtype's traits T (RT: round to T and back).\n"
            "template <typename T, typename C = typename T::C>\n__device__ __forceinline__ C element(%s, const Params<C>& p) {\n"
            "%s%s\n}\n" % (element_args(op), "" if op["fields"] else "  (void)p;\n", body_for(op, lang)))
    src += r"""
struct Space {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t st[kTensors][KGB_MAX_RANK];
};

// Data pointers at logical element 0; an absent input (nullptr) reads as 1.
template <typename S>
struct Pointers {
  S* out;
  const S* in[kInputs];
};

"""
    src += SHAPE_HELPERS + "\n"
    args = ", ".join("v[%d]" % k for k in range(n_in))
    # Strided and dense kernels.
    src += r"""template <typename T>
__device__ __forceinline__ void offsets(const Space& g, int64_t i, int64_t* off) {
#pragma unroll
  for (int k = 0; k < kTensors; ++k) off[k] = 0;
  for (int d = g.rank - 1; d >= 0; --d) {
    const int64_t c = i % g.size[d];
    i /= g.size[d];
#pragma unroll
    for (int k = 0; k < kTensors; ++k) off[k] += c * g.st[k][d];
  }
}

// One element per thread, offsets from the linear index.
template <typename T>
__global__ void __launch_bounds__(kThreads) pointwise_strided(Pointers<typename T::S> ptr, Space g, int64_t n,
                                                              Params<typename T::C> p) {
  using C = typename T::C;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    int64_t off[kTensors];
    offsets<T>(g, i, off);
    C v[kInputs];
#pragma unroll
    for (int k = 0; k < kInputs; ++k) v[k] = ptr.in[k] ? T::load(ptr.in[k][off[k + 1]]) : C(1);
    ptr.out[off[0]] = T::store(element<T>(@ARGS@, p));
  }
}

template <typename S, int VEC>
struct alignas(sizeof(S) * VEC) Pack {
  S v[VEC];
};

// Every tensor one dense run of n elements: VEC elements per 16-byte access,
// the tail (n % VEC) element by element.
template <typename T, int VEC>
__global__ void __launch_bounds__(kThreads) pointwise_dense(Pointers<typename T::S> ptr, int64_t n,
                                                            Params<typename T::C> p) {
  using C = typename T::C;
  using S = typename T::S;
  using P = Pack<S, VEC>;
  const int64_t packs = n / VEC;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t q = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; q < packs; q += stride) {
    P in[kInputs];
#pragma unroll
    for (int k = 0; k < kInputs; ++k)
      if (ptr.in[k]) in[k] = reinterpret_cast<const P*>(ptr.in[k])[q];
    P o;
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      C v[kInputs];
#pragma unroll
      for (int k = 0; k < kInputs; ++k) v[k] = ptr.in[k] ? T::load(in[k].v[j]) : C(1);
      o.v[j] = T::store(element<T>(@ARGS@, p));
    }
    reinterpret_cast<P*>(ptr.out)[q] = o;
  }
  for (int64_t i = packs * VEC + static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride) {
    C v[kInputs];
#pragma unroll
    for (int k = 0; k < kInputs; ++k) v[k] = ptr.in[k] ? T::load(ptr.in[k][i]) : C(1);
    ptr.out[i] = T::store(element<T>(@ARGS@, p));
  }
}

unsigned blocks_for(int64_t items, int64_t cap) {
  const int64_t b = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > cap ? cap : b));
}
""".replace("@ARGS@", args)
    if reduce:
        if hip:
            block_sum = r"""// Sum over the block's threads (shared-memory tree: any wavefront width).
template <typename A>
__device__ __forceinline__ A block_sum(A v) {
  __shared__ A sh[kThreads];
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (static_cast<int>(threadIdx.x) < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  return sh[0];
}
"""
        else:
            block_sum = r"""// Sum over the block's threads: warp shuffles, then the warps' sums.
template <typename A>
__device__ __forceinline__ A block_sum(A v) {
  __shared__ A warp_sums[kThreads / 32];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : A(0);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  }
  return v;
}
"""
        src += "\n" + block_sum + r"""
// Per-block partial sums of the elements, each rounded to the dtype first.
template <typename T, bool DENSE>
__global__ void __launch_bounds__(kThreads) loss_partials(Pointers<typename T::S> ptr, Space g, int64_t n,
                                                          Params<typename T::C> p, double* partials) {
  using C = typename T::C;
  C acc = 0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    C v[kInputs];
    if (DENSE) {
#pragma unroll
      for (int k = 0; k < kInputs; ++k) v[k] = ptr.in[k] ? T::load(ptr.in[k][i]) : C(1);
    } else {
      int64_t off[kTensors];
      offsets<T>(g, i, off);
#pragma unroll
      for (int k = 0; k < kInputs; ++k) v[k] = ptr.in[k] ? T::load(ptr.in[k][off[k + 1]]) : C(1);
    }
    acc += T::load(T::store(element<T>(@ARGS@, p)));
  }
  const double total = block_sum<double>(static_cast<double>(acc));
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// One block: the partials in a fixed order, divided by `divisor` (n for mean, 1 for sum).
template <typename T>
__global__ void __launch_bounds__(kThreads) loss_final(const double* partials, int count, double divisor,
                                                       typename T::S* out) {
  double acc = 0;
  for (int i = threadIdx.x; i < count; i += kThreads) acc += partials[i];
  const double total = block_sum<double>(acc);
  if (threadIdx.x == 0) out[0] = T::store(static_cast<typename T::C>(total / divisor));
}
""".replace("@ARGS@", args)
    stream_t = "hipStream_t" if hip else "cudaStream_t"
    rt = "hip" if hip else "cuda"
    src += r"""
template <typename T, int VEC>
bool dense_aligned(const Pointers<typename T::S>& ptr) {
  bool ok = reinterpret_cast<uintptr_t>(ptr.out) % (sizeof(typename T::S) * VEC) == 0;
  for (int k = 0; k < kInputs; ++k)
    ok = ok && (!ptr.in[k] || reinterpret_cast<uintptr_t>(ptr.in[k]) % (sizeof(typename T::S) * VEC) == 0);
  return ok;
}

// reduction: 0 pointwise into out, 1 mean, 2 sum (into the 0-dim out).
template <typename T>
int run(kgb_tensor* out, const kgb_tensor* const* in, int reduction, const Fields& fields, @STREAM@ s) {
  using S = typename T::S;
  using C = typename T::C;
  const bool reduce = reduction != 0;
  int64_t shape[KGB_MAX_RANK];
  int rank = 0;
  if (!iteration_shape(out, in, reduce, shape, &rank)) return KGB_ERR_INVALID;
  if (reduce && kgb_numel(out) != 1) return KGB_ERR_INVALID;
  Space g;
  if (!fold(shape, rank, out, reduce, in, g)) return KGB_ERR_INVALID;
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= shape[d];
  Pointers<S> ptr;
  ptr.out = static_cast<S*>(out->data);
  for (int k = 0; k < kInputs; ++k) ptr.in[k] = in[k] ? static_cast<const S*>(in[k]->data) : nullptr;
  const Params<C> p = params_for<C>(fields);
  // Dense: one run with unit stride in every tensor that is read (or written).
  bool dense = g.rank == 1 && (reduce || g.st[0][0] == 1);
  for (int k = 0; k < kInputs; ++k) dense = dense && (!in[k] || g.st[k + 1][0] == 1);
""".replace("@STREAM@", stream_t)
    if reduce:
        src += r"""  if (reduce) {
    const unsigned blocks = n > 0 ? blocks_for(n, 1024) : 0;
    double* partials = nullptr;
    if (blocks > 0) {
      if (@RT@MallocAsync(reinterpret_cast<void**>(&partials), sizeof(double) * blocks, s) != @RT@Success)
        return KGB_ERR_INVALID;
      if (dense) loss_partials<T, true><<<blocks, kThreads, 0, s>>>(ptr, g, n, p, partials);
      else loss_partials<T, false><<<blocks, kThreads, 0, s>>>(ptr, g, n, p, partials);
    }
    // The mean of nothing is 0 / 0 = NaN, as in ATen; the sum of nothing is 0.
    loss_final<T><<<1, kThreads, 0, s>>>(partials, static_cast<int>(blocks), reduction == 1 ? static_cast<double>(n) : 1.0,
                                         ptr.out);
    if (partials && @RT@FreeAsync(partials, s) != @RT@Success) return KGB_ERR_INVALID;
    return @RT@GetLastError() == @RT@Success ? KGB_OK : KGB_ERR_INVALID;
  }
""".replace("@RT@", rt)
    src += r"""  if (n == 0) return KGB_OK;
  constexpr int V = 16 / sizeof(S);
  if (dense && dense_aligned<T, V>(ptr))
    pointwise_dense<T, V><<<blocks_for(n / V + 1, 8192), kThreads, 0, s>>>(ptr, n, p);
  else if (dense)
    pointwise_dense<T, 1><<<blocks_for(n, 8192), kThreads, 0, s>>>(ptr, n, p);
  else
    pointwise_strided<T><<<blocks_for(n, 8192), kThreads, 0, s>>>(ptr, g, n, p);
  return @RT@GetLastError() == @RT@Success ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

""".replace("@RT@", rt)
    src += 'extern "C" %s {\n' % entry_decl(op_name, op)
    src += host_prologue(dict(op, _lang="cuda")) + "\n"
    src += "  %s s = static_cast<%s>(stream);\n" % (stream_t, stream_t)
    red = reduction_arg(op)
    src += "  switch (dtype) {\n"
    for dt, tr in (("KGB_F32", "F32"), ("KGB_F64", "F64"), ("KGB_F16", "F16"), ("KGB_BF16", "BF16")):
        src += "    case %s: return run<%s>(%s, in, %s, fields, s);\n" % (dt, tr, out_name(op), red)
    src += "    default: return KGB_ERR_UNSUPPORTED;\n  }\n}\n"
    return src


# ------------------------------------------------------------------------ OpenCL
def cl_kernel_params(op):
    return "".join(", %s %s" % ("C" if kind == "real" else "int", name) for name, kind, _ in op["fields"])


def cl_element(op):
    body = body_for(op, "opencl")
    if "SELECT(" in op["body"]:
        pass
    if op.get("cl_guard"):
        body = "  " + op["cl_guard"] + "\n" + body
    for name, _, _ in op["fields"]:
        body = re.sub(r"\bp\.%s\b" % name, name, body)
    params = element_args(op) + cl_kernel_params(op)
    prefix = "#define vselect(c, a, b) ((c) ? (a) : (b))\n" if "SELECT(" in op["body"] else ""
    return prefix + "C element(%s) {\n%s\n}\n" % (params, body)


def emit_opencl(op_name, op):
    n_in = len(op["inputs"])
    reduce = bool(op.get("loss"))
    lines = [
        "The host broadcasts every input onto one iteration space (stride 0 on",
        "broadcast dimensions), drops size-1 dimensions and merges dimensions that",
        "are contiguous in every tensor. A dense run (every tensor unit-stride) takes",
        "a kernel indexing all tensors directly; anything else decomposes the linear",
        "index per work-item. The program is built once per dtype (-DKGB_DT); f16 and",
        "bf16 are ushort data converted in the kernel, computed in float.",
    ]
    if reduce:
        lines += [
            "mean/sum: work-groups sum their elements (each rounded to the dtype first,",
            "as ATen's loss tensor is) in local memory into per-group partials; one",
            "work-group adds those in a fixed order into the 0-dim output.",
        ]
    lines.append("Generated by scripts/taskgen/aten_loss.py from the family's shared skeleton.")
    src = header_comment(op_name, op, "opencl", lines)
    src += '#include <stdint.h>\n\n#include "kgb_half.h"\n#include "kgb_opencl.h"\n\nnamespace {\n\n'
    src += "constexpr int kInputs = %d;\nconstexpr int kTensors = kInputs + 1;  // [0] is the output\n\n" % n_in
    in_params = "".join(", __global const S* in%d, long off%d" % (k, k) for k in range(n_in))
    args_strided = ", ".join("(present & %du) ? LOAD(in%d[off%d + o[%d]]) : (C)1" % (1 << k, k, k, k + 1)
                             for k in range(n_in))
    args_dense = ", ".join("(present & %du) ? LOAD(in%d[off%d + i]) : (C)1" % (1 << k, k, k) for k in range(n_in))
    fnames = "".join(", " + name for name, _, _ in op["fields"])
    kp = cl_kernel_params(op)
    cl = r"""#ifndef KGB_DT
#define KGB_DT 6
#endif
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double S; typedef double C;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 4
typedef ushort S; typedef float C;
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_DT == 5
typedef ushort S; typedef float C;
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(v) kgb_float_to_bf16(v)
#else
typedef float S; typedef float C;
#define LOAD(v) (v)
#define STORE(v) (v)
#endif
#define KGB_TENSORS @NT@

typedef struct { long size[8]; long st[KGB_TENSORS][8]; } Space;

@ELEMENT@
void offsets(const Space* g, int rank, long i, long* o) {
  for (int k = 0; k < KGB_TENSORS; ++k) o[k] = 0;
  for (int d = rank - 1; d >= 0; --d) {
    long q = i / g->size[d], c = i - q * g->size[d];
    i = q;
    for (int k = 0; k < KGB_TENSORS; ++k) o[k] += c * g->st[k][d];
  }
}

__kernel void pointwise_strided(__global S* out, long out_off@IN@, uint present, Space g, int rank, long n@KP@) {
  long i = get_global_id(0);
  if (i >= n) return;
  long o[KGB_TENSORS];
  offsets(&g, rank, i, o);
  out[out_off + o[0]] = STORE(element(@AS@@FN@));
}

__kernel void pointwise_dense(__global S* out, long out_off@IN@, uint present, long n@KP@) {
  long i = get_global_id(0);
  if (i >= n) return;
  out[out_off + i] = STORE(element(@AD@@FN@));
}
"""
    if reduce:
        cl += r"""
// Each work-group: the sum of its grid-stride share of the elements.
__kernel void loss_partials(__global C* partials@IN@, uint present, Space g, int rank, long n, int dense@KP@,
                            __local C* scratch) {
  C acc = 0;
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    long o[KGB_TENSORS];
    if (dense) {
      for (int k = 0; k < KGB_TENSORS; ++k) o[k] = i;
    } else {
      offsets(&g, rank, i, o);
    }
    acc += LOAD(STORE(element(@AS@@FN@)));
  }
  const int lid = get_local_id(0), size = get_local_size(0);
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = size / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partials[get_group_id(0)] = scratch[0];
}

// One work-group: the partials in a fixed order, divided by `divisor`.
__kernel void loss_final(__global const C* partials, int count, C divisor, __global S* out, long out_off,
                         __local C* scratch) {
  const int lid = get_local_id(0), size = get_local_size(0);
  C acc = 0;
  for (int i = lid; i < count; i += size) acc += partials[i];
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = size / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[out_off] = STORE(scratch[0] / divisor);
}
"""
    cl = (cl.replace("@NT@", str(n_in + 1)).replace("@ELEMENT@", cl_element(op)).replace("@IN@", in_params)
          .replace("@KP@", kp).replace("@AS@", args_strided).replace("@AD@", args_dense).replace("@FN@", fnames))
    src += "const char kSource[] = KGB_CL_HALF_SOURCE R\"CLC(\n" + cl + ")CLC\";\n\n"
    src += "// Host-side values of the scalar arguments.\n"
    src += "struct Fields {\n%s\n};\n\n" % (fields_struct(op, "double") or "  // none")
    src += host_helpers(op) + "\n"
    src += r"""struct Space {
  cl_long size[KGB_MAX_RANK];
  cl_long st[kTensors][KGB_MAX_RANK];
  int rank;
};

""" + SHAPE_HELPERS.replace("int64_t st[kTensors];", "cl_long st[kTensors];") + r"""
// The same layout as the OpenCL C struct Space (sizes, then strides per tensor).
struct ClSpace {
  cl_long size[KGB_MAX_RANK];
  cl_long st[kTensors][KGB_MAX_RANK];
};

const char* build_options(int32_t dtype) {
  switch (dtype) {
    case KGB_F16: return "-cl-std=CL1.2 -DKGB_DT=4";
    case KGB_BF16: return "-cl-std=CL1.2 -DKGB_DT=5";
    case KGB_F32: return "-cl-std=CL1.2 -DKGB_DT=6";
    case KGB_F64: return "-cl-std=CL1.2 -DKGB_DT=7";
    default: return nullptr;
  }
}

// Kernel arguments from `index` on: every input (buffer, offset; an absent
// one passes `fallback` and is masked out), the presence mask.
cl_int set_inputs(kgb_stream stream, cl_kernel k, cl_uint index, const kgb_tensor* const* in, const kgb_tensor* fallback) {
  cl_int err = CL_SUCCESS;
  cl_uint present = 0;
  for (int j = 0; j < kInputs; ++j) {
    err |= kgb_cl_set_tensor_arg(stream, k, index + 2 * j, in[j] ? in[j] : fallback);
    if (in[j]) present |= 1u << j;
  }
  err |= clSetKernelArg(k, index + 2 * kInputs, sizeof present, &present);
  return err;
}

// The scalar fields in the compute type (float, or double for f64), from `index` on.
cl_int set_fields(cl_kernel k, cl_uint index, const Fields& f, bool f64) {
  cl_int err = CL_SUCCESS;
"""
    if not op["fields"]:
        src += "  (void)k; (void)index; (void)f; (void)f64;  // no scalar arguments\n"
    elif not any(kind == "real" for _, kind, _ in op["fields"]):
        src += "  (void)f64;\n"
    for j, (name, kind, _) in enumerate(op["fields"]):
        if kind == "real":
            src += ("  if (f64) { const cl_double v = f.{n}; err |= clSetKernelArg(k, index + {j}, sizeof v, &v); }\n"
                    "  else { const cl_float v = static_cast<cl_float>(f.{n}); err |= clSetKernelArg(k, index + {j}, sizeof v, &v); }\n"
                    ).replace("{n}", name).replace("{j}", str(j))
        else:
            src += ("  { const cl_int v = f.{n}; err |= clSetKernelArg(k, index + {j}, sizeof v, &v); }\n"
                    ).replace("{n}", name).replace("{j}", str(j))
    src += "  return err;\n}\n\n"
    nf = len(op["fields"])
    src += r"""size_t groups_of(cl_long items, size_t local) { return (static_cast<size_t>(items) + local - 1) / local * local; }

}  // namespace

"""
    src += 'extern "C" %s {\n' % entry_decl(op_name, op)
    src += host_prologue(dict(op, _lang="cuda")) + "\n"
    o = out_name(op)
    src += r"""  const char* options = build_options(dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  const bool f64 = dtype == KGB_F64;
  if (f64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const int reduction_mode = @RED@;
  const bool reduce = reduction_mode != 0;
  int64_t shape[KGB_MAX_RANK];
  int rank = 0;
  if (!iteration_shape(@O@, in, reduce, shape, &rank)) return KGB_ERR_INVALID;
  if (reduce && kgb_numel(@O@) != 1) return KGB_ERR_INVALID;
  Space sp;
  if (!fold(shape, rank, @O@, reduce, in, sp)) return KGB_ERR_INVALID;
  ClSpace g;
  for (int d = 0; d < KGB_MAX_RANK; ++d) {
    g.size[d] = sp.size[d];
    for (int k = 0; k < kTensors; ++k) g.st[k][d] = sp.st[k][d];
  }
  cl_long n = 1;
  for (int d = 0; d < rank; ++d) n *= shape[d];
  bool dense = sp.rank == 1 && (reduce || sp.st[0][0] == 1);
  for (int k = 0; k < kInputs; ++k) dense = dense && (!in[k] || sp.st[k + 1][0] == 1);
  const cl_int grank = sp.rank;
  const size_t local = 256;
""".replace("@RED@", reduction_arg(op)).replace("@O@", o)
    if reduce:
        src += r"""  if (reduce) {
    // Enough groups to fill the device, few enough for one final group to add.
    const size_t groups = n > 0 ? (static_cast<size_t>(n) / (4 * local) + 1 < 256 ? static_cast<size_t>(n) / (4 * local) + 1 : 256) : 0;
    const size_t elem = f64 ? sizeof(cl_double) : sizeof(cl_float);
    cl_int err = CL_SUCCESS;
    cl_mem partials = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, elem * (groups ? groups : 1), nullptr, &err);
    if (err != CL_SUCCESS) return KGB_ERR_INVALID;
    int status = KGB_OK;
    if (groups > 0) {
      cl_kernel k = nullptr;
      if (kgb_cl_get_kernel(stream, kSource, options, "loss_partials", &k) != CL_SUCCESS) status = KGB_ERR_INVALID;
      if (status == KGB_OK) {
        const cl_int dense_flag = dense ? 1 : 0;
        err = clSetKernelArg(k, 0, sizeof partials, &partials);
        err |= set_inputs(stream, k, 1, in, @O@);
        const cl_uint at = 2 + 2 * kInputs;
        err |= clSetKernelArg(k, at, sizeof g, &g);
        err |= clSetKernelArg(k, at + 1, sizeof grank, &grank);
        err |= clSetKernelArg(k, at + 2, sizeof n, &n);
        err |= clSetKernelArg(k, at + 3, sizeof dense_flag, &dense_flag);
        err |= set_fields(k, at + 4, fields, f64);
        err |= clSetKernelArg(k, at + 4 + @NF@, elem * local, nullptr);
        const size_t global = groups * local;
        if (err != CL_SUCCESS || kgb_cl_enqueue(stream, k, 1, &global, &local) != CL_SUCCESS) status = KGB_ERR_INVALID;
      }
    }
    if (status == KGB_OK) {
      cl_kernel k = nullptr;
      if (kgb_cl_get_kernel(stream, kSource, options, "loss_final", &k) != CL_SUCCESS) status = KGB_ERR_INVALID;
      if (status == KGB_OK) {
        // The mean of nothing is 0 / 0 = NaN, as in ATen; the sum of nothing is 0.
        const double divisor = reduction_mode == 1 ? static_cast<double>(n) : 1.0;
        const cl_int count = static_cast<cl_int>(groups);
        err = clSetKernelArg(k, 0, sizeof partials, &partials);
        err |= clSetKernelArg(k, 1, sizeof count, &count);
        if (f64) { const cl_double d = divisor; err |= clSetKernelArg(k, 2, sizeof d, &d); }
        else { const cl_float d = static_cast<cl_float>(divisor); err |= clSetKernelArg(k, 2, sizeof d, &d); }
        err |= kgb_cl_set_tensor_arg(stream, k, 3, @O@);
        err |= clSetKernelArg(k, 5, elem * local, nullptr);
        if (err != CL_SUCCESS || kgb_cl_enqueue(stream, k, 1, &local, &local) != CL_SUCCESS) status = KGB_ERR_INVALID;
      }
    }
    clReleaseMemObject(partials);  // freed once the enqueued kernels are done with it
    return status;
  }
""".replace("@O@", o).replace("@NF@", str(nf))
    src += r"""  if (n == 0) return KGB_OK;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, dense ? "pointwise_dense" : "pointwise_strided", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, @O@);
  err |= set_inputs(stream, k, 2, in, @O@);
  cl_uint at = 3 + 2 * kInputs;
  if (!dense) {
    err |= clSetKernelArg(k, at++, sizeof g, &g);
    err |= clSetKernelArg(k, at++, sizeof grank, &grank);
  }
  err |= clSetKernelArg(k, at++, sizeof n, &n);
  err |= set_fields(k, at, fields, f64);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t global = groups_of(n, local);
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
""".replace("@O@", o)
    return src



# ---------------------------------------------------------- plain OpenCL baseline
def emit_baseline(op_name, op):
    """One work-item per element (mean/sum: one work-item per chunk, then one adds the chunks)."""
    n_in = len(op["inputs"])
    reduce = bool(op.get("loss"))
    ndims = (n_in + 1 + 3) // 4  # Dims structs of four stride sets each
    tensors = ["out"] + ["in%d" % k for k in range(n_in)]
    # Args::dims passes each Dims followed by its rank.
    dims_params = "".join(", Dims g%d, int rank%s" % (j, "" if j == 0 else j) for j in range(ndims))
    offs = ["o%d" % k for k in range(4 * ndims)]
    decl = "  long " + ", ".join(offs) + ";\n"
    calls = "".join("  offsets(&g%d, rank, i, &%s, &%s, &%s, &%s);\n" % (j, *offs[4 * j:4 * j + 4]) for j in range(ndims))
    in_params = "".join(", __global const S* in%d, long off%d" % (k, k) for k in range(n_in))
    args = ", ".join("(present & %du) ? LOAD(in%d[off%d + o%d]) : (C)1" % (1 << k, k, k, k + 1) for k in range(n_in))
    fnames = "".join(", " + name for name, _, _ in op["fields"])
    kp = cl_kernel_params(op)
    element = cl_element(op)
    cl = element + "\n"
    cl += ("__kernel void pointwise(__global S* out, long out_off%s, uint present%s, long n%s) {\n"
           "  long i = get_global_id(0);\n  if (i >= n) return;\n%s%s"
           "  out[out_off + o0] = STORE(element(%s%s));\n}\n") % (in_params, dims_params, kp, decl, calls, args, fnames)
    if reduce:
        cl += ("__kernel void loss_chunks(__global C* partial, long chunk%s, uint present%s, long n%s) {\n"
               "  long c = get_global_id(0);\n  C acc = 0;\n"
               "  for (long i = c * chunk; i < n && i < (c + 1) * chunk; ++i) {\n"
               "%s%s    acc += LOAD(STORE(element(%s%s)));\n  }\n  partial[c] = acc;\n}\n"
               "__kernel void loss_total(__global const C* partial, int count, C divisor, __global S* out, long out_off) {\n"
               "  if (get_global_id(0) != 0) return;\n  C acc = 0;\n"
               "  for (int c = 0; c < count; ++c) acc += partial[c];\n  out[out_off] = STORE(acc / divisor);\n}\n"
               ) % (in_params, dims_params, kp, "  " + decl, "".join("  " + l + "\n" for l in calls.splitlines()),
                    args, fnames)
    o = out_name(op)
    src = "// aten/%s, plain OpenCL baseline: %s.\n" % (op_name, op["summary"])
    src += ("// One work-item per element with the broadcast strides of every input%s.\n"
            % ("; mean/sum: one work-item per chunk of elements, then one work-item adds the chunks" if reduce else ""))
    src += "// Generated by scripts/taskgen/aten_loss.py.\n"
    src += '#include "kgb_entries/aten/%s.h"\n#include "loss_plain.h"\n\n' % op_name
    src += "namespace kgb::opencl::plain {\nnamespace {\n\n"
    src += "constexpr int kInputs = %d;\n\n" % n_in
    src += 'const std::string kSource = std::string(dtype_prelude()) + R"CLC(\n' + cl + ')CLC";\n\n'
    src += "struct Fields {\n%s\n};\n\n" % (fields_struct(op, "double") or "  // none")
    src += host_helpers(op)
    src += "\n"
    src += "int %s(%s) {\n" % (op_name, entry_decl(op_name, op).split("(", 1)[1][:-1])
    src += host_prologue(dict(op, _lang="cuda")) + "\n"
    src += "  (void)stream;\n" if False else ""
    src += "  const int reduction_mode = %s;\n" % reduction_arg(op)
    src += r"""  const loss::Space<kInputs> sp = loss::space_of<kInputs>(@O@, in, reduction_mode != 0);
  const char* options = loss::float_options(dtype);
  const bool f64 = dtype == KGB_F64;
@F64@  auto add_fields = [&](Args& args) {
"""
    for name, kind, _ in op["fields"]:
        if kind == "real":
            src += "    if (f64) args.value(static_cast<cl_double>(fields.%s));\n    else args.value(static_cast<cl_float>(fields.%s));\n" % (name, name)
        else:
            src += "    args.value(static_cast<cl_int>(fields.%s));\n" % name
    if not op["fields"]:
        src += "    (void)args;  // no scalar arguments\n"
    src += "  };\n"
    if reduce:
        src += "  if (reduction_mode) return loss::reduce<kInputs>(stream, kSource, options, in, @O@, sp, reduction_mode, f64, add_fields);\n"
    src += "  return loss::pointwise<kInputs>(stream, kSource, options, in, @O@, sp, add_fields);\n}\n\n}  // namespace\nKGB_BASELINE(aten_@OP@, kKind, @OP@);\n}  // namespace kgb::opencl::plain\n"
    uses_f64 = reduce or any(kind == "real" for _, kind, _ in op["fields"])
    src = src.replace("@F64@", ("" if uses_f64 else "  (void)f64;\n") + ("  (void)fields;\n" if not op["fields"] else ""))
    src = src.replace("@O@", o).replace("@ND@", str(ndims)).replace("@OP@", op_name)
    return src


def main(argv):
    names = argv[1:] or list(OPS)
    for name in names:
        op = OPS[name]
        base = os.path.join(ROOT, "benchmark", "tasks", "aten", name, "solutions")
        os.makedirs(base, exist_ok=True)
        cpu = emit_cpu(name, op)
        cpu = cpu.replace("namespace {\n\nconstexpr int kInputs",
                          "namespace {\n\n" + (host_helpers(op) + "\n" if host_helpers(op) else "") + "constexpr int kInputs", 1)
        gpu = lambda hip: emit_gpu(name, op, hip).replace(  # noqa: E731
            "namespace {\n\nconstexpr int kInputs", "namespace {\n\n" + (host_helpers(op) + "\n" if host_helpers(op) else "") + "constexpr int kInputs", 1)
        files = {"cpu.cpp": cpu, "cuda.cu": gpu(False), "hip.hip": gpu(True), "opencl.cpp": emit_opencl(name, op)}
        for fname, text in files.items():
            with open(os.path.join(base, fname), "w") as f:
                f.write(text)
        with open(os.path.join(ROOT, "backends", "opencl", "baselines", "aten", name + ".cpp"), "w") as f:
            f.write(emit_baseline(name, op))
        print("wrote", base)


if __name__ == "__main__":
    main(sys.argv)
