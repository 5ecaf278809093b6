"""The vendor-library baselines of the GEMV tasks, emitted by gemv.py: OpenBLAS
through CBLAS on the CPU (backends/cpu/baselines/blas/gemv.h; batched routines
as a labelled loop), the cuBLAS routine itself on CUDA, CLBlast's Gemv on
OpenCL (backends/opencl/baselines/blas/gemv.h; batched routines as a labelled
loop of calls, a plain kernel where CLBlast cannot take the call)."""


def _names(mode):
    return ("Aarray", "xarray", "yarray") if mode == "batched" else ("A", "x", "y")


def _signature(p, mode, an, xn, yn):
    s = "kgb_complex" if p["complex"] else "double"
    if mode == "batched":
        return ("int trans, %s alpha_in, const kgb_tensor_list* %s, const kgb_tensor_list* %s, %s beta_in, "
                "kgb_tensor_list* %s, kgb_stream stream" % (s, an, xn, s, yn))
    return "int trans, %s alpha_in, const kgb_tensor* A, const kgb_tensor* x, %s beta_in, kgb_tensor* y, kgb_stream stream" % (s, s)


def _checks(p, mode, an, xn, yn, indent="  "):
    k = p["kgb"]
    lines = []
    if mode == "batched":
        lines += ["const int64_t batch = %s->count;" % yn,
                  "if (%s->count != batch || %s->count != batch) return KGB_ERR_INVALID;" % (an, xn),
                  "if (batch == 0) return KGB_OK;",
                  "const kgb_tensor* A = %s->items[0];" % an,
                  "const kgb_tensor* x = %s->items[0];" % xn,
                  "const kgb_tensor* y = %s->items[0];" % yn]
    lines.append("if (A->dtype != %s || x->dtype != %s || y->dtype != %s) return KGB_ERR_UNSUPPORTED;" % (k, k, k))
    if mode == "strided":
        lines.append("const int64_t batch = A->sizes[2];")
    return "\n".join(indent + l for l in lines)


def cpu_baseline(name, letter, mode, p):
    an, xn, yn = _names(mode)
    t = {"s": "float", "d": "double", "c": "c64", "z": "c128"}[letter]
    if p["complex"]:
        r = p["real"]
        conv = "const %s alpha{static_cast<%s>(alpha_in.re), static_cast<%s>(alpha_in.im)};\n" \
               "  const %s beta{static_cast<%s>(beta_in.re), static_cast<%s>(beta_in.im)};" % (t, r, r, t, r, r)
    else:
        conv = "const %s alpha = static_cast<%s>(alpha_in), beta = static_cast<%s>(beta_in);" % (t, t, t)
    what = {"single": "one cblas_%sgemv call" % letter,
            "strided": "a loop of cblas_%sgemv calls, one per item at its strides (CBLAS has no\n// batched GEMV): labelled \"openblas loop\"" % letter,
            "batched": "a loop of cblas_%sgemv calls, one per item of the pointer arrays through the\n// item's own data pointer (CBLAS has no batched GEMV): labelled \"openblas loop\"" % letter}[mode]
    if mode == "single":
        body = """  const GemvShape s{trans, A->sizes[0], A->sizes[1], gemv_ld(A), x->strides[0], y->strides[0]};
  if (s.lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  gemv(s, alpha, static_cast<const %(t)s*>(A->data), static_cast<const %(t)s*>(x->data), beta, static_cast<%(t)s*>(y->data));""" % {"t": t}
    elif mode == "strided":
        body = """  const GemvShape s{trans, A->sizes[0], A->sizes[1], gemv_ld(A), x->strides[0], y->strides[0]};
  if (s.lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  for (int64_t b = 0; b < batch; ++b)
    gemv(s, alpha, static_cast<const %(t)s*>(A->data) + b * A->strides[2], static_cast<const %(t)s*>(x->data) + b * x->strides[1],
         beta, static_cast<%(t)s*>(y->data) + b * y->strides[1]);""" % {"t": t}
    else:
        body = """  const GemvShape s{trans, A->sizes[0], A->sizes[1], gemv_ld(A), x->strides[0], y->strides[0]};
  if (s.lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  for (int64_t b = 0; b < batch; ++b)
    gemv(s, alpha, static_cast<const %(t)s*>(%(an)s->items[b]->data), static_cast<const %(t)s*>(%(xn)s->items[b]->data), beta,
         static_cast<%(t)s*>(%(yn)s->items[b]->data));""" % {"t": t, "an": an, "xn": xn, "yn": yn}
    kind = "openblas" if mode == "single" else "openblas loop"
    return """// Baseline for blas/%(name)s (emitted by scripts/taskgen/gemv.py): OpenBLAS,
// %(what)s, column-major, the views' signed strides as the increments
// (gemv.h). Also the CBLAS oracle of the reference's cross-check.
#include <cstdint>

#include "gemv.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/%(name)s.h"

namespace {

using namespace kgb::cpu_blas;

int %(name)s_openblas(%(sig)s) {
  (void)stream;
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
%(checks)s
  %(conv)s
%(body)s
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_%(name)s, "%(kind)s", %(name)s_openblas);
""" % {"name": name, "what": what, "sig": _signature(p, mode, an, xn, yn), "checks": _checks(p, mode, an, xn, yn),
       "conv": conv, "body": body, "kind": kind}


