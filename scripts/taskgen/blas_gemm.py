#!/usr/bin/env python3
"""Generates the batched GEMM tasks of the BLAS source, and the solutions of
blas/sgemm_ex, from one skeleton.

cuBLAS's batched GEMM routines (cublas?gemmStridedBatched, ?gemmBatched and
their _64 twins) differ only in the precision letter (S f32, D f64, C c64,
Z c128, H f16) and in how the batch arrives: a strided batch is one rank-3
view per matrix, [rows, cols, batch] with strides [1, ld, stride]; a
pointer-array batch is a tensor list of 2-D column-major items. The _64
routines take 64-bit sizes and are the same task at 32-bit-representable
sizes (TASKS-V2 section 6). This script writes, per routine, every file of
the task:

  benchmark/tasks/blas/<id>/spec.json, reference.cpp
  benchmark/tasks/blas/<id>/solutions/{cpu.cpp,cuda.cu,hip.hip,opencl.cpp}
  backends/{cpu,cuda,opencl}/baselines/blas/<id>.cpp

The solutions share one tuned core per backend (templates/gemm/): packed,
register-blocked FMA micro-kernels over (item, row block) work units on the
CPU; shared-memory tiled kernels with register tiles and a batch grid
dimension on CUDA/HIP and OpenCL (plus a local-memory-free kernel for CPU
OpenCL devices). The CUDA solutions of the 16-bit routines (hgemm_*, and
sgemm_ex's f16/bf16 inputs) add a tensor-core core (WMMA 16x16x16 MMAs with
float accumulators, 128x128 or 64x64 block tiles) for k >= 16; the HIP ports
keep the SIMT kernel. Each emitted file is standalone and carries only its own
precision's code. Template lines starting with `@[<python expression>]` are
kept when the expression holds (names: cplx, half, real, strided, batched,
dbl, ex, hip, tc = the tensor-core path: CUDA and half or ex); `{{NAME}}` is
substituted. The references share
benchmark/tasks/blas/gemm_reference.h, the CPU baselines
backends/cpu/baselines/blas/gemm_batch.h, the OpenCL baselines
backends/opencl/baselines/blas/gemm_batch.h (all written by hand).

blas/sgemm_ex (cublasSgemmEx: one 2-D product, A and B of one storage type in
f32, f16, bf16 or i8, C in f32 or the inputs' 16-bit type, float compute)
takes only its four solutions from here (mode "ex" of the templates: the same
cores as templates over the input and output storage types, one instantiation
per type combination, dispatched on the dtypes at run time); its spec.json,
reference.cpp and baselines are written by hand, as their multi-dtype cases
and conversions share nothing with the batched tasks' files.

Usage: scripts/taskgen/blas_gemm.py [--check] [task ...]
  --check  compare instead of writing; exit 1 if a file differs (ctest taskgen.blas_gemm).
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates", "gemm")

# Precision letter -> types and numerics.
PREC = {
    "s": dict(dtype="f32", kgb="KGB_F32", real="float", cplx=False, half=False, letter="S", cl="float",
              cuda_elem="float", cublas_t="float", clblast_t="float", cblas="cblas_sgemm", elem_bytes=4,
              words="single-precision real (f32, float)", tol={"atol": 1e-4}),
    "d": dict(dtype="f64", kgb="KGB_F64", real="double", cplx=False, half=False, letter="D", cl="double",
              cuda_elem="double", cublas_t="double", clblast_t="double", cblas="cblas_dgemm", elem_bytes=8,
              words="double-precision real (f64, double)", tol={"atol": 1e-12, "rtol": {"f64": 1e-12}}),
    "c": dict(dtype="c64", kgb="KGB_C64", real="float", cplx=True, half=False, letter="C", cl="float2",
              cuda_elem="float2", cublas_t="cuComplex", clblast_t="std::complex<float>", cblas="cblas_cgemm",
              elem_bytes=8, words="single-precision complex (c64: two floats, real part first, like cuComplex)",
              tol={"atol": 1e-4}),
    "z": dict(dtype="c128", kgb="KGB_C128", real="double", cplx=True, half=False, letter="Z", cl="double2",
              cuda_elem="double2", cublas_t="cuDoubleComplex", clblast_t="std::complex<double>", cblas="cblas_zgemm",
              elem_bytes=16, words="double-precision complex (c128: two doubles, real part first, like cuDoubleComplex)",
              tol={"atol": 1e-12, "rtol": {"c128": 1e-12}}),
    "h": dict(dtype="f16", kgb="KGB_F16", real="float", cplx=False, half=True, letter="H", cl="half",
              cuda_elem="__half", cublas_t="__half", clblast_t="cl_half", cblas=None, elem_bytes=2,
              words="half-precision real (f16, IEEE binary16)", tol={"atol": 2e-3}),
}

# Task id -> (precision, batch mode, 64-bit API).
TASKS = {
    "sgemm_strided_batched": ("s", "strided", False),
    "dgemm_strided_batched": ("d", "strided", False),
    "cgemm_strided_batched": ("c", "strided", False),
    "zgemm_strided_batched": ("z", "strided", False),
    "dgemm_strided_batched_64": ("d", "strided", True),
    "cgemm_strided_batched_64": ("c", "strided", True),
    "zgemm_batched": ("z", "batched", False),
    "sgemm_batched_64": ("s", "batched", True),
    "hgemm_strided_batched": ("h", "strided", False),
    "hgemm_batched": ("h", "batched", False),
    "sgemm_ex": ("s", "ex", False),  # solutions only (see the header)
}


def routine(task):
    p, mode, wide = TASKS[task]
    if mode == "ex":
        return "cublasSgemmEx"
    return "cublas%sgemm%s%s" % (PREC[p]["letter"], "StridedBatched" if mode == "strided" else "Batched", "_64" if wide else "")


def entry(task):
    return "kgb_blas_" + task


def fill(template, ctx, subs, what):
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
        raise SystemExit("unfilled placeholders in %s: %s" % (what, sorted(set(left))))
    return text


def template(name):
    with open(os.path.join(TEMPLATES, name)) as f:
        return f.read()


# ---- spec.json --------------------------------------------------------------

OPS = {"N": "CUBLAS_OP_N", "T": "CUBLAS_OP_T", "C": "CUBLAS_OP_C"}

# Correctness cases shared by every routine: (name, batch, M, N, K, opA, opB,
# real alpha, real beta, complex alpha, complex beta, options). Options:
# pad {A, B, C}: columns padded (ld > rows); expect_zero; strided / batched:
# cases or layouts only one batch mode has (explicit rank-3 strides with a
# batch stride of 0 or gaps between items; repeated list items).
CASES = [
    ("nn_beta0_padded_c", 3, 7, 5, 9, "N", "N", 1, 0, [1, 0], [0, 0], dict(pad={"C": 2})),
    ("nn_alpha_beta", 4, 17, 9, 5, "N", "N", 1.5, -0.5, [0.5, -1.5], [2, 0.25], {}),
    ("tn_padded_a", 2, 19, 23, 29, "T", "N", -1, 2, [-1, 0.5], [1, 0], dict(pad={"A": 3})),
    ("nt_padded_b_and_c", 3, 12, 10, 33, "N", "T", 0.5, 1, [0, 1], [0.5, -0.5], dict(pad={"B": 2, "C": 4})),
    ("tt_beta0_padded", 5, 21, 14, 9, "T", "T", 2, 0, [-0.5, 0.75], [0, 0], dict(pad={"A": 1, "B": 5, "C": 3})),
    ("cc_ops", 3, 8, 6, 11, "C", "C", 1, 0.25, [2, -1], [0.25, 0], {}),
    ("cn_padded_a", 2, 9, 13, 6, "C", "N", -0.75, 0, [1, 1], [0, 0], dict(pad={"A": 2})),
    ("tc_transpose_vs_conjugate", 2, 8, 6, 11, "T", "C", 1, -1, [1, 1], [0, -1], {}),
    ("stride0_a_shared", 5, 6, 7, 8, "N", "N", 1, 1, [1, 1], [1, 0], dict(strided={"A": [1, 6, 0]})),
    ("stride0_b_transposed", 4, 10, 3, 12, "T", "T", -2, 0, [0.5, -0.5], [0, 0], dict(strided={"B": [1, 4, 0]})),
    ("gapped_items_offset_b", 3, 9, 6, 5, "N", "N", 0.5, 1.5, [0.5, 0], [1.5, 0.5],
     dict(strided={"A": [1, 9, 52], "C": [1, 11, 79], "B_offset": 5})),
    ("repeated_a_pointer", 5, 6, 7, 8, "N", "N", 1, 1, [1, 1], [1, 0], dict(batched={"Aarray": "repeat"})),
    ("repeated_a_and_b_transposed", 4, 10, 3, 12, "T", "T", -2, 0, [0.5, -0.5], [0, 0],
     dict(batched={"Aarray": "repeat", "Barray": "repeat"}, pad={"B": 1})),
    ("many_small_padded", 64, 4, 4, 4, "N", "N", 1, 0, [1, 0], [0, 0], dict(pad={"A": 1, "C": 3})),
    ("alpha0_scales_c", 3, 6, 5, 7, "N", "N", 0, 0.5, [0, 0], [0.5, -0.5], {}),
    ("alpha0_beta0_zeroes_c", 2, 9, 8, 3, "N", "T", 0, 0, [0, 0], [0, 0], dict(expect_zero=True, pad={"C": 2})),
    ("k0_scales_c", 2, 5, 3, 0, "N", "N", 1, 0.75, [1, 0], [0.75, 0.25], {}),
    ("k0_beta0_zeroes_c", 3, 4, 6, 0, "T", "N", 1, 0, [1, 0], [0, 0], dict(expect_zero=True)),
    ("dot_1x1", 6, 1, 1, 64, "T", "N", 1, 0, [1, 0], [0, 0], {}),
    ("empty_n", 2, 5, 0, 3, "N", "N", 1, 1, [1, 0], [1, 0], {}),
    ("empty_batch", 0, 3, 3, 3, "N", "N", 1, 0, [1, 0], [0, 0], dict(expect_zero=True)),
    ("single_item", 1, 33, 17, 40, "N", "T", 1, -1, [1, 0], [-1, 0], {}),
    ("tn_multi_block", 3, 70, 45, 257, "T", "N", 0.25, 1, [0.25, 0.5], [1, 0], dict(pad={"A": 2})),
]

# Performance cases per (precision, mode): (name, batch, M, N, K, opA, opB,
# real alpha, real beta, cpu). GPU cases are sized so cuBLAS takes >= 50 us on
# an H200; the "cpu" case (0.07-0.3 GFLOP) takes 10-100 ms for OpenBLAS on two
# cores and stays within the runner's deadline for CLBlast on PoCL.
ATTENTION_F32 = [  # per-head attention products (32 heads, 1024 tokens, head 128): scores Q K^T, then P V
    ("b32_1024x1024x128_tn_scores", 32, 1024, 1024, 128, "T", "N", 1, 0, False),
    ("b32_128x1024x1024_nn_pv", 32, 128, 1024, 1024, "N", "N", 1, 0, False),
]
PERF = {
    ("s", "strided"): ATTENTION_F32 + [("b8_256x256x256_nn_beta1", 8, 256, 256, 256, "N", "N", 1, 1, True)],
    ("d", "strided"): ATTENTION_F32 + [("b8_256x256x256_nt", 8, 256, 256, 256, "N", "T", 1, 0, True)],
    ("c", "strided"): [("b32_512x512x128_tn_scores", 32, 512, 512, 128, "T", "N", 1, 0, False),
                       ("b16_1024x1024x256_nc", 16, 1024, 1024, 256, "N", "C", 1, 0, False),
                       ("b4_192x192x192_cn_beta1", 4, 192, 192, 192, "C", "N", 1, 1, True)],
    ("z", "strided"): [("b32_512x512x128_tn_scores", 32, 512, 512, 128, "T", "N", 1, 0, False),
                       ("b16_1024x1024x256_nc", 16, 1024, 1024, 256, "N", "C", 1, 0, False),
                       ("b4_192x192x192_cn_beta1", 4, 192, 192, 192, "C", "N", 1, 1, True)],
    ("h", "strided"): [("b32_1024x1024x1024_nn", 32, 1024, 1024, 1024, "N", "N", 1, 0, False),
                       ("b64_1024x1024x128_tn_scores", 64, 1024, 1024, 128, "T", "N", 1, 0, False),
                       ("b4_256x256x128_nn_beta1", 4, 256, 256, 128, "N", "N", 1, 1, True)],
    ("z", "batched"): [("b64_256x256x256_nn", 64, 256, 256, 256, "N", "N", 1, 0, False),
                       ("b1024_64x64x64_nc_beta1", 1024, 64, 64, 64, "N", "C", 1, 1, False),
                       ("b4_192x192x192_cn", 4, 192, 192, 192, "C", "N", 1, 0, True)],
    ("s", "batched"): [("b256_256x256x256_nn", 256, 256, 256, 256, "N", "N", 1, 0, False),
                       ("b4096_32x32x32_nt_beta1", 4096, 32, 32, 32, "N", "T", 1, 1, False),
                       ("b8_256x256x256_tn", 8, 256, 256, 256, "T", "N", 1, 0, True)],
    ("h", "batched"): [("b64_1024x1024x512_nn", 64, 1024, 1024, 512, "N", "N", 1, 0, False),
                       ("b4096_64x64x64_nt_beta1", 4096, 64, 64, 64, "N", "T", 1, 1, False),
                       ("b4_256x256x128_nn", 4, 256, 256, 128, "N", "N", 1, 0, True)],
}


def scalar_json(prec, real_value, complex_value):
    return complex_value if PREC[prec]["cplx"] else real_value


def names(mode):
    return ("A", "B", "C") if mode == "strided" else ("Aarray", "Barray", "Carray")


def case_json(task, case, perf=False):
    prec, mode, _ = TASKS[task]
    if perf:
        name, batch, m, n, k, oa, ob, alpha, beta, cpu = case
        calpha, cbeta, opts = [alpha, 0], [beta, 0], {}
    else:
        name, batch, m, n, k, oa, ob, alpha, beta, calpha, cbeta, opts = case
        if "strided" in opts and mode != "strided" or "batched" in opts and mode != "batched":
            return None
    if not PREC[prec]["cplx"]:
        if perf and ("C" in (oa, ob)):
            oa, ob = oa.replace("C", "T"), ob.replace("C", "T")
    j = {"name": name}
    if not perf and opts.get("expect_zero"):
        j["expect_zero"] = True
    if perf and cpu:
        j["cpu"] = True
    j["dims"] = {"batch": batch, "M": m, "N": n, "K": k}
    a, b, c = names(mode)
    a_shape = ["M", "K"] if oa == "N" else ["K", "M"]
    b_shape = ["K", "N"] if ob == "N" else ["N", "K"]
    j["scalars"] = {"transa": OPS[oa], "transb": OPS[ob], "alpha": scalar_json(prec, alpha, calpha),
                    "beta": scalar_json(prec, beta, cbeta)}
    pads = opts.get("pad", {})
    if mode == "strided":
        shapes, layouts = {}, {}
        if oa != "N":
            shapes["A"] = a_shape + ["batch"]
        if ob != "N":
            shapes["B"] = b_shape + ["batch"]
        for t in "ABC":
            if t in pads:
                layouts[t] = {"kind": "transposed", "pad": pads[t]}
        for t, strides in opts.get("strided", {}).items():
            if t == "B_offset":
                layouts["B"] = {"kind": "transposed", "offset": strides}
            else:
                layouts[t] = {"kind": "strides", "strides": strides}
        if shapes:
            j["shapes"] = shapes
        if layouts:
            j["layouts"] = layouts
    else:
        lists = {}
        for t, lname, shape, default in (("A", a, a_shape, ["M", "K"]), ("B", b, b_shape, ["K", "N"]), ("C", c, ["M", "N"], ["M", "N"])):
            entry = {}
            if shape != default:
                entry["shape"] = shape
            if t in pads:
                entry["layout"] = {"kind": "transposed", "pad": pads[t]}
            if opts.get("batched", {}).get(lname):
                entry["aliasing"] = opts["batched"][lname]
            if entry:
                lists[lname] = entry
        if lists:
            j["lists"] = lists
    return j


def description(task):
    prec, mode, wide = TASKS[task]
    P = PREC[prec]
    r = routine(task)
    a, b, c = names(mode)
    cx = P["cplx"]
    parts = []
    intro = ("Implement %s: for every b in 0..batch-1, C[b] := alpha * op(A[b]) * op(B[b]) + beta * C[b] for %s "
             "matrices in column-major storage. " % (r, P["words"]))
    if cx:
        intro += ("op(X) = X for CUBLAS_OP_N (0), X^T (transpose, no conjugation) for CUBLAS_OP_T (1), and X^H = conj(X)^T "
                  "(conjugate transpose: every element's imaginary part negated) for CUBLAS_OP_C (2). ")
    else:
        intro += ("op(X) = X for CUBLAS_OP_N (0) and X^T for CUBLAS_OP_T (1) and for CUBLAS_OP_C (2) (the conjugate transpose "
                  "of a real matrix is its transpose). ")
    intro += ("op(A[b]) is m x k, op(B[b]) is k x n, C[b] is m x n; m, n, k, alpha, beta, the ops, the leading dimensions"
              "%s are the same for every b, as in cuBLAS." % (" and the batch strides" if mode == "strided" else ""))
    if wide:
        intro += (" %s is the 64-bit-size API (int64_t m, n, k, leading dimensions%s and batch count); here every size fits in "
                  "32 bits, the views carry 64-bit sizes and strides either way." % (r, ", strides" if mode == "strided" else ""))
    parts.append(intro)
    if cx:
        parts.append("alpha and beta are kgb_complex values ({double re, im}); both parts are exactly representable in %s, and "
                     "cuBLAS computes with them as %s: convert them. Complex products are the textbook ones: "
                     "(a + bi)(c + di) = (ac - bd) + (ad + bc)i." % (P["real"], P["cublas_t"]))
    elif P["half"]:
        parts.append("alpha and beta come as double and are exactly representable in f16 (cuBLAS takes them as __half). Each f16 "
                     "element is a uint16_t bit pattern (IEEE binary16); kgb_half.h (kgb_f16_to_float, kgb_float_to_f16) "
                     "converts on the CPU, cuda_fp16.h / hip_fp16.h on GPUs, vload_half / vstore_half in OpenCL C.")
    else:
        parts.append("alpha and beta come as double; they are exactly representable in %s: convert them." % P["real"])
    if mode == "strided":
        parts.append(
            "How the matrices arrive: A, B and C are rank-3 kgb_tensor views of dtype %s holding the whole batch, sizes = "
            "[rows, cols, batch] and strides = [1, ld, stride] in elements: element (i, j) of matrix b is "
            "data[i + j * ld + b * stride] (%s), exactly what %s(handle, transa, transb, m, n, k, &alpha, A, lda, strideA, "
            "B, ldb, strideB, &beta, C, ldc, strideC, batchCount) receives with lda = A->strides[1], strideA = "
            "A->strides[2], and so on. ld >= rows (larger when the columns are padded). The batch stride of A or B may be 0 "
            "(every product reads the same matrix) or leave gaps between matrices; C's stride never makes two items overlap. "
            "The dimensions follow from the views: batch = C->sizes[2], m = C->sizes[0], n = C->sizes[1]; A has sizes "
            "[m, k, batch] when transa == CUBLAS_OP_N and [k, m, batch] otherwise; B has sizes [k, n, batch] when transb == "
            "CUBLAS_OP_N and [n, k, batch] otherwise. For a matrix with at most one column the value of ld is irrelevant, "
            "and so is the batch stride when batch <= 1. A view may start inside its allocation (storage_offset)."
            % (P["kgb"], "cuBLAS's own formula" if True else "", r))
    else:
        parts.append(
            "How the matrices arrive: Aarray, Barray and Carray are kgb_tensor_list values of `count` = batch items (the same "
            "count in all three). Item b of each list is a 2-D kgb_tensor of dtype %s describing matrix b as stored, "
            "column-major: sizes = [rows, cols], strides = [1, ld] with ld >= rows (larger when the columns are padded), so "
            "element (i, j) of A[b] is at ((const %s*)Aarray->items[b]->data)[i + j * lda] with lda = "
            "Aarray->items[b]->strides[1]. Every item of one list has the same sizes and strides. The dimensions follow from "
            "the views: m = C[b]->sizes[0], n = C[b]->sizes[1]; A[b] has sizes [m, k] when transa == CUBLAS_OP_N and [k, m] "
            "otherwise; B[b] has sizes [k, n] when transb == CUBLAS_OP_N and [n, k] otherwise. For a matrix with at most one "
            "column the value of ld is irrelevant."
            % (P["kgb"], {"s": "float", "d": "double", "c": "cuComplex", "z": "cuDoubleComplex", "h": "uint16_t"}[prec]))
        parts.append(
            "The matrices of a list are NOT back to back: the items share one allocation, placed in no particular order with "
            "poisoned gaps between them, so item b + 1 never starts where item b ends; always go through each item's own data "
            "pointer. Several items of Aarray (or of Barray) may be the very same matrix (the same data pointer repeated, which "
            "cuBLAS allows for A and B); the items of Carray are always distinct. On CUDA and HIP, `device_data` of each list is "
            "an array of `count` device pointers in device memory, device_data[b] == items[b]->data: exactly the array of "
            "matrix pointers %s reads on the device (the descriptors in `items` are host memory; read the common sizes, "
            "strides and ops from items[0] on the host). On the CPU device_data is the same array in host memory. On OpenCL "
            "device_data is NULL: call kgb_cl_tensor_list_buffers(stream, list, &storage, &offsets) to get the one buffer "
            "holding all items of a list and a device buffer of `count` cl_long element offsets, offsets[b] being the position "
            "of element (0, 0) of item b inside that buffer (what a kernel takes instead of an array of pointers); do not "
            "release either buffer." % r)
    if cx:
        parts.append("In full: C[b](i, j) = alpha * sum over l = 0..k-1 of opA(i, l) * opB(l, j) + beta * C[b](i, j), where "
                     "opA(i, l) = A[b](i, l) for CUBLAS_OP_N, A[b](l, i) for CUBLAS_OP_T and conj(A[b](l, i)) for CUBLAS_OP_C; "
                     "likewise for B.")
    else:
        parts.append("In full: C[b](i, j) = alpha * sum over l = 0..k-1 of opA(i, l) * opB(l, j) + beta * C[b](i, j), with "
                     "opA(i, l) = A[b](i, l) for CUBLAS_OP_N and A[b](l, i) otherwise, likewise for B.")
    if cx:
        nan_rule = ("- beta == 0 (both parts zero): the previous contents of C are not read at all. C arrives with NaN elements "
                    "in some positions; with beta == 0 they must not reach the result (0 * NaN would be NaN). With beta != 0 "
                    "they propagate (NaN in both parts of the result).")
    else:
        nan_rule = ("- beta == 0: the previous contents of C are not read at all. C arrives with NaN and infinities in some "
                    "positions; with beta == 0 they must not reach the result (0 * NaN would be NaN). With beta != 0 they "
                    "propagate as IEEE arithmetic says (beta * NaN = NaN, beta * Inf = +-Inf).")
    rules = ["BLAS rules that are checked:", nan_rule,
             "- alpha == 0: A and B are not read; C := beta * C (all zeros when beta == 0 too).",
             "- k == 0: the sum is empty; C := beta * C.",
             "- m == 0, n == 0 or batch == 0: nothing to do."]
    parts.append("\n".join(rules))
    if prec == "s":
        num = ("Compute as sgemm does: in float, products and sums in single precision in any order (the tolerance grows with "
               "k: atol 1e-4 * k plus rtol 1e-5). TF32 tensor cores are not allowed (their 10-bit mantissa fails that "
               "tolerance).")
    elif prec == "c":
        num = ("Compute in float as cgemm does: products and sums in single precision, in any order (the tolerance grows with "
               "k: atol 1e-4 * k plus rtol 1.3e-6, on the real and imaginary parts separately).")
    elif prec == "d":
        num = ("Compute in double (any summation order; the tolerance is atol 1e-12 * k plus rtol 1e-12, far below what single "
               "precision achieves).")
    elif prec == "z":
        num = ("Compute in double complex (any summation order; the tolerance is atol 1e-12 * k plus rtol 1e-12 on the real and "
               "imaginary parts separately, far below what single precision achieves).")
    else:
        num = ("Numerics: the expected result is computed in fp64 and rounded once to f16. cuBLAS's Hgemm accumulates in f16, "
               "so the tolerance admits that: atol 2e-3 * (k + 4) plus rtol 1e-3. Accumulating in float (f16 inputs, float "
               "products and sums, rounded to f16 once at the end) is well inside it; f16 tensor-core MMAs with an f16 or "
               "f32 accumulator are allowed. Inputs are standard normal values.")
    parts.append(num)
    if mode == "strided":
        parts.append("C is read and written in place (inout): write exactly the m x n x batch elements of the C view and nothing "
                     "else in its storage (the padding between columns and any gap between items must stay untouched). A, B "
                     "and C never overlap.")
    else:
        parts.append("Carray is read and written in place: write exactly the m x n elements of each C[b] view and nothing else "
                     "(the column padding and the gaps between items must stay untouched). Aarray and Barray are read-only and "
                     "never overlap Carray.")
    return "\n\n".join(parts)


def spec(task):
    prec, mode, wide = TASKS[task]
    P = PREC[prec]
    r = routine(task)
    a, b, c = names(mode)
    cx = P["cplx"]
    enum = {"CUBLAS_OP_N": 0, "CUBLAS_OP_T": 1, "CUBLAS_OP_C": 2}
    op_desc = "N = %s, T = %s^T, C = conj(%s)^T" if cx else "N = %s, T and C = %s^T"
    scal = "complex" if cx else "float64"
    if mode == "strided":
        tensors = [
            {"name": "A", "tensor": "input", "dtype": P["dtype"], "shape": ["M", "K", "batch"], "layout": {"kind": "transposed"}},
            {"name": "B", "tensor": "input", "dtype": P["dtype"], "shape": ["K", "N", "batch"], "layout": {"kind": "transposed"}},
            {"name": "C", "tensor": "inout", "dtype": P["dtype"], "shape": ["M", "N", "batch"], "layout": {"kind": "transposed"}},
        ]
    else:
        tensors = [
            {"name": "Aarray", "tensor_list": "input", "dtype": P["dtype"], "count": "batch", "shape": ["M", "K"],
             "pointer_array": True, "layout": {"kind": "transposed"}},
            {"name": "Barray", "tensor_list": "input", "dtype": P["dtype"], "count": "batch", "shape": ["K", "N"],
             "pointer_array": True, "layout": {"kind": "transposed"}},
            {"name": "Carray", "tensor_list": "inout", "dtype": P["dtype"], "count": "batch", "shape": ["M", "N"],
             "pointer_array": True, "layout": {"kind": "transposed"}},
        ]
    tensors[2]["dist"] = ({"kind": "custom", "generator": "blas/%s/%s" % (task, c)} if cx else
                          {"kind": "normal", "mean": 0, "stddev": 1, "special": 0.03})
    params = [
        {"name": "transa", "scalar": "enum", "values": enum, "description": "op(A): " + (op_desc % (("A",) * (3 if cx else 2)))},
        {"name": "transb", "scalar": "enum", "values": enum, "description": "op(B): " + (op_desc % (("B",) * (3 if cx else 2)))},
        {"name": "alpha", "scalar": scal, "description": "scale of op(A) * op(B); 0 means A and B are not read"},
        tensors[0], tensors[1],
        {"name": "beta", "scalar": scal, "description": "scale of the previous C; 0 means C is not read"},
        tensors[2],
    ]
    correctness = [j for j in (case_json(task, cs) for cs in CASES) if j]
    performance = [case_json(task, cs, perf=True) for cs in PERF[(prec, mode)]]
    tol = {"reduction": "K + 4" if P["half"] else "K"}
    tol.update(P["tol"])
    flops = ("8" if cx else "2") + " * batch * M * N * K"
    letter = P["letter"].lower()
    if P["half"]:
        banned = ["cublasHgemm*", "cublasGemm*", "cublasLt*", "cblas_*", "hgemm*", "clblast::", "at::", "torch::", "Eigen::"]
    else:
        banned = ["cblas_%sgemm*" % letter, "%sgemm_" % letter, "cublas%sgemm*" % P["letter"], "cublasGemm*", "cublasLt*",
                  "clblast::", "at::", "torch::", "Eigen::"]
    mode_words = "a strided batch of rank-3 views" if mode == "strided" else "arrays of matrix pointers"
    kind = {"s": "single-precision", "d": "double-precision", "c": "single-precision complex",
            "z": "double-precision complex", "h": "half-precision"}[prec]
    summary = "Batched %s GEMM over %s, column-major BLAS/cuBLAS semantics%s (%s)" % (
        kind, mode_words, "; op C conjugates" if cx else "", r)
    return {
        "id": "blas/" + task,
        "upstream_name": "cublas::" + r,
        "summary": summary,
        "description": description(task),
        "params": params,
        "correctness": correctness,
        "performance": performance,
        "tolerance": tol,
        "check": "elementwise",
        "deterministic": True,
        "flops": flops,
        "bytes": "batch * (M * K + K * N + if(beta, 2, 1) * M * N) * %d" % P["elem_bytes"],
        "banned_apis": banned,
        "baseline": "openblas" if not P["half"] else "plain",
    }


def dump_spec(obj):
    """spec.json in the repository's style: one key per line, cases one per line."""
    def compact(v):
        return json.dumps(v, separators=(", ", ": "))
    lines = ["{"]
    keys = list(obj)
    for i, k in enumerate(keys):
        v = obj[k]
        end = "," if i + 1 < len(keys) else ""
        if k in ("params", "correctness", "performance"):
            lines.append('  "%s": [' % k)
            for n, item in enumerate(v):
                lines.append("    " + compact(item) + ("," if n + 1 < len(v) else ""))
            lines.append("  ]" + end)
        else:
            lines.append('  "%s": %s%s' % (k, compact(v) if not isinstance(v, str) else json.dumps(v), end))
    lines.append("}")
    return "\n".join(lines)


