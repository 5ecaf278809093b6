// Shared by the cuBLAS baselines on the harness stream (blas/*, aten/mm): one
// handle per process and a GEMM on strided 2-D views.
//
// cuBLAS is column-major. A 2-D view with strides [1, ld] is a column-major
// matrix as it is; a view with strides [ld, 1] is the transpose of one, which
// is expressed by flipping the operation. An output that is row-major is
// handled by computing its transpose (C^T = op(B)^T op(A)^T). Views that are
// neither (every-other-element, broadcast) are outside what cuBLAS takes:
// the baseline returns KGB_ERR_UNSUPPORTED for them; the performance cases
// use plain layouts.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "kgb_baseline.h"

namespace kgb::cuda_blas {

// One handle per process, created on first use (inside the warm-up calls).
inline cublasHandle_t handle_on(kgb_stream stream) {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return static_cast<cublasHandle_t>(nullptr);
    return h;
  }();
  if (handle) cublasSetStream(handle, static_cast<cudaStream_t>(stream));
  return handle;
}

// A strided 2-D view as a column-major operand: pointer, leading dimension,
// and whether it is stored transposed.
struct ColMajor {
  bool ok = false;
  bool transposed = false;  // the view is the transpose of the column-major matrix at data/ld
  int64_t ld = 1;
};

inline ColMajor as_col_major(const kgb_tensor* t) {
  ColMajor r;
  const int64_t rows = t->sizes[0], cols = t->sizes[1];
  if (t->strides[0] == 1 && (cols <= 1 || t->strides[1] >= std::max<int64_t>(1, rows))) {
    r.ok = true;
    r.ld = cols <= 1 ? std::max<int64_t>(1, rows) : t->strides[1];
  } else if (t->strides[1] == 1 && (rows <= 1 || t->strides[0] >= std::max<int64_t>(1, cols))) {
    r.ok = true;
    r.transposed = true;
    r.ld = rows <= 1 ? std::max<int64_t>(1, cols) : t->strides[0];
  }
  return r;
}

// The leading dimension cuBLAS takes for a view stored column-major
// (strides [1, ld]): ld, or max(1, rows) where ld does not matter (at most one
// column); 0 when the view is not column-major.
inline int64_t column_major_ld(const kgb_tensor* t) {
  const int64_t rows = t->sizes[0], cols = t->sizes[1], least = std::max<int64_t>(1, rows);
  if (cols <= 1) return least;
  if (t->strides[0] != 1 && rows > 1) return 0;
  return t->strides[1] >= least ? t->strides[1] : 0;
}

// out (m x n) = alpha * opA (m x k) * opB (k x n) + beta * out, where opA and
// opB are given as 2-D views of the operands as the math uses them (after any
// BLAS transpose flags are applied), and out is a 2-D view.
struct GemmOperand {
  const void* data;
  int64_t rows, cols, s0, s1;  // element (i, j) at data[i * s0 + j * s1]
};

inline int gemm(cublasHandle_t h, cudaDataType type, cublasComputeType_t compute, const void* alpha, const void* beta,
         GemmOperand a, GemmOperand b, kgb_tensor* c) {
  int64_t m = c->sizes[0], n = c->sizes[1], k = a.cols;
  if (m == 0 || n == 0) return KGB_OK;
  auto col = [](int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
    kgb_tensor t{};
    t.rank = 2;
    t.sizes[0] = rows;
    t.sizes[1] = cols;
    t.strides[0] = s0;
    t.strides[1] = s1;
    return as_col_major(&t);
  };
  ColMajor cc = col(m, n, c->strides[0], c->strides[1]);
  if (!cc.ok) return KGB_ERR_UNSUPPORTED;
  if (cc.transposed) {
    // C row-major: compute C^T (n x m) = opB^T (n x k) * opA^T (k x m).
    std::swap(m, n);
    GemmOperand at{a.data, a.cols, a.rows, a.s1, a.s0};
    GemmOperand bt{b.data, b.cols, b.rows, b.s1, b.s0};
    a = bt;
    b = at;
  }
  ColMajor ca = col(a.rows, a.cols, a.s0, a.s1), cb = col(b.rows, b.cols, b.s0, b.s1);
  if (!ca.ok || !cb.ok) return KGB_ERR_UNSUPPORTED;
  if (k == 0) {
    // cuBLAS handles k == 0 as C = beta * C; it still wants valid leading dimensions.
    ca.ld = std::max<int64_t>(ca.ld, 1);
    cb.ld = std::max<int64_t>(cb.ld, 1);
  }
  // When a view is stored transposed, cuBLAS reads it with the opposite op;
  // the leading dimension must then cover the stored rows (the view's columns).
  if (!ca.transposed) ca.ld = std::max<int64_t>(ca.ld, std::max<int64_t>(1, m));
  if (!cb.transposed) cb.ld = std::max<int64_t>(cb.ld, std::max<int64_t>(1, k));
  if (ca.transposed) ca.ld = std::max<int64_t>(ca.ld, std::max<int64_t>(1, k));
  if (cb.transposed) cb.ld = std::max<int64_t>(cb.ld, std::max<int64_t>(1, n));
  cublasStatus_t s = cublasGemmEx(h, ca.transposed ? CUBLAS_OP_T : CUBLAS_OP_N, cb.transposed ? CUBLAS_OP_T : CUBLAS_OP_N,
                                  static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a.data, type,
                                  static_cast<int>(ca.ld), b.data, type, static_cast<int>(cb.ld), beta, c->data, type,
                                  static_cast<int>(std::max<int64_t>(cc.ld, std::max<int64_t>(1, m))), compute,
                                  CUBLAS_GEMM_DEFAULT);
  return s == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace kgb::cuda_blas
