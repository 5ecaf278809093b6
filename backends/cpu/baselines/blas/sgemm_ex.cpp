// Baseline for blas/sgemm_ex (cublasSgemmEx) on the CPU, labelled "openblas
// sgemm + f32 conversion": CBLAS has only sgemm for this call, so A and B of a
// 16-bit or int8 dtype are first converted (exactly) into dense f32 copies, an
// f16/bf16 C is widened to f32 (only when beta != 0) and rounded back to
// nearest-even after cblas_sgemm. The conversions run inside the timed call:
// they are part of what an f32-only library needs for this routine. f32
// operands go to cblas_sgemm as they are. Also the CBLAS oracle of the
// reference's cross-check.
#include <cstdint>
#include <vector>

#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/sgemm_ex.h"
#include "kgb_half.h"

namespace {

using namespace kgb::cpu_blas;

float to_float(const void* base, int32_t dtype, int64_t at) {
  switch (dtype) {
    case KGB_F16: return kgb_f16_to_float(static_cast<const uint16_t*>(base)[at]);
    case KGB_BF16: return kgb_bf16_to_float(static_cast<const uint16_t*>(base)[at]);
    case KGB_I8: return static_cast<float>(static_cast<const int8_t*>(base)[at]);
    default: return static_cast<const float*>(base)[at];
  }
}

// The stored matrix of a 2-D view as a dense column-major f32 copy (ld = rows).
std::vector<float> widened(const kgb_tensor* t) {
  const int64_t rows = t->sizes[0], cols = t->sizes[1];
  std::vector<float> out(static_cast<size_t>(std::max<int64_t>(1, rows) * std::max<int64_t>(1, cols)));
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i)
      out[static_cast<size_t>(i + j * rows)] = to_float(t->data, t->dtype, i * t->strides[0] + j * t->strides[1]);
  return out;
}

bool supported(int32_t ab, int32_t c) {
  if (c == KGB_F32) return ab == KGB_F32 || ab == KGB_F16 || ab == KGB_BF16 || ab == KGB_I8;
  return (c == KGB_F16 || c == KGB_BF16) && ab == c;
}

int sgemm_ex_openblas(int transa, int transb, double alpha_d, const kgb_tensor* A, const kgb_tensor* B, double beta_d,
                      kgb_tensor* C, kgb_stream) {
  if (A->dtype != B->dtype || !supported(A->dtype, C->dtype)) return KGB_ERR_UNSUPPORTED;
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  const int64_t m = C->sizes[0], n = C->sizes[1], k = transa ? A->sizes[0] : A->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const float alpha = static_cast<float>(alpha_d), beta = static_cast<float>(beta_d);
  const bool read_c = beta != 0;

  // A and B as CBLAS takes them: the views themselves (f32), or widened copies.
  ColMajor<float> a, b;
  if (A->dtype == KGB_F32) {
    a = as_col_major<float>(A, true);
    b = as_col_major<float>(B, true);
  } else {
    a.copy = widened(A);
    a.ld = std::max<int64_t>(1, A->sizes[0]);
    a.data = a.copy.data();
    b.copy = widened(B);
    b.ld = std::max<int64_t>(1, B->sizes[0]);
    b.data = b.copy.data();
  }
  const blasint ld_a = static_cast<blasint>(a.ld), ld_b = static_cast<blasint>(b.ld);
  auto sgemm = [&](float* c, int64_t ldc) {
    cblas_sgemm(CblasColMajor, cblas_op(transa), cblas_op(transb), static_cast<blasint>(m), static_cast<blasint>(n),
                static_cast<blasint>(k), alpha, a.data, ld_a, b.data, ld_b, beta, c, static_cast<blasint>(ldc));
  };
  if (C->dtype == KGB_F32) {
    ColMajor<float> c = as_col_major<float>(C, read_c);
    sgemm(c.data, c.ld);
    copy_back(c, C);
    return KGB_OK;
  }
  // A 16-bit C: widened (beta != 0 only: beta == 0 never reads C), then rounded once.
  std::vector<float> c(static_cast<size_t>(m * n), 0.0f);
  auto* cp = static_cast<uint16_t*>(C->data);
  const bool f16 = C->dtype == KGB_F16;
  if (read_c)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) c[static_cast<size_t>(i + j * m)] = to_float(cp, C->dtype, i * C->strides[0] + j * C->strides[1]);
  sgemm(c.data(), m);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      const float v = c[static_cast<size_t>(i + j * m)];
      cp[i * C->strides[0] + j * C->strides[1]] = f16 ? kgb_float_to_f16(v) : kgb_float_to_bf16(v);
    }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_sgemm_ex, "openblas sgemm + f32 conversion (timed)", sgemm_ex_openblas);