# ---- reference.cpp ----------------------------------------------------------

def reference(task):
    prec, mode, _ = TASKS[task]
    P = PREC[prec]
    cx = P["cplx"]
    fn = "strided_batched_gemm" if mode == "strided" else "pointer_batched_gemm"
    how = ("on rank-3 [rows, cols, batch] views with strides [1, ld, stride] (batch stride 0 repeats a matrix)"
           if mode == "strided" else "over the items of the pointer arrays (repeated A or B items are read again)")
    lines = [
        "// Reference for blas/%s (%s): C[b] = alpha * op(A[b]) op(B[b]) + beta * C[b]" % (task, routine(task)),
        "// %s," % how,
        "// column-major cuBLAS semantics on logical indices, accumulated in %s and" % ("complex<double>" if cx else "fp64"),
        "// rounded once to %s, with the BLAS rules (gemm_reference.h)." % P["dtype"],
        "// Generated by scripts/taskgen/blas_gemm.py.",
        '#include "../gemm_reference.h"',
        '#include "kgb/reference.h"',
        "",
        "namespace {",
        "",
        "namespace br = kgb::blas_reference;",
        "",
        "void %s_reference(kgb::RefArgs& args) {" % task,
    ]
    if cx:
        lines.append('  br::%s(args, args.complex_scalar("alpha"), args.complex_scalar("beta"), "blas/%s");' % (fn, task))
    else:
        lines.append('  br::%s(args, args.scalar("alpha"), args.scalar("beta"), "blas/%s");' % (fn, task))
    lines += ["}", "", "}  // namespace", "", 'KGB_REGISTER_REFERENCE("blas/%s", %s_reference);' % (task, task)]
    if cx:
        lines.append('KGB_REGISTER_GENERATOR("blas/%s/%s", kgb::blas_reference::complex_with_nans);' % (task, names(mode)[2]))
    return "\n".join(lines)


