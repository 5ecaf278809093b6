// Baseline for blas/dgemm_batched: a loop of OpenBLAS cblas_dgemm calls, one
// per item of the pointer arrays (CBLAS has no batched GEMM in Debian's
// OpenBLAS 0.3.21), each through the item's own data pointer and leading
// dimension. Also the CBLAS oracle of the reference's cross-check.
#include <cstdint>

#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/dgemm_batched.h"

namespace {

using namespace kgb::cpu_blas;

int dgemm_batched_openblas(int transa, int transb, double alpha, const kgb_tensor_list* a, const kgb_tensor_list* b,
                           double beta, kgb_tensor_list* c, kgb_stream) {
  if (a->count != c->count || b->count != c->count) return KGB_ERR_INVALID;
  for (int64_t i = 0; i < c->count; ++i) {
    const kgb_tensor* ai = a->items[i];
    const kgb_tensor* bi = b->items[i];
    kgb_tensor* ci = c->items[i];
    if (ai->dtype != KGB_F64 || bi->dtype != KGB_F64 || ci->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
    const int64_t m = ci->sizes[0], n = ci->sizes[1], k = transa ? ai->sizes[0] : ai->sizes[1];
    if (m == 0 || n == 0) continue;
    auto ca = as_col_major<double>(ai, true), cb = as_col_major<double>(bi, true), cc = as_col_major<double>(ci, beta != 0.0);
    cblas_dgemm(CblasColMajor, cblas_op(transa), cblas_op(transb), static_cast<blasint>(m), static_cast<blasint>(n),
                static_cast<blasint>(k), alpha, ca.data, static_cast<blasint>(ca.ld), cb.data, static_cast<blasint>(cb.ld),
                beta, cc.data, static_cast<blasint>(cc.ld));
    copy_back(cc, ci);
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_dgemm_batched, "openblas", dgemm_batched_openblas);