def cuda_baseline(name, letter, mode, cublas, p):
    an, xn, yn = _names(mode)
    t = {"s": "float", "d": "double", "c": "cuComplex", "z": "cuDoubleComplex"}[letter]
    if p["complex"]:
        mk = "make_cuComplex" if letter == "c" else "make_cuDoubleComplex"
        r = p["real"]
        conv = ("const %s alpha = %s(static_cast<%s>(alpha_in.re), static_cast<%s>(alpha_in.im));\n"
                "  const %s beta = %s(static_cast<%s>(beta_in.re), static_cast<%s>(beta_in.im));" % (t, mk, r, r, t, mk, r, r))
    else:
        conv = "const %s alpha = static_cast<%s>(alpha_in), beta = static_cast<%s>(beta_in);" % (t, t, t)
    routine = cublas.replace("_v2", "")
    wide = routine.endswith("_64")
    I = "int64_t" if wide else "int"
    shape = """  const int64_t m = A->sizes[0], n = A->sizes[1], lda = column_major_ld(A);
  if (lda == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  if (m == 0 || n == 0) return KGB_OK;  // BLAS's quick return: y untouched
  const int64_t len_x = trans == 0 ? n : m, len_y = trans == 0 ? m : n;
  const int64_t incx = x->strides[0], incy = y->strides[0];"""
    c = lambda v: "static_cast<%s>(%s)" % (I, v)
    if mode == "single":
        call = """  return status(%(r)s(h, static_cast<cublasOperation_t>(trans), %(m)s, %(n)s, &alpha, static_cast<const %(t)s*>(A->data),
                          %(lda)s, lowest(static_cast<const %(t)s*>(x->data), len_x, incx), %(incx)s, &beta,
                          lowest(static_cast<%(t)s*>(y->data), len_y, incy), %(incy)s));"""
    elif mode == "strided":
        call = """  return status(%(r)s(h, static_cast<cublasOperation_t>(trans), %(m)s, %(n)s, &alpha, static_cast<const %(t)s*>(A->data),
                          %(lda)s, A->strides[2], lowest(static_cast<const %(t)s*>(x->data), len_x, incx), %(incx)s,
                          x->strides[1], &beta, lowest(static_cast<%(t)s*>(y->data), len_y, incy), %(incy)s, y->strides[1],
                          %(batch)s));"""
    else:
        call = """  (void)len_x;
  (void)len_y;
  if (incx <= 0 || incy <= 0) return KGB_ERR_UNSUPPORTED;  // the pointer arrays hold element 0, not the lowest address
  if (!%(an)s->device_data || !%(xn)s->device_data || !%(yn)s->device_data) return KGB_ERR_INVALID;
  return status(%(r)s(h, static_cast<cublasOperation_t>(trans), %(m)s, %(n)s, &alpha,
                          reinterpret_cast<const %(t)s* const*>(%(an)s->device_data), %(lda)s,
                          reinterpret_cast<const %(t)s* const*>(%(xn)s->device_data), %(incx)s, &beta,
                          reinterpret_cast<%(t)s* const*>(%(yn)s->device_data), %(incy)s, %(batch)s));"""
    call = call % {"r": routine, "t": t, "m": c("m"), "n": c("n"), "lda": c("lda"), "incx": c("incx"), "incy": c("incy"),
                   "batch": c("batch"), "an": an, "xn": xn, "yn": yn}
    what = {"single": "%s" % routine, "strided": "%s (strideA, stridex, stridey as given by the\n// views' last strides)" % routine,
            "batched": "%s on the lists' device pointer arrays (device_data), one lda,\n// incx, incy per call as cuBLAS takes them" % routine}[mode]
    return """// blas/%(name)s on CUDA (emitted by scripts/taskgen/gemv.py): %(what)s,
// host pointer mode; a negative increment passes the lowest address the vector touches, as BLAS
// expects.
#include <cstdint>

#include "../cublas_common.h"
#include "kgb_entries/blas/%(name)s.h"

namespace {

using namespace kgb::cuda_blas;

template <class T>
T* lowest(T* element0, int64_t len, int64_t inc) {
  return len > 0 && inc < 0 ? element0 + (len - 1) * inc : element0;
}

int status(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID; }

int %(name)s_cublas(%(sig)s) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
%(checks)s
%(shape)s
  %(conv)s
%(call)s
}

}  // namespace

KGB_BASELINE(blas_%(name)s, "cublas", %(name)s_cublas);
""" % {"name": name, "what": what, "sig": _signature(p, mode, an, xn, yn), "checks": _checks(p, mode, an, xn, yn),
       "shape": shape, "conv": conv, "call": call}