# ---- baselines ----------------------------------------------------------------

def signature(task, lang="c"):
    prec, mode, _ = TASKS[task]
    scal = "kgb_complex" if PREC[prec]["cplx"] else "double"
    if mode in ("strided", "ex"):
        mats = ("const kgb_tensor* A", "const kgb_tensor* B", "kgb_tensor* C")
    else:
        mats = ("const kgb_tensor_list* Aarray", "const kgb_tensor_list* Barray", "kgb_tensor_list* Carray")
    return "int transa, int transb, %s alpha, %s, %s, %s beta, %s, kgb_stream stream" % (scal, mats[0], mats[1], scal, mats[2])


def cpu_baseline(task):
    prec, mode, _ = TASKS[task]
    P = PREC[prec]
    cx, half = P["cplx"], P["half"]
    r = routine(task)
    etype = {"s": "float", "d": "double", "c": "c64", "z": "c128", "h": "uint16_t"}[prec]
    ent = "blas_" + task
    fn = task + ("_plain" if half else "_openblas")
    out = ["// Baseline for blas/%s (%s) on the CPU: " % (task, r)]
    if half:
        out[0] += "a labelled plain loop"
        out += ["// written here (CBLAS has no f16 GEMM): one item after another, products and",
                "// sums in float, rounded to f16 once (gemm_batch.h). Also the oracle of the",
                "// reference's cross-check, which only reaches the fp64 reference's agreement",
                "// with a float-accumulating loop (no vendor f16 GEMM exists on the CPU)."]
    else:
        out[0] += "a labelled loop of OpenBLAS"
        out += ["// %s calls, one per item (CBLAS has no batched GEMM in Debian's" % P["cblas"],
                "// OpenBLAS 0.3.21)%s. Also the CBLAS oracle of the reference's cross-check."
                % (", each on the item's slice of the rank-3 views" if mode == "strided" else
                   ", each through the item's own data pointer and leading dimension")]
    out += ["// Generated by scripts/taskgen/blas_gemm.py.", "#include <cstdint>", "", '#include "gemm_batch.h"',
            '#include "kgb_baseline.h"', '#include "kgb_entries/blas/%s.h"' % task, "", "namespace {", "",
            "using namespace kgb::cpu_blas;", ""]
    if cx:
        out += ["struct %s {" % etype, "  %s re, im;" % P["real"], "};", ""]
    a, b, c = names(mode)
    out.append("int %s(%s) {" % (fn, signature(task).replace(", kgb_stream stream", ", kgb_stream")))
    if mode == "strided":
        out += ["  if (A->dtype != %s || B->dtype != %s || C->dtype != %s) return KGB_ERR_UNSUPPORTED;" % ((P["kgb"],) * 3),
                "  if (A->rank != 3 || B->rank != 3 || C->rank != 3) return KGB_ERR_INVALID;",
                "  const int64_t batch = C->sizes[2];"]
    else:
        out += ["  if (Aarray->count != Carray->count || Barray->count != Carray->count) return KGB_ERR_INVALID;",
                "  const int64_t batch = Carray->count;",
                "  if (batch > 0 && (Aarray->items[0]->dtype != %s || Barray->items[0]->dtype != %s || Carray->items[0]->dtype != %s))"
                % ((P["kgb"],) * 3), "    return KGB_ERR_UNSUPPORTED;"]
    if cx:
        out += ["  const %s alpha{static_cast<%s>(alpha_d.re), static_cast<%s>(alpha_d.im)};" % (etype, P["real"], P["real"]),
                "  const %s beta{static_cast<%s>(beta_d.re), static_cast<%s>(beta_d.im)};" % (etype, P["real"], P["real"]),
                "  const bool read_c = beta.re != 0 || beta.im != 0;"]
    elif half:
        out += ["  const float alpha = static_cast<float>(alpha_d), beta = static_cast<float>(beta_d);"]
    else:
        out += ["  const %s alpha = static_cast<%s>(alpha_d), beta = static_cast<%s>(beta_d);" % ((P["real"],) * 3),
                "  const bool read_c = beta != 0;"]
    out.append("  for (int64_t i = 0; i < batch; ++i) {  // the labelled loop: one call per item")
    if mode == "strided":
        out += ["    const kgb_tensor ai = strided_item(A, i), bi = strided_item(B, i);",
                "    kgb_tensor ci = strided_item(C, i);"]
        args = "&ai, &bi, &ci"
    else:
        args = "Aarray->items[i], Barray->items[i], Carray->items[i]"
    if half:
        out.append("    hgemm_2d_float(transa, transb, alpha, %s);" % args.replace(", &ci", ", beta, &ci").replace(
            ", Carray->items[i]", ", beta, Carray->items[i]"))
    else:
        call = "%s(CblasColMajor, ta, tb, m, n, k, %s, pa, lda, pb, ldb, %s, pc, ldc);" % (
            P["cblas"], "&alpha" if cx else "alpha", "&beta" if cx else "beta")
        out += ["    gemm_2d<%s>(transa, transb, %s, read_c," % (etype, args),
                "                [&](CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, const %s* pa, blasint lda," % etype,
                "                    const %s* pb, blasint ldb, %s* pc, blasint ldc) { %s });" % (etype, etype, call)]
    out += ["  }", "  return KGB_OK;", "}", "", "}  // namespace", "",
            'KGB_BASELINE(%s, "%s", %s);' % (ent, "plain (written here)" if half else "openblas", fn)]
    text = "\n".join(out)
    return text.replace("double alpha,", "double alpha_d,").replace("double beta,", "double beta_d,").replace(
        "kgb_complex alpha,", "kgb_complex alpha_d,").replace("kgb_complex beta,", "kgb_complex beta_d,")


