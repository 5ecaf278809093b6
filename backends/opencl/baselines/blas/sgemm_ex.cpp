// blas/sgemm_ex baseline on OpenCL (cublasSgemmEx): CLBlast's Gemm<float> for
// (f32, f32) where CLBlast is installed. CLBlast has no mixed-type GEMM, and
// its HGEMM (Gemm<cl_half>) computes in f16, not in f32 as SgemmEx does (its
// sums fail the task's f32-compute tolerance at k in the thousands), so every
// other combination, and the calls CLBlast cannot take (k == 0, alpha == 0, a
// layout that is not column-major), run the plain kernel written here: one
// work-item per element of C, float products and sums read straight from
// global memory, the result rounded once into C's dtype. The label says which
// is which.
#include <optional>
#include <string>

#include "gemm_batch.h"
#include "kgb_entries/blas/sgemm_ex.h"

namespace kgb::opencl::plain {
namespace {

// IN_DT / OUT_DT: the kgb dtype numbers of A/B and of C (h2f, bf2f, f2h and
// f2bf come from dtype_prelude).
const std::string kSource = std::string(dtype_prelude()) + R"CLC(
#if IN_DT == 6
typedef float IN;
#define LOAD_IN(v) (v)
#elif IN_DT == 4
typedef ushort IN;
#define LOAD_IN(v) h2f(v)
#elif IN_DT == 5
typedef ushort IN;
#define LOAD_IN(v) bf2f(v)
#else
typedef char IN;
#define LOAD_IN(v) ((float)(v))
#endif
#if OUT_DT == 6
typedef float OUT;
#define LOAD_OUT(v) (v)
#define STORE_OUT(v) (v)
#elif OUT_DT == 4
typedef ushort OUT;
#define LOAD_OUT(v) h2f(v)
#define STORE_OUT(v) f2h(v)
#else
typedef ushort OUT;
#define LOAD_OUT(v) bf2f(v)
#define STORE_OUT(v) f2bf(v)
#endif
__kernel void sgemm_ex(__global OUT* c, long co, __global const IN* a, long ao, __global const IN* b, long bo, long M,
                       long N, long K, long ai, long al, long bl, long bj, long ci, long cj, float alpha, float beta,
                       int read_c) {
  long w = get_global_id(0);
  if (w >= M * N) return;
  long j = w / M, i = w - j * M;
  float acc = 0.0f;
  for (long l = 0; l < K; ++l) acc += LOAD_IN(a[ao + i * ai + l * al]) * LOAD_IN(b[bo + l * bl + j * bj]);
  float r = alpha * acc;
  long at = co + i * ci + j * cj;
  if (read_c) r += beta * LOAD_OUT(c[at]);
  c[at] = STORE_OUT(r);
}
)CLC";

bool supported(int32_t ab, int32_t c) {
  if (c == KGB_F32) return ab == KGB_F32 || ab == KGB_F16 || ab == KGB_BF16 || ab == KGB_I8;
  return (c == KGB_F16 || c == KGB_BF16) && ab == c;
}

int sgemm_ex_plain(int transa, int transb, double alpha_d, const kgb_tensor* A, const kgb_tensor* B, double beta_d,
                   kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != B->dtype || !supported(A->dtype, C->dtype)) return KGB_ERR_UNSUPPORTED;
  GemmGeometry g = gemm_geometry(transa, transb, A, B, C);
  const float alpha = static_cast<float>(alpha_d), beta = static_cast<float>(beta_d);
  if (alpha == 0.0f) g.K = 0;  // alpha == 0 reads neither A nor B
  if (g.M * g.N == 0) return KGB_OK;
  const std::string options =
      "-cl-std=CL1.2 -DIN_DT=" + std::to_string(A->dtype) + " -DOUT_DT=" + std::to_string(C->dtype);
  cl_kernel k = kernel(stream, kSource, options.c_str(), "sgemm_ex");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.tensor(C).tensor(A).tensor(B).value(g.M).value(g.N).value(g.K).value(g.ai).value(g.al).value(g.bl).value(g.bj);
  args.value(g.ci).value(g.cj).value(alpha).value(beta).value(static_cast<cl_int>(beta != 0.0f));
  return args.error == CL_SUCCESS ? launch(stream, k, g.M * g.N) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
// CLBlast's Gemm<T> on column-major 2-D views; nullopt when the call does not
// suit CLBlast (k == 0, which it rejects; alpha == 0, which must not read A
// or B; a layout that is not column-major).
template <class T>
std::optional<clblast::StatusCode> clblast_gemm(kgb_stream stream, int transa, int transb, T alpha, bool alpha_zero,
                                                const kgb_tensor* A, const kgb_tensor* B, T beta, kgb_tensor* C) {
  const size_t m = static_cast<size_t>(C->sizes[0]), n = static_cast<size_t>(C->sizes[1]);
  const size_t k = static_cast<size_t>(transa ? A->sizes[0] : A->sizes[1]);
  if (m == 0 || n == 0) return clblast::StatusCode::kSuccess;
  const size_t lda = clblast_ld(A), ldb = clblast_ld(B), ldc = clblast_ld(C);
  if (k == 0 || alpha_zero || lda == 0 || ldb == 0 || ldc == 0) return std::nullopt;
  ViewBuffers v;
  if (!view_buffers(stream, A, B, C, &v)) return clblast::StatusCode::kInvalidMemObject;
  cl_command_queue queue = kgb_cl_get_queue(stream);
  const auto op_a = clblast_op(transa == 2 ? 1 : transa), op_b = clblast_op(transb == 2 ? 1 : transb);  // op C = op T
  return clblast::Gemm<T>(clblast::Layout::kColMajor, op_a, op_b, m, n, k, alpha, v.a, static_cast<size_t>(v.ao), lda, v.b,
                          static_cast<size_t>(v.bo), ldb, beta, v.c, static_cast<size_t>(v.co), ldc, &queue, nullptr);
}

int sgemm_ex_clblast(int transa, int transb, double alpha, const kgb_tensor* A, const kgb_tensor* B, double beta,
                     kgb_tensor* C, kgb_stream stream) {
  std::optional<clblast::StatusCode> status;
  if (A->dtype == KGB_F32 && B->dtype == KGB_F32 && C->dtype == KGB_F32) {
    const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
    status = clblast_gemm(stream, transa, transb, al, al == 0.0f, A, B, be, C);
  }
  if (!status) return sgemm_ex_plain(transa, transb, alpha, A, B, beta, C, stream);
  return *status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_sgemm_ex, "clblast (f32) / plain (written here: 16-bit and i8 combinations)", sgemm_ex_clblast);
#else
KGB_BASELINE(blas_sgemm_ex, kKind, sgemm_ex_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
