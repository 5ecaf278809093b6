// cuBLAS baselines on the harness stream: blas/sgemm (cublasSgemm),
// blas/saxpy (cublasSaxpy) and aten/mm (cublasGemmEx in f32/f64/f16/bf16, as
// ATen's CUDA mm does).
//
// cuBLAS is column-major. A 2-D view with strides [1, ld] is a column-major
// matrix as it is; a view with strides [ld, 1] is the transpose of one, which
// is expressed by flipping the operation. An output that is row-major is
// handled by computing its transpose (C^T = op(B)^T op(A)^T). Views that are
// neither (every-other-element, broadcast) are outside what cuBLAS takes:
// the baseline returns KGB_ERR_UNSUPPORTED for them; the performance cases
// use plain layouts.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "kgb_baseline.h"

namespace {

// One handle per process, created on first use (inside the warm-up calls).
cublasHandle_t handle_on(kgb_stream stream) {
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

ColMajor as_col_major(const kgb_tensor* t) {
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

// out (m x n) = alpha * opA (m x k) * opB (k x n) + beta * out, where opA and
// opB are given as 2-D views of the operands as the math uses them (after any
// BLAS transpose flags are applied), and out is a 2-D view.
struct GemmOperand {
  const void* data;
  int64_t rows, cols, s0, s1;  // element (i, j) at data[i * s0 + j * s1]
};

int gemm(cublasHandle_t h, cudaDataType type, cublasComputeType_t compute, const void* alpha, const void* beta,
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

// blas/sgemm: params transa, transb, alpha, A, B, beta, C.
int sgemm_cublas(kgb_tensor* const* t, const kgb_scalar_value* s, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  const bool ta = s[0].i != 0, tb = s[1].i != 0;
  const float alpha = static_cast<float>(s[2].f), beta = static_cast<float>(s[5].f);
  const kgb_tensor *a = t[3], *b = t[4];
  kgb_tensor* c = t[6];
  if (a->dtype != KGB_F32 || b->dtype != KGB_F32 || c->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  GemmOperand opa = ta ? GemmOperand{a->data, a->sizes[1], a->sizes[0], a->strides[1], a->strides[0]}
                       : GemmOperand{a->data, a->sizes[0], a->sizes[1], a->strides[0], a->strides[1]};
  GemmOperand opb = tb ? GemmOperand{b->data, b->sizes[1], b->sizes[0], b->strides[1], b->strides[0]}
                       : GemmOperand{b->data, b->sizes[0], b->sizes[1], b->strides[0], b->strides[1]};
  // Plain sgemm semantics (no tensor-core TF32): CUBLAS_COMPUTE_32F_PEDANTIC
  // would also forbid reduced-precision reductions; 32F is what cublasSgemm does.
  return gemm(h, CUDA_R_32F, CUBLAS_COMPUTE_32F, &alpha, &beta, opa, opb, c);
}

// blas/saxpy: params alpha, x, y.
int saxpy_cublas(kgb_tensor* const* t, const kgb_scalar_value* s, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  const float alpha = static_cast<float>(s[0].f);
  const kgb_tensor* x = t[1];
  kgb_tensor* y = t[2];
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  const int64_t n = x->sizes[0];
  if (n == 0) return KGB_OK;
  cublasStatus_t st = cublasSaxpy(h, static_cast<int>(n), &alpha, static_cast<const float*>(x->data),
                                  static_cast<int>(x->strides[0]), static_cast<float*>(y->data), static_cast<int>(y->strides[0]));
  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

// aten/mm: params self, mat2, out. ATen on CUDA runs mm through cuBLAS with
// float accumulation for 16-bit types.
int mm_cublas(kgb_tensor* const* t, const kgb_scalar_value*, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  const kgb_tensor *a = t[0], *b = t[1];
  kgb_tensor* c = t[2];
  GemmOperand opa{a->data, a->sizes[0], a->sizes[1], a->strides[0], a->strides[1]};
  GemmOperand opb{b->data, b->sizes[0], b->sizes[1], b->strides[0], b->strides[1]};
  const float one = 1.0f, zero = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  switch (c->dtype) {
    case KGB_F32: return gemm(h, CUDA_R_32F, CUBLAS_COMPUTE_32F, &one, &zero, opa, opb, c);
    case KGB_F64: return gemm(h, CUDA_R_64F, CUBLAS_COMPUTE_64F, &one_d, &zero_d, opa, opb, c);
    case KGB_F16: return gemm(h, CUDA_R_16F, CUBLAS_COMPUTE_32F, &one, &zero, opa, opb, c);
    case KGB_BF16: return gemm(h, CUDA_R_16BF, CUBLAS_COMPUTE_32F, &one, &zero, opa, opb, c);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

KGB_REGISTER_BASELINE("blas/sgemm", "cublas", sgemm_cublas);
KGB_REGISTER_BASELINE("blas/saxpy", "cublas", saxpy_cublas);
KGB_REGISTER_BASELINE("aten/mm", "cublas (as ATen's CUDA mm)", mm_cublas);