def cuda_baseline(task):
    prec, mode, wide = TASKS[task]
    P = PREC[prec]
    cx, half = P["cplx"], P["half"]
    r = routine(task)
    T = P["cublas_t"]
    ity = "int64_t" if wide else "int"
    out = ["// blas/%s on CUDA: %s itself%s, alpha and beta as %s in host" % (
        task, r, " (64-bit sizes)" if wide else "", T),
           "// pointer mode, the enum values as cublasOperation_t (they keep cuBLAS's numbers)%s." % (
               "; the rank-3 views give ld (strides[1]) and the batch stride (strides[2])" if mode == "strided" else
               "; the lists' device pointer arrays (device_data) as the matrix arrays"),
           "// Generated by scripts/taskgen/blas_gemm.py."]
    if half:
        out.append("#include <cuda_fp16.h>")
        out.append("")
    out += ['#include "../cublas_common.h"', '#include "kgb_entries/blas/%s.h"' % task, "", "namespace {", "",
            "using namespace kgb::cuda_blas;", ""]
    fn = task + "_cublas"
    out.append("int %s(%s) {" % (fn, signature(task)))
    out += ["  cublasHandle_t h = handle_on(stream);", "  if (!h) return KGB_ERR_INVALID;"]
    if mode == "strided":
        out += ["  if (A->dtype != %s || B->dtype != %s || C->dtype != %s) return KGB_ERR_UNSUPPORTED;" % ((P["kgb"],) * 3),
                "  if (A->rank != 3 || B->rank != 3 || C->rank != 3) return KGB_ERR_INVALID;",
                "  const int64_t batch = C->sizes[2];",
                "  const kgb_tensor* a0 = A;", "  const kgb_tensor* b0 = B;", "  const kgb_tensor* c0 = C;"]
    else:
        out += ["  const int64_t batch = Carray->count;",
                "  if (Aarray->count != batch || Barray->count != batch) return KGB_ERR_INVALID;",
                "  if (batch == 0) return KGB_OK;",
                "  if (!Aarray->device_data || !Barray->device_data || !Carray->device_data) return KGB_ERR_INVALID;",
                "  const kgb_tensor* a0 = Aarray->items[0];", "  const kgb_tensor* b0 = Barray->items[0];",
                "  const kgb_tensor* c0 = Carray->items[0];",
                "  if (a0->dtype != %s || b0->dtype != %s || c0->dtype != %s) return KGB_ERR_UNSUPPORTED;" % ((P["kgb"],) * 3)]
    out += ["  const int64_t m = c0->sizes[0], n = c0->sizes[1], k = transa ? a0->sizes[0] : a0->sizes[1];",
            "  if (m == 0 || n == 0 || batch == 0) return KGB_OK;",
            "  const int64_t lda = column_major_ld(a0), ldb = column_major_ld(b0), ldc = column_major_ld(c0);",
            "  if (lda == 0 || ldb == 0 || ldc == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout"]
    if cx:
        mk = "make_cuComplex" if prec == "c" else "make_cuDoubleComplex"
        cast = "static_cast<float>" if prec == "c" else ""
        out += ["  const %s alpha_v = %s(%s(alpha.re), %s(alpha.im));" % (T, mk, cast, cast),
                "  const %s beta_v = %s(%s(beta.re), %s(beta.im));" % (T, mk, cast, cast)]
    elif half:
        out += ["  const __half alpha_v = __double2half(alpha), beta_v = __double2half(beta);"]
    else:
        out += ["  const %s alpha_v = %s, beta_v = %s;" % (T, "static_cast<float>(alpha)" if prec == "s" else "alpha",
                                                         "static_cast<float>(beta)" if prec == "s" else "beta")]
    I = lambda e: "static_cast<%s>(%s)" % (ity, e)
    head = "      h, static_cast<cublasOperation_t>(transa), static_cast<cublasOperation_t>(transb), %s, %s, %s, &alpha_v," % (
        I("m"), I("n"), I("k"))
    if mode == "strided":
        L = "long long" if not wide else "int64_t"
        S = lambda e: "static_cast<%s>(%s)" % (L, e)
        out += ["  // The batch stride is irrelevant for one item; cuBLAS still wants a value.",
                "  const int64_t sa = a0->strides[2], sb = b0->strides[2], sc = batch > 1 ? c0->strides[2] : ldc * n;",
                "  const cublasStatus_t st = %s(" % r, head,
                "      static_cast<const %s*>(A->data), %s, %s, static_cast<const %s*>(B->data), %s, %s, &beta_v," % (
                    T, I("lda"), S("sa"), T, I("ldb"), S("sb")),
                "      static_cast<%s*>(C->data), %s, %s, %s);" % (T, I("ldc"), S("sc"), I("batch"))]
    else:
        out += ["  const cublasStatus_t st = %s(" % r, head,
                "      reinterpret_cast<const %s* const*>(Aarray->device_data), %s," % (T, I("lda")),
                "      reinterpret_cast<const %s* const*>(Barray->device_data), %s, &beta_v," % (T, I("ldb")),
                "      reinterpret_cast<%s* const*>(Carray->device_data), %s, %s);" % (T, I("ldc"), I("batch"))]
    out += ["  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;", "}", "", "}  // namespace", "",
            'KGB_BASELINE(blas_%s, "cublas", %s);' % (task, fn)]
    return "\n".join(out)