def opencl_baseline(name, letter, mode, p):
    an, xn, yn = _names(mode)
    t = {"s": "float", "d": "double", "c": "std::complex<float>", "z": "std::complex<double>"}[letter]
    if p["complex"]:
        r = p["real"]
        conv = ("const %s alpha(static_cast<%s>(alpha_in.re), static_cast<%s>(alpha_in.im));\n"
                "  const %s beta(static_cast<%s>(beta_in.re), static_cast<%s>(beta_in.im));" % (t, r, r, t, r, r))
    else:
        conv = "const %s alpha = static_cast<%s>(alpha_in), beta = static_cast<%s>(beta_in);" % (t, t, t)
    shape = """  const gemv::Shape s{trans, A->sizes[0], A->sizes[1], A->strides[0], A->strides[1], x->strides[0], y->strides[0]};"""
    if mode == "single":
        body = """  gemv::Item it;
  if (!gemv::locate(stream, A, &it.a, &it.ao) || !gemv::locate(stream, x, &it.x, &it.xo) || !gemv::locate(stream, y, &it.y, &it.yo))
    return KGB_ERR_INVALID;
  return gemv::call(stream, s, it, alpha, beta);"""
        kind = "gemv::kKindGemv"
        what = "CLBlast's Gemv<%s>" % t
    elif mode == "strided":
        body = """  gemv::Item first;
  if (!gemv::locate(stream, A, &first.a, &first.ao) || !gemv::locate(stream, x, &first.x, &first.xo) ||
      !gemv::locate(stream, y, &first.y, &first.yo))
    return KGB_ERR_INVALID;
  for (int64_t b = 0; b < batch; ++b) {
    gemv::Item it = first;
    it.ao += b * A->strides[2];
    it.xo += b * x->strides[1];
    it.yo += b * y->strides[1];
    if (const int rc = gemv::call(stream, s, it, alpha, beta); rc != KGB_OK) return rc;
  }
  return KGB_OK;"""
        kind = "gemv::kKindGemvLoop"
        what = "a loop of CLBlast Gemv<%s> calls, one per item at its strides\n// (CLBlast has no batched GEMV): labelled \"clblast loop\"" % t
    else:
        body = """  for (int64_t b = 0; b < batch; ++b) {
    gemv::Item it;
    if (!gemv::locate(stream, %(an)s->items[b], &it.a, &it.ao) || !gemv::locate(stream, %(xn)s->items[b], &it.x, &it.xo) ||
        !gemv::locate(stream, %(yn)s->items[b], &it.y, &it.yo))
      return KGB_ERR_INVALID;
    if (const int rc = gemv::call(stream, s, it, alpha, beta); rc != KGB_OK) return rc;
  }
  return KGB_OK;""" % {"an": an, "xn": xn, "yn": yn}
        kind = "gemv::kKindGemvLoop"
        what = "a loop of CLBlast Gemv<%s> calls, one per item of the lists\n// (CLBlast has no batched GEMV): labelled \"clblast loop\"" % t
    return """// blas/%(name)s baseline (emitted by scripts/taskgen/gemv.py): %(what)s,
// column-major; the plain kernel of gemv.h (written here) where CLBlast
// cannot take a call (negative increments, alpha == 0, beta == 0 with a
// stepped y) or is not installed.
#include <complex>
#include <cstdint>

#include "gemv.h"
#include "kgb_entries/blas/%(name)s.h"

namespace kgb::opencl::plain {
namespace {

int %(name)s_baseline(%(sig)s) {
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
%(checks)s
%(shape)s
  %(conv)s
%(body)s
}

KGB_BASELINE(blas_%(name)s, %(kind)s, %(name)s_baseline);

}  // namespace
}  // namespace kgb::opencl::plain
""" % {"name": name, "what": what, "sig": _signature(p, mode, an, xn, yn), "checks": _checks(p, mode, an, xn, yn),
       "shape": shape, "conv": conv, "body": body, "kind": kind}


def baselines(name, letter, mode, cublas, p):
    return {"cpu": cpu_baseline(name, letter, mode, p), "cuda": cuda_baseline(name, letter, mode, cublas, p),
            "opencl": opencl_baseline(name, letter, mode, p)}
