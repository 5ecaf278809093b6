#!/usr/bin/env python3
"""Generator of the cuBLAS GEMV tasks (issue 16): blas/dgemv, blas/cgemv, the
strided-batched routines blas/{s,d,c,z}gemv_strided_batched and the
pointer-array routines blas/{s,d,z}gemv_batched and blas/cgemv_batched_64.

Usage: scripts/taskgen/gemv.py [--check] [task ...]   (no task: every task),
from the repository root; --check writes nothing and lists the files that
differ from what it would write (exit 1 if any; ctest taskgen.gemv runs it).
For each task it writes

  benchmark/tasks/blas/<task>/spec.json        cases, tolerance, description
  benchmark/tasks/blas/<task>/reference.cpp    fp64 reference (gemv_reference.h)
  benchmark/tasks/blas/<task>/solutions/{cpu.cpp,cuda.cu,hip.hip,opencl.cpp}
  backends/cpu/baselines/blas/<task>.cpp       OpenBLAS cblas_?gemv (batched: a labelled loop)
  backends/cuda/baselines/blas/<task>.cpp      the cuBLAS routine itself
  backends/opencl/baselines/blas/<task>.cpp    CLBlast Gemv (batched: a labelled loop), plain fallback

The ten routines differ in two axes only: the precision (S f32, D f64, C c64,
Z c128: the element type, complex arithmetic, op C conjugating) and how the
batch is addressed (one product; rank-3 views whose last dimension is the
batch with strides strideA/stridex/stridey; lists of pointers). One GEMV core
per platform lives in gemv/{cpu.cpp.in,gpu.in,opencl.cpp.in}: `{{NAME}}`
placeholders take the precision's type block and the batch mode's operand
block, so every emitted file is a standalone solution for its own routine.
The generated files are the source of truth for review; re-run the
generator after changing a template or a case and commit its output.
"""
import json
import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemv")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# ---- precisions -------------------------------------------------------------

PRECISIONS = {
    "s": {"dtype": "f32", "kgb": "KGB_F32", "real": "float", "complex": False, "bytes": 4,
          "words": "single precision (f32)"},
    "d": {"dtype": "f64", "kgb": "KGB_F64", "real": "double", "complex": False, "bytes": 8,
          "words": "double precision (f64)"},
    "c": {"dtype": "c64", "kgb": "KGB_C64", "real": "float", "complex": True, "bytes": 8,
          "words": "single-precision complex (c64: two floats, real part first, like cuComplex)"},
    "z": {"dtype": "c128", "kgb": "KGB_C128", "real": "double", "complex": True, "bytes": 16,
          "words": "double-precision complex (c128: two doubles, real part first, like cuDoubleComplex)"},
}

# name, precision letter, batch mode, cuBLAS routine
TASKS = [
    ("dgemv", "d", "single", "cublasDgemv_v2"),
    ("cgemv", "c", "single", "cublasCgemv_v2"),
    ("sgemv_strided_batched", "s", "strided", "cublasSgemvStridedBatched"),
    ("dgemv_strided_batched", "d", "strided", "cublasDgemvStridedBatched"),
    ("cgemv_strided_batched", "c", "strided", "cublasCgemvStridedBatched"),
    ("zgemv_strided_batched", "z", "strided", "cublasZgemvStridedBatched"),
    ("sgemv_batched", "s", "batched", "cublasSgemvBatched"),
    ("dgemv_batched", "d", "batched", "cublasDgemvBatched"),
    ("zgemv_batched", "z", "batched", "cublasZgemvBatched"),
    ("cgemv_batched_64", "c", "batched", "cublasCgemvBatched_64"),
]

OPS = {"N": "CUBLAS_OP_N", "T": "CUBLAS_OP_T", "C": "CUBLAS_OP_C"}


def names(mode):
    """Parameter names of the matrix and the two vectors (cuBLAS's)."""
    return ("Aarray", "xarray", "yarray") if mode == "batched" else ("A", "x", "y")


# ---- cases ------------------------------------------------------------------
# Abstract cases: sizes, op, scalars (complex pairs; real tasks take the real
# part), the matrix padding, the vector increments (and poisoned elements
# below a vector), and the batch addressing. `modes` limits a case.


def C(name, M, N, op, alpha, beta, pad=0, incx=1, incy=1, offx=0, offy=0, batch=3, modes=("single", "strided", "batched"),
      expect_zero=False, stride_a=None, stride_x=None, repeat=(), cpu=False, real=True):
    return dict(name=name, M=M, N=N, op=op, alpha=alpha, beta=beta, pad=pad, incx=incx, incy=incy, offx=offx, offy=offy,
                batch=batch, modes=modes, expect_zero=expect_zero, stride_a=stride_a, stride_x=stride_x, repeat=repeat,
                cpu=cpu, real=real)


SINGLE_STRIDED = ("single", "strided")
BATCHED = ("strided", "batched")

CORRECTNESS = [
    C("n_beta0_padded", 13, 11, "N", (1, 0), (0, 0), pad=2),
    C("n_alpha_beta", 33, 17, "N", (1.5, -0.5), (-0.5, 0.25)),
    C("t_padded", 29, 19, "T", (-1, 0.5), (2, 0), pad=3),
    C("c_op", 12, 10, "C", (0.5, 1), (1, 0)),
    C("t_beta0_multi_block", 257, 70, "T", (0.25, 0), (0, 0)),
    C("n_multi_block_padded", 130, 257, "N", (1, 1), (1, 0), pad=1),
    C("c_incx2_incy3", 21, 14, "C", (2, -1), (0.5, -0.5), incx=2, incy=3),
    C("n_incx3_beta0", 40, 33, "N", (-0.75, 0), (0, 0), incx=3),
    C("alpha0_scales_y", 6, 5, "N", (0, 0), (0.5, -0.5)),
    C("alpha0_beta0_zeroes_y", 9, 8, "T", (0, 0), (0, 0), expect_zero=True),
    C("n0_leaves_y", 7, 0, "N", (1, 0), (0.5, 0)),
    C("m0_leaves_y_op_t", 0, 7, "T", (1, 0), (0, 0)),
    C("m1_row", 1, 100, "N", (1, 0), (0, 0)),
    C("n1_column_t", 100, 1, "T", (1, 0), (0, 0)),
    C("tall_skinny_c", 1000, 3, "C", (1, 0), (1, 0), pad=5),
    C("wide_short_n", 3, 1000, "N", (-1, 0), (0, 0)),
    C("n_incx_neg1", 20, 15, "N", (1, 0), (1, 0), incx=-1, modes=SINGLE_STRIDED),
    C("n_incy_neg3_offset", 18, 9, "N", (1, -2), (2, 0), incy=-3, offy=2, modes=SINGLE_STRIDED),
    C("t_incx_neg2_incy_neg1", 31, 12, "T", (0.75, 0.25), (0, 0), incx=-2, incy=-1, modes=SINGLE_STRIDED),
    C("c_incx_neg3_incy2", 11, 23, "C", (1, -1), (1, 1), incx=-3, offx=1, incy=2, pad=2, modes=SINGLE_STRIDED),
    C("n_imaginary_alpha", 16, 16, "N", (0, -2), (1, 0), modes=("single",), real=False),
    C("shared_a_stride0", 16, 12, "N", (1, 0), (0.5, 0), batch=4, stride_a=0, modes=("strided",)),
    C("shared_x_stride0_gapped_a", 10, 14, "T", (-1, 0.5), (0, 0), batch=3, stride_x=0, stride_a="gap",
      modes=("strided",)),
    C("repeated_a_pointer", 16, 12, "N", (1, 0), (0.5, 0), batch=4, repeat=("A",), modes=("batched",)),
    C("repeated_a_and_x_t", 10, 14, "T", (-1, 0.5), (0, 0), batch=3, repeat=("A", "x"), modes=("batched",)),
    C("single_item", 45, 37, "C", (0.5, 0.5), (1, -1), batch=1, pad=3, modes=BATCHED),
    C("many_small", 4, 4, "N", (1, 0), (1, 0), batch=64, pad=1, incy=2, modes=BATCHED),
    C("empty_batch", 3, 3, "N", (1, 0), (0, 0), batch=0, expect_zero=True, modes=BATCHED),
]