CL_PREAMBLE = {
    "s": ("typedef float ELEM; typedef float ACC; typedef float SCAL; typedef float REAL;\n"
          "#define LOAD(p, i, s) ((p)[i])\n#define MUL(x, y) ((x) * (y))\n#define ZERO 0.0f\n#define STORE(p, i, v) ((p)[i] = (v))\n"),
    "d": ("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
          "typedef double ELEM; typedef double ACC; typedef double SCAL; typedef double REAL;\n"
          "#define LOAD(p, i, s) ((p)[i])\n#define MUL(x, y) ((x) * (y))\n#define ZERO 0.0\n#define STORE(p, i, v) ((p)[i] = (v))\n"),
    "c": ("typedef float2 ELEM; typedef float2 ACC; typedef float2 SCAL; typedef float REAL;\n"
          "#define LOAD(p, i, s) ((float2)((p)[i].x, (s) * (p)[i].y))\n"
          "#define MUL(x, y) ((float2)((x).x * (y).x - (x).y * (y).y, (x).x * (y).y + (x).y * (y).x))\n"
          "#define ZERO ((float2)(0.0f, 0.0f))\n#define STORE(p, i, v) ((p)[i] = (v))\n"),
    "z": ("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
          "typedef double2 ELEM; typedef double2 ACC; typedef double2 SCAL; typedef double REAL;\n"
          "#define LOAD(p, i, s) ((double2)((p)[i].x, (s) * (p)[i].y))\n"
          "#define MUL(x, y) ((double2)((x).x * (y).x - (x).y * (y).y, (x).x * (y).y + (x).y * (y).x))\n"
          "#define ZERO ((double2)(0.0, 0.0))\n#define STORE(p, i, v) ((p)[i] = (v))\n"),
    "h": ("typedef half ELEM; typedef float ACC; typedef float SCAL; typedef float REAL;\n"
          "#define LOAD(p, i, s) vload_half(i, p)\n#define MUL(x, y) ((x) * (y))\n#define ZERO 0.0f\n"
          "#define STORE(p, i, v) vstore_half_rte(v, i, p)\n"),
}
# OpenCL C types of the solutions: ELEM (storage), ACC (one accumulator),
# REAL, LOAD(p, i, sign) (sign -1 conjugates), MAC(acc, x, y) (acc += x * y),
# MUL, ADD, ZERO, STORE(p, i, v).
CL_TYPES = {
    "s": ("typedef float ELEM;\ntypedef float ACC;\ntypedef float REAL;\n#define LOAD(p, i, s) ((p)[i])\n"
          "#define MAC(acc, x, y) acc = fma(x, y, acc)\n#define MUL(x, y) ((x) * (y))\n#define ZERO 0.0f\n"
          "#define STORE(p, i, v) ((p)[i] = (v))"),
    "d": ("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\ntypedef double ELEM;\ntypedef double ACC;\ntypedef double REAL;\n"
          "#define LOAD(p, i, s) ((p)[i])\n#define MAC(acc, x, y) acc = fma(x, y, acc)\n#define MUL(x, y) ((x) * (y))\n"
          "#define ZERO 0.0\n#define STORE(p, i, v) ((p)[i] = (v))"),
    "c": ("typedef float2 ELEM; /* (real, imaginary) */\ntypedef float2 ACC;\ntypedef float REAL;\n"
          "#define LOAD(p, i, s) ((float2)((p)[i].x, (s) * (p)[i].y)) /* s = -1 conjugates */\n"
          "#define MAC(acc, u, v) acc = (float2)(fma((u).x, (v).x, fma(-(u).y, (v).y, (acc).x)), fma((u).x, (v).y, fma((u).y, (v).x, (acc).y)))\n"
          "#define MUL(u, v) ((float2)((u).x * (v).x - (u).y * (v).y, (u).x * (v).y + (u).y * (v).x))\n"
          "#define ZERO ((float2)(0.0f, 0.0f))\n#define STORE(p, i, v) ((p)[i] = (v))"),
    "z": ("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\ntypedef double2 ELEM; /* (real, imaginary) */\ntypedef double2 ACC;\n"
          "typedef double REAL;\n#define LOAD(p, i, s) ((double2)((p)[i].x, (s) * (p)[i].y)) /* s = -1 conjugates */\n"
          "#define MAC(acc, u, v) acc = (double2)(fma((u).x, (v).x, fma(-(u).y, (v).y, (acc).x)), fma((u).x, (v).y, fma((u).y, (v).x, (acc).y)))\n"
          "#define MUL(u, v) ((double2)((u).x * (v).x - (u).y * (v).y, (u).x * (v).y + (u).y * (v).x))\n"
          "#define ZERO ((double2)(0.0, 0.0))\n#define STORE(p, i, v) ((p)[i] = (v))"),
    "h": ("typedef half ELEM; /* f16 storage: only vload_half / vstore_half touch it (no cl_khr_fp16 needed) */\n"
          "typedef float ACC;\ntypedef float REAL;\n#define LOAD(p, i, s) vload_half(i, p)\n"
          "#define MAC(acc, x, y) acc = fma(x, y, acc)\n#define MUL(x, y) ((x) * (y))\n#define ZERO 0.0f\n"
          "#define STORE(p, i, v) vstore_half_rte(v, i, p)"),
}
# blas/sgemm_ex: A/B's and C's storage types picked by build options (kgb
# dtype numbers), every element widened exactly to float; LOAD_C reads C.
CL_TYPES_EX = (
    "/* A and B are IN, C is OUT, picked by -DIN_DT / -DOUT_DT (kgb dtypes: 6 f32, 4 f16, 5 bf16, 1 i8). f16 storage is\n"
    "   only touched by vload_half / vstore_half (no cl_khr_fp16 needed); bf16 is the upper half of a float. */\n"
    "typedef float ACC;\ntypedef float REAL;\n"
    "#ifndef IN_DT\n#define IN_DT 6\n#endif\n#ifndef OUT_DT\n#define OUT_DT 6\n#endif\n"
    "#if IN_DT == 4\ntypedef half IN;\n#define LOAD(p, i, s) vload_half(i, p)\n"
    "#elif IN_DT == 5\ntypedef ushort IN;\n#define LOAD(p, i, s) as_float((uint)(p)[i] << 16)\n"
    "#elif IN_DT == 1\ntypedef char IN;\n#define LOAD(p, i, s) ((float)(p)[i])\n"
    "#else\ntypedef float IN;\n#define LOAD(p, i, s) ((p)[i])\n#endif\n"
    "/* float -> bf16 bits, rounded to nearest even; a NaN stays a quiet NaN. */\n"
    "ushort bf16_bits(float f) {\n  const uint x = as_uint(f);\n"
    "  if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x40u);\n"
    "  return (ushort)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);\n}\n"
    "#if OUT_DT == 4\ntypedef half OUT;\n#define LOAD_C(p, i) vload_half(i, p)\n#define STORE(p, i, v) vstore_half_rte(v, i, p)\n"
    "#elif OUT_DT == 5\ntypedef ushort OUT;\n#define LOAD_C(p, i) as_float((uint)(p)[i] << 16)\n"
    "#define STORE(p, i, v) ((p)[i] = bf16_bits(v))\n"
    "#else\ntypedef float OUT;\n#define LOAD_C(p, i) ((p)[i])\n#define STORE(p, i, v) ((p)[i] = (v))\n#endif\n"
    "#define MAC(acc, x, y) acc = fma(x, y, acc)\n#define MUL(x, y) ((x) * (y))\n#define ZERO 0.0f")
