// Baseline for blas/dtrsm_batched: a loop of OpenBLAS cblas_dtrsm calls, one
// per item of the pointer arrays (CBLAS has no batched trsm), each through
// the item's own data pointer and leading dimension. Also the CBLAS oracle of
// the reference's cross-check.
#include <cstdint>

#include "col_major.h"
#include "kgb_baseline.h"
#include "kgb_entries/blas/dtrsm_batched.h"

namespace {

using namespace kgb::cpu_blas;

int dtrsm_batched_openblas(int side, int uplo, int trans, int diag, double alpha, const kgb_tensor_list* a,
                           kgb_tensor_list* b, kgb_stream) {
  if (a->count != b->count) return KGB_ERR_INVALID;
  for (int64_t i = 0; i < b->count; ++i) {
    const kgb_tensor* ai = a->items[i];
    kgb_tensor* bi = b->items[i];
    if (ai->dtype != KGB_F64 || bi->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
    const int64_t m = bi->sizes[0], n = bi->sizes[1];
    if (m == 0 || n == 0) continue;
    auto ca = as_col_major<double>(ai, true), cb = as_col_major<double>(bi, true);
    cblas_dtrsm(CblasColMajor, side ? CblasRight : CblasLeft, uplo ? CblasUpper : CblasLower, trans ? CblasTrans : CblasNoTrans,
                diag ? CblasUnit : CblasNonUnit, static_cast<blasint>(m), static_cast<blasint>(n), alpha, ca.data,
                static_cast<blasint>(ca.ld), cb.data, static_cast<blasint>(cb.ld));
    copy_back(cb, bi);
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(blas_dtrsm_batched, "openblas", dtrsm_batched_openblas);