def perf_cases(letter, mode):
    p = PRECISIONS[letter]
    if mode == "single":
        big = 8192
        cpu_m, cpu_n = (4096, 4096)
        return [
            dict(name="%dx%d_n_beta0" % (big, big), M=big, N=big, op="N", alpha=(1, 0), beta=(0, 0), batch=1, cpu=False),
            dict(name="%dx%d_%s_beta1" % (big, big, "c" if p["complex"] else "t"), M=big, N=big,
                 op="C" if p["complex"] else "T", alpha=(1, 0), beta=(1, 0), batch=1, cpu=False),
            dict(name="%dx%d_t_cpu" % (cpu_m, cpu_n), M=cpu_m, N=cpu_n, op="T", alpha=(0.5, 0), beta=(0, 0), batch=1, cpu=True),
        ]
    # Batched decode attention: per head, scores = K q (K stored [seq, 128]
    # row-major = a column-major 128 x seq matrix, op T) and the weighted sum
    # of V (op N); about 256 MB of matrices on the GPU, 128 MB on the CPU.
    batch = {4: 64, 8: 32, 16: 16}[p["bytes"]]
    return [
        dict(name="b%d_128x8192_t_scores" % batch, M=128, N=8192, op="T", alpha=(1, 0), beta=(0, 0), batch=batch, cpu=False),
        dict(name="b%d_128x8192_n_values" % batch, M=128, N=8192, op="N", alpha=(1, 0), beta=(0, 0), batch=batch, cpu=False),
        dict(name="b%d_128x4096_t_cpu" % (batch // 2), M=128, N=4096, op="T", alpha=(1, 0), beta=(1, 0), batch=batch // 2,
             cpu=True),
    ]


def scalar_value(pair, cplx):
    re, im = pair
    if cplx:
        return [re, im]
    return re


def vector_len(case, which):
    """x has n elements for op N and m for op T/C; y the other."""
    op_n = case["op"] == "N"
    if which == "x":
        return case["N"] if op_n else case["M"]
    return case["M"] if op_n else case["N"]


def concrete(case, letter, mode):
    """The spec.json object of an abstract case for one task."""
    p = PRECISIONS[letter]
    an, xn, yn = names(mode)
    op_n = case["op"] == "N"
    out = {"name": case["name"]}
    dims = {"M": case["M"], "N": case["N"]}
    if mode != "single":
        dims["batch"] = case["batch"]
    out["dims"] = dims
    if case.get("expect_zero"):
        out["expect_zero"] = True
    if case.get("cpu"):
        out["cpu"] = True
    out["scalars"] = {"trans": OPS[case["op"]], "alpha": scalar_value(case["alpha"], p["complex"]),
                      "beta": scalar_value(case["beta"], p["complex"])}
    shapes, layouts, lists = {}, {}, {}
    if not op_n:
        if mode == "batched":
            lists[xn] = {"shape": ["M"]}
            lists[yn] = {"shape": ["N"]}
        elif mode == "strided":
            shapes[xn], shapes[yn] = ["M", "batch"], ["N", "batch"]
        else:
            shapes[xn], shapes[yn] = ["M"], ["N"]
    M, N, batch = case["M"], case["N"], case["batch"]
    pad, incx, incy = case.get("pad", 0), case.get("incx", 1), case.get("incy", 1)
    lx, ly = vector_len(case, "x"), vector_len(case, "y")

    def vec_layout(inc, off):
        lay = {"kind": "strides", "strides": [inc]}
        if off:
            lay["offset"] = off
        return lay

    if mode == "single":
        if pad:
            layouts[an] = {"kind": "transposed", "pad": pad}
        if incx != 1 or case.get("offx"):
            layouts[xn] = vec_layout(incx, case.get("offx", 0))
        if incy != 1 or case.get("offy"):
            layouts[yn] = vec_layout(incy, case.get("offy", 0))
    elif mode == "strided":
        lda = M + pad
        sa = case.get("stride_a")
        if sa is not None or pad:
            stride_a = lda * N if sa is None else (0 if sa == 0 else lda * N + 7)
            layouts[an] = {"kind": "strides", "strides": [1, lda, stride_a]}

        def strided_vec(inc, off, length, shared, gap):
            span = abs(inc) * max(length - 1, 0) + 1
            lay = {"kind": "strides", "strides": [inc, 0 if shared else span + gap]}
            if off:
                lay["offset"] = off
            return lay

        sx = case.get("stride_x")
        if incx != 1 or case.get("offx") or sx is not None:
            layouts[xn] = strided_vec(incx, case.get("offx", 0), lx, sx == 0, 3)
        if incy != 1 or case.get("offy"):
            layouts[yn] = strided_vec(incy, case.get("offy", 0), ly, False, 2)
    else:
        if pad:
            lists.setdefault(an, {})["layout"] = {"kind": "transposed", "pad": pad}
        if incx != 1:
            lists.setdefault(xn, {})["layout"] = {"kind": "strides", "strides": [incx]}
        if incy != 1:
            lists.setdefault(yn, {})["layout"] = {"kind": "strides", "strides": [incy]}
        for r in case.get("repeat", ()):
            lists.setdefault(an if r == "A" else xn, {})["aliasing"] = "repeat"
    if shapes:
        out["shapes"] = shapes
    if layouts:
        out["layouts"] = layouts
    if lists:
        out["lists"] = lists
    return out


# ---- spec -------------------------------------------------------------------


def description(name, letter, mode, cublas):
    p = PRECISIONS[letter]
    an, xn, yn = names(mode)
    cplx = p["complex"]
    real = p["real"]
    d = []
    if mode == "single":
        d.append("Implement %s: y := alpha * op(A) * x + beta * y, a matrix-vector product in %s, column-major storage."
                 % (cublas.replace("_v2", ""), p["words"]))
    elif mode == "strided":
        d.append("Implement %s: for every b in 0..batch-1, y[b] := alpha * op(A[b]) * x[b] + beta * y[b], in %s, "
                 "column-major storage, the batch addressed by fixed strides between its matrices and vectors."
                 % (cublas, p["words"]))
    else:
        d.append("Implement %s: for every b in 0..batch-1, y[b] := alpha * op(A[b]) * x[b] + beta * y[b], in %s, "
                 "column-major storage, the batch given as arrays of pointers (one per matrix and vector)."
                 % (cublas, p["words"]))
    if cplx:
        d.append(" op(A) = A for CUBLAS_OP_N (0), A^T (transpose, no conjugation) for CUBLAS_OP_T (1), and A^H = conj(A)^T "
                 "(every element's imaginary part negated, then transposed) for CUBLAS_OP_C (2). alpha and beta are "
                 "kgb_complex values ({double re, im}) whose parts are exactly representable in %s: convert them. "
                 "Complex products are the textbook ones: (a + bi)(c + di) = (ac - bd) + (ad + bc)i." % real)
    else:
        d.append(" op(A) = A for CUBLAS_OP_N (0) and A^T for CUBLAS_OP_T (1) and CUBLAS_OP_C (2) (the conjugate transpose "
                 "of a real matrix is its transpose). alpha and beta arrive as double%s."
                 % (" but are exactly representable in float: convert them" if real == "float" else ""))
    d.append(" A is m x n; op(A) is m x n for op N and n x m otherwise, so x has n elements and y m elements for op N, "
             "and x has m elements and y n elements for op T and op C. In full: for op N, y(i) = alpha * sum over j of "
             "A(i, j) * x(j) + beta * y(i); for op T, y(j) = alpha * sum over i of A(i, j) * x(i) + beta * y(j)%s."
             % (" (op C: conj(A(i, j)) in place of A(i, j))" if cplx else ""))
    d.append("\n\nHow the operands arrive: ")
    elem = "((const %s*)%s%s->data)" % (real, an, "->items[b]" if mode == "batched" else "")
    if mode == "single":
        d.append("A is a 2-D kgb_tensor of dtype %s describing the matrix as stored, column-major: sizes = [m, n], "
                 "strides = [1, lda] in elements, lda >= m (larger when the columns are padded), so element (i, j) is "
                 "%s at offset i + j * lda from A->data%s. x and y are 1-D views: element l of x is at offset "
                 "l * incx from x->data, incx = x->strides[0], and likewise y with incy = y->strides[0]. This is "
                 "exactly %s(handle, trans, m, n, &alpha, A, lda, px, incx, &beta, py, incy), m = A->sizes[0], "
                 "n = A->sizes[1]."
                 % (p["kgb"], "stored" if not cplx else "stored (real part, then imaginary part)",
                    "" if not cplx else " (counted in complex elements)", cublas.replace("_v2", "")))
    elif mode == "strided":
        d.append("A is a 3-D kgb_tensor of dtype %s with sizes [m, n, batch] and strides [1, lda, strideA]: element "
                 "(i, j) of matrix b is at offset i + j * lda + b * strideA from A->data (lda >= m; strideA is often "
                 "lda * n but may be larger, leaving gaps, or 0: every b uses the same matrix). x is a 2-D view "
                 "[length, batch] with strides [incx, stridex]: element l of vector b at offset l * incx + b * stridex "
                 "from x->data (stridex may be 0: one vector shared by every b); y likewise [length, batch], strides "
                 "[incy, stridey] (the y vectors never overlap). m = A->sizes[0], n = A->sizes[1], batch = "
                 "A->sizes[2]. This is exactly %s(handle, trans, m, n, &alpha, A, lda, strideA, px, incx, stridex, "
                 "&beta, py, incy, stridey, batch)." % (p["kgb"], cublas))
    else:
        d.append("%s, %s and %s are kgb_tensor_list values of `count` = batch items each. Item b of %s is a 2-D "
                 "kgb_tensor of dtype %s describing matrix b as stored, column-major: sizes = [m, n], strides = [1, lda] "
                 "with lda >= m (larger when padded); item b of %s and of %s is a 1-D view with the increment as its "
                 "stride (incx = %s->items[b]->strides[0] >= 1, incy likewise). Every item of one list has the same "
                 "sizes and strides (one lda, incx, incy per call, as cuBLAS takes them). The items are NOT back to "
                 "back: they sit in one allocation in no particular order with poisoned gaps between them, so always go "
                 "through each item's own data pointer. Several items of %s (or of %s) may be the very same matrix "
                 "(vector); the items of %s are always distinct. On CUDA and HIP, `device_data` of each list is an "
                 "array of `count` device pointers in device memory, device_data[b] == items[b]->data: exactly the "
                 "pointer arrays %s reads on the device (the descriptors in `items` are host memory: read the common "
                 "sizes and strides from items[0] on the host). On the CPU device_data is the same array in host "
                 "memory. On OpenCL device_data is NULL: call kgb_cl_tensor_list_buffers(stream, list, &storage, "
                 "&offsets) to get the one buffer holding all items of a list and a device buffer of `count` cl_long "
                 "element offsets (offsets[b] = position of item b's element 0 inside that buffer); do not release "
                 "either buffer. m = %s->items[0]->sizes[0], n = ...->sizes[1]."
                 % (an, xn, yn, an, p["kgb"], xn, yn, xn, an, xn, yn, cublas, an))
        if cublas.endswith("_64"):
            d.append(" (%s takes 64-bit sizes, increments and batch count; the cases here use sizes that fit in 32 "
                     "bits.)" % cublas)
    if mode != "batched":
        d.append("\n\nNegative increments follow the reference-BLAS rule that cuBLAS implements: a vector with incx < 0 is "
                 "walked from its far end, element l living at px[(len - 1 - l) * |incx|] of the pointer px BLAS "
                 "receives. The view's data already points at element 0 (the highest address) and the storage lies "
                 "below it, so data[l * incx] with the signed increment is element l; never touch anything below "
                 "data + (len - 1) * incx. The signs of incx and incy are independent.")
        if mode == "strided":
            d.append(" In the batch, element l of vector b is at data[l * incx + b * stridex] for either sign.")
    d.append("\n\nBLAS rules that are checked:\n"
             "- m == 0 or n == 0: return at once; y is left exactly as it is (even when beta != 1: BLAS's quick "
             "return).\n"
             "- beta == 0%s: the previous contents of y are not read at all. y arrives with NaN%s in some positions; "
             "with beta == 0 they must not reach the result (0 * NaN would be NaN). With beta != 0 they propagate.\n"
             "- alpha == 0%s: A and x are not read; y := beta * y (all zeros when beta == 0 too).\n"
             % (" (both parts zero)" if cplx else "", "" if cplx else " and infinities",
                " (both parts zero)" if cplx else ""))
    if mode != "single":
        d.append("- batch == 0: nothing to do.\n")
    if real == "float":
        d.append("Compute in float, as cuBLAS does: products and sums in single precision, in any order (the tolerance "
                 "grows with the reduction length: atol 2e-5 * max(m, n) plus a relative %s%s).\n"
                 % ("1.3e-6" if cplx else "1e-5", ", real and imaginary parts separately" if cplx else ""))
    else:
        d.append("Compute in double (any summation order; the tolerance is atol 1e-12 * max(m, n) plus a relative "
                 "1e-12%s).\n" % (", real and imaginary parts separately" if cplx else ""))
    if mode == "single":
        d.append("y is read and written in place: write exactly its m (op N) or n (op T/C) addressed elements and nothing "
                 "between or around them. A and x are read-only and never overlap y.")
    elif mode == "strided":
        d.append("y is read and written in place: write exactly the addressed elements of every y[b] and nothing in the "
                 "gaps. A and x are read-only and never overlap y.")
    else:
        d.append("%s is read and written in place: write exactly the addressed elements of every y[b] and nothing else "
                 "(the increments' gaps and the gaps between items stay untouched). %s and %s are read-only and never "
                 "overlap %s." % (yn, an, xn, yn))
    return "".join(d)


def spec(name, letter, mode, cublas):
    p = PRECISIONS[letter]
    an, xn, yn = names(mode)
    cplx = p["complex"]
    scalar = {"scalar": "complex"} if cplx else {"scalar": "float64"}
    ops = {"CUBLAS_OP_N": 0, "CUBLAS_OP_T": 1, "CUBLAS_OP_C": 2}
    y_dist = ({"kind": "custom", "generator": "blas/%s/%s" % (name, yn)} if cplx else
              {"kind": "normal", "mean": 0, "stddev": 1, "special": 0.03})
    params = [{"name": "trans", "scalar": "enum", "values": ops,
               "description": "op(A): N = A, T = A^T, C = conj(A)^T" if cplx else "op(A): N = A, T and C = A^T"},
              dict({"name": "alpha", "description": "scale of op(A) * x; 0 means A and x are not read"}, **scalar)]
    if mode == "single":
        params += [{"name": an, "tensor": "input", "dtype": p["dtype"], "shape": ["M", "N"], "layout": {"kind": "transposed"}},
                   {"name": xn, "tensor": "input", "dtype": p["dtype"], "shape": ["N"]}]
    elif mode == "strided":
        params += [{"name": an, "tensor": "input", "dtype": p["dtype"], "shape": ["M", "N", "batch"],
                    "layout": {"kind": "transposed"}},
                   {"name": xn, "tensor": "input", "dtype": p["dtype"], "shape": ["N", "batch"], "layout": {"kind": "transposed"}}]
    else:
        params += [{"name": an, "tensor_list": "input", "dtype": p["dtype"], "count": "batch", "shape": ["M", "N"],
                    "pointer_array": True, "layout": {"kind": "transposed"}},
                   {"name": xn, "tensor_list": "input", "dtype": p["dtype"], "count": "batch", "shape": ["N"],
                    "pointer_array": True}]
    params.append(dict({"name": "beta", "description": "scale of the previous y; 0 means y is not read"}, **scalar))
    if mode == "single":
        params.append({"name": yn, "tensor": "inout", "dtype": p["dtype"], "shape": ["M"], "dist": y_dist})
    elif mode == "strided":
        params.append({"name": yn, "tensor": "inout", "dtype": p["dtype"], "shape": ["M", "batch"],
                       "layout": {"kind": "transposed"}, "dist": y_dist})
    else:
        params.append({"name": yn, "tensor_list": "inout", "dtype": p["dtype"], "count": "batch", "shape": ["M"],
                       "pointer_array": True, "dist": y_dist})
    correctness = [concrete(c, letter, mode) for c in CORRECTNESS
                   if mode in c["modes"] and (c["real"] or cplx)]
    performance = [concrete(c, letter, mode) for c in perf_cases(letter, mode)]
    e = p["bytes"]
    per_item = "(M * N + if(trans, M, N) + if(beta, 2, 1) * if(trans, N, M)) * %d" % e
    batch = "" if mode == "single" else "batch * "
    flops = "%s%d * M * N" % (batch, 8 if cplx else 2)
    if p["real"] == "float":
        tol = {"reduction": "max(M, N)", "atol": 2e-5}
    else:
        tol = {"reduction": "max(M, N)", "atol": 1e-12, "rtol": {p["dtype"]: 1e-12}}
    upper = cublas.replace("_v2", "")
    letter_up = letter.upper()
    banned = ["cblas_%sgemv" % letter, "%sgemv_" % letter, "cublas%sgemv" % letter_up, "cublas%sgemm" % letter_up,
              "cblas_%sgemm" % letter, "clblast::", "at::", "torch::", "Eigen::"]
    if upper != "cublas%sgemv" % letter_up:
        banned.insert(3, upper)
    summary_mode = {"single": "", "strided": "strided-batched ", "batched": "batched (arrays of pointers) "}[mode]
    summary = "%s %smatrix-vector product y := alpha * op(A) x + beta * y, column-major BLAS/cuBLAS semantics%s (%s)" % (
        p["words"].split(" (")[0].capitalize(), summary_mode,
        ", negative increments" if mode != "batched" else "", upper)
    return {
        "id": "blas/" + name,
        "upstream_name": "cublas::" + cublas,
        "summary": summary,
        "description": description(name, letter, mode, cublas),
        "params": params,
        "correctness": correctness,
        "performance": performance,
        "tolerance": tol,
        "check": "elementwise",
        "deterministic": True,
        "flops": flops,
        "bytes": batch + per_item,
        "banned_apis": banned,
        "baseline": "openblas",
    }


def spec_text(obj):
    """Compact, stable JSON: one parameter or case per line."""
    lines = ["{"]
    keys = list(obj.keys())
    for n, k in enumerate(keys):
        v = obj[k]
        end = "," if n + 1 < len(keys) else ""
        if k in ("params", "correctness", "performance"):
            lines.append('  "%s": [' % k)
            for i, item in enumerate(v):
                lines.append("    " + json.dumps(item) + ("," if i + 1 < len(v) else ""))
            lines.append("  ]" + end)
        else:
            lines.append('  "%s": %s%s' % (k, json.dumps(v), end))
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---- reference ----------------------------------------------------------------


def reference(name, letter, mode):
    p = PRECISIONS[letter]
    V = "std::complex<double>" if p["complex"] else "double"
    scal = "args.complex_scalar" if p["complex"] else "args.scalar"
    gather = {"single": "single", "strided": "strided", "batched": "pointer_arrays"}[mode]
    reg_gen = ""
    if p["complex"]:
        reg_gen = 'KGB_REGISTER_GENERATOR("blas/%s/%s", kgb::gemv_reference::complex_y_with_nans);\n' % (name, names(mode)[2])
    what = {"single": "one product", "strided": "a strided batch (A [m, n, batch], x and y [length, batch])",
            "batched": "pointer arrays (lists Aarray, xarray, yarray)"}[mode]
    head = ("Reference for blas/%s (emitted by scripts/taskgen/gemv.py): y := alpha * op(A) x + beta * y for %s, in %s "
            "on logical elements, rounded once into %s, with the BLAS rules of gemv_reference.h (m == 0 or n == 0 leaves "
            "y untouched, alpha == 0 reads neither A nor x, beta == 0 never reads y)." % (name, what, V, p["dtype"]))
    head = "\n".join("// " + line for line in textwrap.wrap(head, 76))
    return head + """
#include <complex>
#include <cstdint>

#include "../gemv_reference.h"
#include "kgb/reference.h"

namespace {

namespace gr = kgb::gemv_reference;

void %(name)s_reference(kgb::RefArgs& args) {
  const int64_t trans = args.int_scalar("trans");
  const %(V)s alpha = %(scal)s("alpha"), beta = %(scal)s("beta");
  const gr::Batch batch = gr::%(gather)s(args, trans, "blas/%(name)s");
  gr::gemv_batch<%(V)s>(trans, alpha, beta, batch.m, batch.n, batch.problems);
}

}  // namespace

KGB_REGISTER_REFERENCE("blas/%(name)s", %(name)s_reference);
%(reg_gen)s""" % {"name": name, "V": V, "scal": scal, "gather": gather, "reg_gen": reg_gen, "what": what,
                  "dtype": p["dtype"]}


# ---- solutions ----------------------------------------------------------------


def signature(name, letter, mode):
    p = PRECISIONS[letter]
    s = "kgb_complex" if p["complex"] else "double"
    an, xn, yn = names(mode)
    if mode == "batched":
        return ("int trans, %s alpha, const kgb_tensor_list* %s, const kgb_tensor_list* %s, %s beta, kgb_tensor_list* %s, "
                "kgb_stream stream" % (s, an, xn, s, yn))
    return "int trans, %s alpha, const kgb_tensor* A, const kgb_tensor* x, %s beta, kgb_tensor* y, kgb_stream stream" % (s, s)


def formula(mode):
    if mode == "single":
        return "y := alpha * op(A) x + beta * y (op N/T/C), column-major."
    if mode == "strided":
        return ("y[b] := alpha * op(A[b]) x[b] + beta * y[b] for every b, the\n// batch at fixed strides (0 shares a "
                "matrix or vector), column-major.")
    return "y[b] := alpha * op(A[b]) x[b] + beta * y[b] for every b, the\n// batch given as arrays of pointers, column-major."


def type_note(letter):
    p = PRECISIONS[letter]
    if p["complex"]:
        return ("%s; products and sums in %s, op C conjugates A." % (p["words"][0].upper() + p["words"][1:], p["real"]))
    return "%s%s, computed in %s." % (p["words"][0].upper(), p["words"][1:], p["real"])


def batch_note(mode, platform):
    if mode == "single":
        return "One product."
    if mode == "strided":
        return "Item b of the batch is A + b * strideA, x + b * stridex,\n// y + b * stridey."
    if platform == "opencl":
        return ("The items of each list share one buffer; item b\n// starts at offsets[b] (kgb_cl_tensor_list_buffers).")
    if platform == "cpu":
        return "Item b is reached through its own data pointer."
    return "Item b is reached through the lists' device pointer arrays\n// (device_data)."


def gpu_type(letter):
    p = PRECISIONS[letter]
    r = p["real"]
    f = "f" if r == "float" else ""
    z = "0.0f" if r == "float" else "0.0"
    if p["complex"]:
        v = r + "2"
        return """typedef %(v)s T;  // (real, imaginary)

__device__ __forceinline__ T zero() { return make_%(v)s(%(z)s, %(z)s); }
__device__ __forceinline__ T add(T a, T b) { return make_%(v)s(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ T mul(T a, T b) { return make_%(v)s(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
// acc + a * b
__device__ __forceinline__ T mac(T acc, T a, T b) {
  return make_%(v)s(fma%(f)s(a.x, b.x, fma%(f)s(-a.y, b.y, acc.x)), fma%(f)s(a.x, b.y, fma%(f)s(a.y, b.x, acc.y)));
}
__device__ __forceinline__ T conj_if(T a, bool conj) { return conj ? make_%(v)s(a.x, -a.y) : a; }""" % {"v": v, "z": z, "f": f}
    return """typedef %(r)s T;

__device__ __forceinline__ T zero() { return %(z)s; }
__device__ __forceinline__ T add(T a, T b) { return a + b; }
__device__ __forceinline__ T mul(T a, T b) { return a * b; }
__device__ __forceinline__ T mac(T acc, T a, T b) { return fma%(f)s(a, b, acc); }  // acc + a * b
__device__ __forceinline__ T conj_if(T a, bool) { return a; }  // a real matrix is its own conjugate""" % {"r": r, "z": z, "f": f}


def gpu_operands(mode):
    if mode == "single":
        return """struct Operands {
  const T* a;
  const T* x;
  T* y;
};
__device__ __forceinline__ const T* item_a(const Operands& o, int64_t) { return o.a; }
__device__ __forceinline__ const T* item_x(const Operands& o, int64_t) { return o.x; }
__device__ __forceinline__ T* item_y(const Operands& o, int64_t) { return o.y; }"""
    if mode == "strided":
        return """struct Operands {
  const T* a;
  const T* x;
  T* y;
  int64_t stride_a, stride_x, stride_y;  // elements between items (0: one shared matrix or vector)
};
__device__ __forceinline__ const T* item_a(const Operands& o, int64_t b) { return o.a + b * o.stride_a; }
__device__ __forceinline__ const T* item_x(const Operands& o, int64_t b) { return o.x + b * o.stride_x; }
__device__ __forceinline__ T* item_y(const Operands& o, int64_t b) { return o.y + b * o.stride_y; }"""
    return """struct Operands {  // device arrays of batch pointers (the lists' device_data)
  const T* const* a;
  const T* const* x;
  T* const* y;
};
__device__ __forceinline__ const T* item_a(const Operands& o, int64_t b) { return o.a[b]; }
__device__ __forceinline__ const T* item_x(const Operands& o, int64_t b) { return o.x[b]; }
__device__ __forceinline__ T* item_y(const Operands& o, int64_t b) { return o.y[b]; }"""


def setup_common(letter, mode, lang):
    """Validation and Shape s (+ operands) shared by the CPU and GPU entries."""
    p = PRECISIONS[letter]
    k = p["kgb"]
    an, xn, yn = names(mode)
    lines = []
    if mode == "batched":
        lines.append("  const int64_t batch = %s->count;" % yn)
        lines.append("  if (%s->count != batch || %s->count != batch) return KGB_ERR_INVALID;" % (an, xn))
        lines.append("  if (batch == 0) return KGB_OK;")
        lines.append("  const kgb_tensor* A = %s->items[0];" % an)
        lines.append("  const kgb_tensor* x = %s->items[0];" % xn)
        lines.append("  const kgb_tensor* y = %s->items[0];" % yn)
    lines.append("  if (A->dtype != %s || x->dtype != %s || y->dtype != %s) return KGB_ERR_UNSUPPORTED;" % (k, k, k))
    ranks = (3, 2, 2) if mode == "strided" else (2, 1, 1)
    lines.append("  if (A->rank != %d || x->rank != %d || y->rank != %d) return KGB_ERR_INVALID;" % ranks)
    if mode == "strided":
        lines.append("  const int64_t batch = A->sizes[2];")
        lines.append("  if (x->sizes[1] != batch || y->sizes[1] != batch) return KGB_ERR_INVALID;")
    batch = "1" if mode == "single" else "batch"
    if lang == "cpu":
        lines.append("  const Shape s{A->sizes[0], A->sizes[1], A->strides[0], A->strides[1], x->strides[0], y->strides[0]};")
    else:
        lines.append("  const Shape s{A->sizes[0], A->sizes[1], A->strides[0], A->strides[1], x->strides[0], y->strides[0], %s};"
                     % batch)
    lines.append("  if (x->sizes[0] != (trans == 0 ? s.n : s.m) || y->sizes[0] != (trans == 0 ? s.m : s.n)) return KGB_ERR_INVALID;")
    if lang == "cpu":
        if mode == "single":
            lines.append("  const std::vector<Item> items{{static_cast<const T*>(A->data), static_cast<const T*>(x->data), "
                         "static_cast<T*>(y->data)}};")
        elif mode == "strided":
            lines.append("  std::vector<Item> items(static_cast<size_t>(batch));")
            lines.append("  for (int64_t b = 0; b < batch; ++b)")
            lines.append("    items[static_cast<size_t>(b)] = {static_cast<const T*>(A->data) + b * A->strides[2],")
            lines.append("                                    static_cast<const T*>(x->data) + b * x->strides[1],")
            lines.append("                                    static_cast<T*>(y->data) + b * y->strides[1]};")
        else:
            lines.append("  std::vector<Item> items(static_cast<size_t>(batch));")
            lines.append("  for (int64_t b = 0; b < batch; ++b)")
            lines.append("    items[static_cast<size_t>(b)] = {static_cast<const T*>(%s->items[b]->data), "
                         "static_cast<const T*>(%s->items[b]->data)," % (an, xn))
            lines.append("                                    static_cast<T*>(%s->items[b]->data)};" % yn)
    else:
        if mode == "single":
            lines.append("  const Operands o{static_cast<const T*>(A->data), static_cast<const T*>(x->data), "
                         "static_cast<T*>(y->data)};")
        elif mode == "strided":
            lines.append("  const Operands o{static_cast<const T*>(A->data), static_cast<const T*>(x->data), "
                         "static_cast<T*>(y->data),")
            lines.append("                   A->strides[2], x->strides[1], y->strides[1]};")
        else:
            lines.append("  if (!%s->device_data || !%s->device_data || !%s->device_data) return KGB_ERR_INVALID;" % (an, xn, yn))
            lines.append("  const Operands o{reinterpret_cast<const T* const*>(%s->device_data), "
                         "reinterpret_cast<const T* const*>(%s->device_data)," % (an, xn))
            lines.append("                   reinterpret_cast<T* const*>(%s->device_data)};" % yn)
    return "\n".join(lines)


def scalars(letter, lang):
    p = PRECISIONS[letter]
    r = p["real"]
    if p["complex"]:
        if lang == "gpu":
            mk = "make_%s2" % r
            conv = lambda v: "%s(static_cast<%s>(%s.re), static_cast<%s>(%s.im))" % (mk, r, v, r, v)
        else:
            conv = lambda v: "T{static_cast<%s>(%s.re), static_cast<%s>(%s.im)}" % (r, v, r, v)
        nz = lambda v: "%s.re != 0.0 || %s.im != 0.0" % (v, v)
    else:
        conv = lambda v: "static_cast<T>(%s)" % v
        nz = lambda v: "%s != 0.0" % v
    return {"ALPHA_T": conv("alpha"), "BETA_T": conv("beta"), "ALPHA_NONZERO": nz("alpha"), "BETA_NONZERO": nz("beta")}


def cpu_type(letter):
    p = PRECISIONS[letter]
    r = p["real"]
    if p["complex"]:
        return """struct T {  // (real, imaginary), the layout of %(r)s _Complex
  %(r)s re, im;
};

inline T zero() { return {0, 0}; }
inline bool nonzero(T v) { return v.re != 0 || v.im != 0; }
inline T mul(T a, T b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
inline T mac(T acc, T a, T b) { return {acc.re + a.re * b.re - a.im * b.im, acc.im + a.re * b.im + a.im * b.re}; }""" % {"r": r}
    return """typedef %(r)s T;

inline T zero() { return 0; }
inline bool nonzero(T v) { return v != 0; }
inline T mul(T a, T b) { return a * b; }
inline T mac(T acc, T a, T b) { return acc + a * b; }""" % {"r": r}


def cpu_kernels(letter):
    p = PRECISIONS[letter]
    r = p["real"]
    vec = """// 32-byte vectors of %(r)s (GCC vector extensions: AVX2 registers, or two
// SSE/NEON halves elsewhere), loaded and stored with memcpy (any alignment).
typedef %(r)s V __attribute__((vector_size(32)));
constexpr int64_t W = 32 / sizeof(%(r)s);  // %(r)ss per vector

inline V load(const %(r)s* p) {
  V v;
  memcpy(&v, p, sizeof v);
  return v;
}
inline void store(%(r)s* p, V v) { memcpy(p, &v, sizeof v); }
inline %(r)s hsum(V v) {
  %(r)s s = 0;
  for (int64_t k = 0; k < W; ++k) s += v[k];
  return s;
}
""" % {"r": r}
    if p["complex"]:
        return vec + swap_pairs_fn(letter) + """
// acc[r - r0] += sum over j of A(r, j) * x[j] for the rows [r0, r1): the
// accumulator and each column are read as interleaved (re, im) %(r)ss, so
// a * x_j = a * (xr, xr, ...) + swap(a) * (-xi, xi, ...), two columns per
// pass over the accumulator.
void rows_n(const Item& it, const Shape& s, int64_t r0, int64_t r1, T* acc) {
  const int64_t len = r1 - r0, flat = 2 * len, vend = flat / W * W;
  %(r)s* af = reinterpret_cast<%(r)s*>(acc);
  int64_t j = 0;
  if (s.rs == 1) {
    for (; j + 2 <= s.n; j += 2) {
      const %(r)s* c0 = reinterpret_cast<const %(r)s*>(it.a + r0 + j * s.cs);
      const %(r)s* c1 = reinterpret_cast<const %(r)s*>(it.a + r0 + (j + 1) * s.cs);
      const T x0 = it.x[j * s.incx], x1 = it.x[(j + 1) * s.incx];
      V re0, im0, re1, im1;
      for (int64_t k = 0; k < W; k += 2) {
        re0[k] = re0[k + 1] = x0.re;
        im0[k] = -x0.im;
        im0[k + 1] = x0.im;
        re1[k] = re1[k + 1] = x1.re;
        im1[k] = -x1.im;
        im1[k + 1] = x1.im;
      }
      for (int64_t f = 0; f < vend; f += W) {
        const V a0 = load(c0 + f), a1 = load(c1 + f);
        store(af + f, load(af + f) + a0 * re0 + swap_pairs(a0) * im0 + a1 * re1 + swap_pairs(a1) * im1);
      }
      for (int64_t r = vend / 2; r < len; ++r) acc[r] = mac(mac(acc[r], it.a[r0 + r + j * s.cs], x0), it.a[r0 + r + (j + 1) * s.cs], x1);
    }
  }
  for (; j < s.n; ++j) {
    const T* c = it.a + r0 * s.rs + j * s.cs;
    const T xj = it.x[j * s.incx];
    for (int64_t r = 0; r < len; ++r) acc[r] = mac(acc[r], c[r * s.rs], xj);
  }
}

// sum over i of op(a[i]) * x[i] for one column a (row stride rs) of m
// elements; op C negates a's imaginary parts. With the parts interleaved,
// p = a * x holds (ar xr, ai xi) pairs and q = a * swap(x) holds (ar xi, ai xr):
// re = sum(ar xr) - sign * sum(ai xi), im = sum(ar xi) + sign * sum(ai xr).
T column_dot(const T* a, int64_t rs, const T* x, int64_t m, bool conj) {
  const %(r)s sign = conj ? -1 : 1;
  %(r)s rr = 0, ii = 0, ri = 0, ir = 0;  // sums of ar xr, ai xi, ar xi, ai xr
  int64_t i = 0;
  if (rs == 1) {
    const %(r)s* af = reinterpret_cast<const %(r)s*>(a);
    const %(r)s* xf = reinterpret_cast<const %(r)s*>(x);
    V p0 = {}, p1 = {}, q0 = {}, q1 = {};
    for (; 2 * i + 2 * W <= 2 * m; i += W) {  // W complex elements: two vectors
      const V a0 = load(af + 2 * i), a1 = load(af + 2 * i + W), x0 = load(xf + 2 * i), x1 = load(xf + 2 * i + W);
      p0 += a0 * x0;
      p1 += a1 * x1;
      q0 += a0 * swap_pairs(x0);
      q1 += a1 * swap_pairs(x1);
    }
    const V p = p0 + p1, q = q0 + q1;
    for (int64_t k = 0; k < W; k += 2) {
      rr += p[k];
      ii += p[k + 1];
      ri += q[k];
      ir += q[k + 1];
    }
  }
  for (; i < m; ++i) {
    const T av = a[i * rs], xv = x[i];
    rr += av.re * xv.re;
    ii += av.im * xv.im;
    ri += av.re * xv.im;
    ir += av.im * xv.re;
  }
  return {rr - sign * ii, ri + sign * ir};
}""" % {"r": r}
    return vec + """
// acc[r - r0] += sum over j of A(r, j) * x[j] for the rows [r0, r1), four
// columns per pass over the accumulator.
void rows_n(const Item& it, const Shape& s, int64_t r0, int64_t r1, T* acc) {
  const int64_t len = r1 - r0, vend = len / W * W;
  int64_t j = 0;
  if (s.rs == 1) {
    for (; j + 4 <= s.n; j += 4) {
      const T* c0 = it.a + r0 + j * s.cs;
      const T* c1 = c0 + s.cs;
      const T* c2 = c1 + s.cs;
      const T* c3 = c2 + s.cs;
      const T x0 = it.x[j * s.incx], x1 = it.x[(j + 1) * s.incx], x2 = it.x[(j + 2) * s.incx], x3 = it.x[(j + 3) * s.incx];
      for (int64_t r = 0; r < vend; r += W)
        store(acc + r, load(acc + r) + load(c0 + r) * x0 + load(c1 + r) * x1 + load(c2 + r) * x2 + load(c3 + r) * x3);
      for (int64_t r = vend; r < len; ++r) acc[r] += c0[r] * x0 + c1[r] * x1 + c2[r] * x2 + c3[r] * x3;
    }
  }
  for (; j < s.n; ++j) {
    const T* c = it.a + r0 * s.rs + j * s.cs;
    const T xj = it.x[j * s.incx];
    for (int64_t r = 0; r < len; ++r) acc[r] += c[r * s.rs] * xj;
  }
}

// sum over i of a[i] * x[i] for one column a (row stride rs) of m elements
// (op C of a real matrix is op T); four vector accumulators in flight.
T column_dot(const T* a, int64_t rs, const T* x, int64_t m, bool) {
  T sum = 0;
  int64_t i = 0;
  if (rs == 1) {
    V s0 = {}, s1 = {}, s2 = {}, s3 = {};
    for (; i + 4 * W <= m; i += 4 * W) {
      s0 += load(a + i) * load(x + i);
      s1 += load(a + i + W) * load(x + i + W);
      s2 += load(a + i + 2 * W) * load(x + i + 2 * W);
      s3 += load(a + i + 3 * W) * load(x + i + 3 * W);
    }
    sum = hsum((s0 + s1) + (s2 + s3));
  }
  for (; i < m; ++i) sum += a[i * rs] * x[i];
  return sum;
}"""


def swap_pairs_fn(letter):
    """(re, im) -> (im, re) in every pair of a vector (complex kernels only)."""
    return """
// (re, im) -> (im, re) in every pair (one in-register permute).
inline V swap_pairs(V v) {
  V r;
  for (int64_t k = 0; k < W; ++k) r[k] = v[k ^ 1];
  return r;
}
"""


def cl_type(letter):
    p = PRECISIONS[letter]
    r = p["real"]
    pre = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" if r == "double" else ""
    if p["complex"]:
        return pre + """typedef %(r)s2 T;  // (real, imaginary)
T zero() { return (T)(0, 0); }
T add(T a, T b) { return a + b; }
T mul(T a, T b) { return (T)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
T mac(T acc, T a, T b) { return (T)(fma(a.x, b.x, fma(-a.y, b.y, acc.x)), fma(a.x, b.y, fma(a.y, b.x, acc.y))); }  // acc + a * b
T conj_if(T a, int conj) { return conj ? (T)(a.x, -a.y) : a; }""" % {"r": r}
    return pre + """typedef %(r)s T;
T zero() { return 0; }
T add(T a, T b) { return a + b; }
T mul(T a, T b) { return a * b; }
T mac(T acc, T a, T b) { return fma(a, b, acc); }  // acc + a * b
T conj_if(T a, int conj) { return a; }  // a real matrix is its own conjugate""" % {"r": r}


def cl_operands(mode):
    if mode == "single":
        return ("__global const T* a, long ao, __global const T* x, long xo, __global T* y, long yo",
                "__global const T* ap = a + ao; __global const T* xp = x + xo; __global T* yp = y + yo")
    if mode == "strided":
        return ("__global const T* a, long ao, __global const T* x, long xo, __global T* y, long yo, long sa, long sx, long sy",
                "__global const T* ap = a + ao + (b) * sa; __global const T* xp = x + xo + (b) * sx; "
                "__global T* yp = y + yo + (b) * sy")
    return ("__global const T* a, __global const long* ao, __global const T* x, __global const long* xo, __global T* y, "
            "__global const long* yo",
            "__global const T* ap = a + ao[b]; __global const T* xp = x + xo[b]; __global T* yp = y + yo[b]")


def cl_setup(letter, mode):
    p = PRECISIONS[letter]
    k = p["kgb"]
    an, xn, yn = names(mode)
    lines = []
    if mode == "batched":
        lines += ["  const int64_t batch = %s->count;" % yn,
                  "  if (%s->count != batch || %s->count != batch) return KGB_ERR_INVALID;" % (an, xn),
                  "  if (batch == 0) return KGB_OK;",
                  "  const kgb_tensor* A = %s->items[0];" % an,
                  "  const kgb_tensor* x = %s->items[0];" % xn,
                  "  const kgb_tensor* y = %s->items[0];" % yn]
    lines.append("  if (A->dtype != %s || x->dtype != %s || y->dtype != %s) return KGB_ERR_UNSUPPORTED;" % (k, k, k))
    ranks = (3, 2, 2) if mode == "strided" else (2, 1, 1)
    lines.append("  if (A->rank != %d || x->rank != %d || y->rank != %d) return KGB_ERR_INVALID;" % ranks)
    if mode == "strided":
        lines += ["  const int64_t batch = A->sizes[2];",
                  "  if (x->sizes[1] != batch || y->sizes[1] != batch) return KGB_ERR_INVALID;"]
    elif mode == "single":
        lines.append("  const int64_t batch = 1;")
    lines += ["  const cl_long m = A->sizes[0], n = A->sizes[1], rs = A->strides[0], cs = A->strides[1];",
              "  const cl_long incx = x->strides[0], incy = y->strides[0];",
              "  if (x->sizes[0] != (trans == 0 ? n : m) || y->sizes[0] != (trans == 0 ? m : n)) return KGB_ERR_INVALID;"]
    return "\n".join(lines)


def cl_set_operands(mode):
    an, xn, yn = names(mode)
    if mode == "single":
        return """  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, A);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, x);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, y);
  const cl_uint next = 6;"""
    if mode == "strided":
        return """  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, A);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, x);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, y);
  const cl_long item_strides[] = {A->strides[2], x->strides[1], y->strides[1]};
  for (cl_uint i = 0; i < 3; ++i) err |= clSetKernelArg(k, 6 + i, sizeof(cl_long), &item_strides[i]);
  const cl_uint next = 9;"""
    return """  cl_mem bufs[6] = {};  // storage and offsets of each list
  if (kgb_cl_tensor_list_buffers(stream, %s, &bufs[0], &bufs[1]) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, %s, &bufs[2], &bufs[3]) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, %s, &bufs[4], &bufs[5]) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < 6; ++i) err |= clSetKernelArg(k, i, sizeof(cl_mem), &bufs[i]);
  const cl_uint next = 6;""" % (an, xn, yn)


def cl_scalars(letter):
    p = PRECISIONS[letter]
    r = p["real"]
    if p["complex"]:
        t = "cl_%s2" % r
        conv = lambda v: "{{static_cast<cl_%s>(%s.re), static_cast<cl_%s>(%s.im)}}" % (r, v, r, v)
    else:
        t = "cl_%s" % r
        conv = lambda v: "static_cast<cl_%s>(%s)" % (r, v)
    return {"CL_HOST_T": t, "CL_ALPHA": conv("alpha"), "CL_BETA": conv("beta")}


def fill(template, subs):
    text = open(os.path.join(TEMPLATES, template)).read()
    for k, v in subs.items():
        text = text.replace("{{%s}}" % k, v)
    left = re.search(r"\{\{[A-Z_0-9]+\}\}", text)
    if left:
        raise SystemExit("unfilled placeholder in %s: %s" % (template, left.group(0)))
    return text


def solutions(name, letter, mode):
    p = PRECISIONS[letter]
    base = {"ID": "blas/" + name, "FORMULA": formula(mode), "TYPE_NOTE": type_note(letter),
            "ENTRY": "kgb_blas_" + name, "SIGNATURE": signature(name, letter, mode)}
    out = {}
    cpu = dict(base, BATCH_NOTE=batch_note(mode, "cpu"), CPU_TYPE=cpu_type(letter), CPU_KERNELS=cpu_kernels(letter),
               CPU_SETUP=setup_common(letter, mode, "cpu"), **{k: v for k, v in scalars(letter, "cpu").items()})
    out["cpu.cpp"] = fill("cpu.cpp.in", cpu)
    gpu = dict(base, BATCH_NOTE=batch_note(mode, "gpu"), GPU_TYPE=gpu_type(letter), GPU_OPERANDS=gpu_operands(mode),
               GPU_SETUP=setup_common(letter, mode, "gpu"), **scalars(letter, "gpu"))
    out["cuda.cu"] = fill("gpu.in", dict(gpu, GPU_IN="on CUDA (sm_90)", WARP="warp", RUNTIME_HEADER="cuda_runtime.h",
                                         STREAM_T="cudaStream_t", GET_LAST_ERROR="cudaGetLastError", SUCCESS="cudaSuccess"))
    out["hip.hip"] = fill("gpu.in", dict(gpu, GPU_IN="in HIP (a port of the CUDA solution)", WARP="wavefront",
                                         RUNTIME_HEADER="hip/hip_runtime.h", STREAM_T="hipStream_t",
                                         GET_LAST_ERROR="hipGetLastError", SUCCESS="hipSuccess"))
    params, item = cl_operands(mode)
    cl = dict(base, BATCH_NOTE=batch_note(mode, "opencl"), CL_TYPE=cl_type(letter), CL_OPERAND_PARAMS=params,
              CL_ITEM=item, CL_SETUP=cl_setup(letter, mode), CL_SET_OPERANDS=cl_set_operands(mode),
              CL_FP64_CHECK=("  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;" if p["real"] == "double" else ""),
              ALPHA_NONZERO=scalars(letter, "cpu")["ALPHA_NONZERO"], BETA_NONZERO=scalars(letter, "cpu")["BETA_NONZERO"],
              **cl_scalars(letter))
    text = fill("opencl.cpp.in", cl)
    out["opencl.cpp"] = text.replace("\n\n  const bool cpu_device", "\n  const bool cpu_device")
    return out


# ---- baselines -----------------------------------------------------------------

from gemv_baselines import baselines  # noqa: E402  (the three vendor-library baselines)


# ---- driver ---------------------------------------------------------------------


def outputs(task):
    name, letter, mode, cublas = task
    files = {}
    tdir = os.path.join("benchmark", "tasks", "blas", name)
    files[os.path.join(tdir, "spec.json")] = spec_text(spec(name, letter, mode, cublas))
    files[os.path.join(tdir, "reference.cpp")] = reference(name, letter, mode)
    for f, text in solutions(name, letter, mode).items():
        files[os.path.join(tdir, "solutions", f)] = text
    for backend, text in baselines(name, letter, mode, cublas, PRECISIONS[letter]).items():
        files[os.path.join("backends", backend, "baselines", "blas", name + ".cpp")] = text
    return files


def main(argv):
    check = "--check" in argv
    wanted = [a for a in argv if not a.startswith("--")]
    known = {t[0] for t in TASKS}
    for w in wanted:
        if w not in known:
            raise SystemExit("unknown task %s (known: %s)" % (w, ", ".join(sorted(known))))
    differ = []
    for task in TASKS:
        if wanted and task[0] not in wanted:
            continue
        for rel, text in outputs(task).items():
            path = os.path.join(ROOT, rel)
            old = open(path).read() if os.path.exists(path) else None
            if old == text:
                continue
            if check:
                differ.append(rel)
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            print("wrote", rel)
    if differ:
        print("out of date (re-run scripts/taskgen/gemv.py):\n  " + "\n  ".join(differ))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