CL_HOST = {"s": ("cl_float", "cl_float"), "d": ("cl_double", "cl_double"), "c": ("cl_float2", "cl_float"),
           "z": ("cl_double2", "cl_double"), "h": ("cl_float", "cl_float")}


def opencl_baseline(task):
    prec, mode, _ = TASKS[task]
    P = PREC[prec]
    cx, half = P["cplx"], P["half"]
    r = routine(task)
    scal_t, real_t = CL_HOST[prec]
    ct = P["clblast_t"]
    clb = "GemmStridedBatched" if mode == "strided" else "GemmBatched"
    how = "strided" if mode == "strided" else "listed"
    out = ["// blas/%s baseline on OpenCL (%s): CLBlast's %s<%s>" % (task, r, clb, ct),
           "// where CLBlast is installed and the call suits it (column-major views, k >= 1,",
           "// alpha != 0%s); otherwise the plain kernel of gemm_batch.h written here" % (", a device with fp16" if half else ""),
           "// (one work-item per element of every C[b]).",
           "// Generated by scripts/taskgen/blas_gemm.py."]
    if cx:
        out.append("#include <complex>")
    out += ["#include <string>", "", '#include "gemm_batch.h"', '#include "kgb_entries/blas/%s.h"' % task]
    if half:
        out += ["", "#ifdef KGB_HAVE_CLBLAST", "#include <clblast_half.h>", "#endif"]
    out += ["", "namespace kgb::opencl::plain {", "namespace {", "",
            "const std::string kSource = gemm_batch_source(R\"CLC(" + CL_PREAMBLE[prec].rstrip("\n") + ")CLC\");", ""]
    sig = signature(task)
    a, b, c = names(mode)
    call_args = "transa, transb, alpha, %s, %s, beta, %s, stream" % (a, b, c)
    out.append("int %s_plain(%s) {" % (task, sig))
    if prec in ("d", "z"):
        out.append("  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;")
    if cx:
        out += ["  const %s al = {{static_cast<%s>(alpha.re), static_cast<%s>(alpha.im)}};" % (scal_t, real_t, real_t),
                "  const %s be = {{static_cast<%s>(beta.re), static_cast<%s>(beta.im)}};" % (scal_t, real_t, real_t),
                "  const %s sa = transa == 2 ? -1 : 1, sb = transb == 2 ? -1 : 1;  // op C conjugates" % real_t,
                "  return plain_%s(stream, kSource, transa, transb, al, %s, %s, be, %s, al.s[0] == 0 && al.s[1] == 0," % (how, a, b, c),
                "  %s be.s[0] != 0 || be.s[1] != 0, sa, sb);" % (" " * len("return plain_%s(" % how))]
    else:
        out += ["  const %s al = static_cast<%s>(alpha), be = static_cast<%s>(beta);" % (scal_t, scal_t, scal_t),
                "  return plain_%s(stream, kSource, transa, transb, al, %s, %s, be, %s, al == 0, be != 0, %s(1), %s(1));" % (
                    how, a, b, c, real_t, real_t)]
    out += ["}", "", "#ifdef KGB_HAVE_CLBLAST", "int %s_clblast(%s) {" % (task, sig)]
    if cx:
        out += ["  const %s al(static_cast<%s>(alpha.re), static_cast<%s>(alpha.im));" % (ct, P["real"], P["real"]),
                "  const %s be(static_cast<%s>(beta.re), static_cast<%s>(beta.im));" % (ct, P["real"], P["real"]),
                "  const auto status = clblast_%s(stream, transa, transb, al, al == %s(0), %s, %s, be, %s);" % (how, ct, a, b, c)]
    elif half:
        out += ["  const cl_half al = FloatToHalf(static_cast<float>(alpha)), be = FloatToHalf(static_cast<float>(beta));",
                "  const auto status = clblast_%s(stream, transa, transb, al, alpha == 0, %s, %s, be, %s);" % (how, a, b, c),
                "  // Devices without cl_khr_fp16 (PoCL on most CPUs) take the plain kernel, which needs no fp16 arithmetic.",
                "  if (status == clblast::StatusCode::kNoHalfPrecision) return %s_plain(%s);" % (task, call_args)]
    else:
        out += ["  const %s al = static_cast<%s>(alpha), be = static_cast<%s>(beta);" % ((ct,) * 3),
                "  const auto status = clblast_%s(stream, transa, transb, al, al == 0, %s, %s, be, %s);" % (how, a, b, c)]
    out += ["  if (!status) return %s_plain(%s);" % (task, call_args),
            "  return *status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;", "}",
            'KGB_BASELINE(blas_%s, "clblast", %s_clblast);' % (task, task), "#else",
            "KGB_BASELINE(blas_%s, kKind, %s_plain);" % (task, task), "#endif", "", "}  // namespace",
            "}  // namespace kgb::opencl::plain"]
    return "\n".join(out)


# ---- solutions --------------------------------------------------------------

def solution_context(task):
    prec, mode, _ = TASKS[task]
    P = PREC[prec]
    ctx = dict(cplx=P["cplx"], half=P["half"], real=not P["cplx"], strided=mode == "strided", batched=mode == "batched",
               dbl=P["real"] == "double", ex=mode == "ex")
    formula = "for every item b, C[b] := alpha * op(A[b]) op(B[b]) + beta * C[b]"
    if mode == "ex":
        formula = "C := alpha * op(A) op(B) + beta * C"
    kinds = {"s": "f32 (float)", "d": "f64 (double)", "c": "c64 (complex float, real part first)",
             "z": "c128 (complex double, real part first)", "h": "f16 storage, float compute, rounded to f16 once"}
    subs = dict(ID="blas/" + task, ROUTINE=routine(task), FORMULA=formula, ENTRY=entry(task), SIGNATURE=signature(task),
                KGB_DTYPE=P["kgb"], REAL=P["real"], MM="ps" if P["real"] == "float" else "pd",
                MMT="" if P["real"] == "float" else "d",
                TYPE_LINE=("A and B f32, f16, bf16 or i8, C f32 (or the inputs' f16 / bf16), float compute, column-major, "
                           "op C = op T." if mode == "ex" else
                           "%s, column-major, %s." % (kinds[prec], "op C conjugates" if P["cplx"] else "op C = op T")),
                CUDA_ELEM=P["cuda_elem"], CL_TYPES=CL_TYPES_EX if mode == "ex" else CL_TYPES[prec],
                A_SIGN="p.a_sign" if P["cplx"] else "Real(1)", B_SIGN="p.b_sign" if P["cplx"] else "Real(1)",
                CL_REAL="cl_" + P["real"], CL_SCALAR=CL_HOST[prec][0])
    return ctx, subs


def solutions(task):
    ctx, subs = solution_context(task)
    out = {}
    out["cpu.cpp"] = fill(template("cpu.cpp.in"), ctx, subs, task + " cpu")
    cuda = fill(template("gpu.cu.in"), dict(ctx, hip=False, tc=ctx["half"] or ctx["ex"]), subs, task + " cuda")
    hip = fill(template("gpu.cu.in"), dict(ctx, hip=True, tc=False), subs, task + " hip")
    out["cuda.cu"] = cuda
    out["hip.hip"] = hip
    out["opencl.cpp"] = fill(template("opencl.cpp.in"), ctx, subs, task + " opencl")
    return out


def outputs(task):
    d = os.path.join(ROOT, "benchmark", "tasks", "blas", task)
    if TASKS[task][1] == "ex":  # solutions only (see the header)
        return {os.path.join(d, "solutions", name): text for name, text in solutions(task).items()}
    files = {os.path.join(d, "spec.json"): dump_spec(spec(task)), os.path.join(d, "reference.cpp"): reference(task),
             os.path.join(ROOT, "backends", "cpu", "baselines", "blas", task + ".cpp"): cpu_baseline(task),
             os.path.join(ROOT, "backends", "cuda", "baselines", "blas", task + ".cpp"): cuda_baseline(task),
             os.path.join(ROOT, "backends", "opencl", "baselines", "blas", task + ".cpp"): opencl_baseline(task)}
    for name, text in solutions(task).items():
        files[os.path.join(d, "solutions", name)] = text
    return files


def main(argv):
    check = "--check" in argv
    tasks = [a for a in argv if not a.startswith("--")] or list(TASKS)
    differ = []
    for task in tasks:
        if task not in TASKS:
            raise SystemExit("unknown task %s (known: %s)" % (task, ", ".join(TASKS)))
        for path, text in outputs(task).items():
            text = text.rstrip("\n") + "\n"
            if check:
                if not os.path.exists(path) or open(path).read() != text:
                    differ.append(os.path.relpath(path, ROOT))
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    if differ:
        print("out of date (run scripts/taskgen/blas_gemm.py):\n  " + "\n  ".join(differ))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
