// blas/dgemm_batched baseline: CLBlast's GemmBatched where CLBlast is
// installed (one buffer per list and an offset per item, as CLBlast takes
// them; every item of a list column-major with one leading dimension);
// otherwise a plain kernel written here: one work-item per element of every
// C[b], the items found through the list's offsets buffer, dot products from
// global memory.
#include <vector>

#include "../plain_common.h"
#include "kgb_entries/blas/dgemm_batched.h"

#ifdef KGB_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace kgb::opencl::plain {
namespace {

const std::string kSource = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void dgemm_batched(__global double* c, __global const long* co, __global const double* a, __global const long* ao,
                            __global const double* b, __global const long* bo, long batch, long M, long N, long K,
                            long ai, long al, long bl, long bj, long ci, long cj, double alpha, double beta, int read_c) {
  long w = get_global_id(0);
  long per = M * N;
  if (w >= batch * per) return;
  long item = w / per, r = w - item * per;
  long j = r / M, i = r - j * M;
  __global const double* ap = a + ao[item];
  __global const double* bp = b + bo[item];
  __global double* cp = c + co[item] + i * ci + j * cj;
  double acc = 0.0;
  for (long l = 0; l < K; ++l) acc += ap[i * ai + l * al] * bp[l * bl + j * bj];
  double res = alpha * acc;
  if (read_c) res += beta * *cp;
  *cp = res;
}
)CLC";

int dgemm_batched_plain(int transa, int transb, double alpha, const kgb_tensor_list* A, const kgb_tensor_list* B, double beta,
                        kgb_tensor_list* C, kgb_stream stream) {
  const cl_long batch = C->count;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* a0 = A->items[0];
  const kgb_tensor* b0 = B->items[0];
  const kgb_tensor* c0 = C->items[0];
  const bool ta = transa != 0, tb = transb != 0;
  const cl_long M = c0->sizes[0], N = c0->sizes[1];
  cl_long K = ta ? a0->sizes[0] : a0->sizes[1];
  if (M * N == 0) return KGB_OK;
  if (alpha == 0.0) K = 0;  // A and B are not read
  cl_mem abuf = nullptr, aoff = nullptr, bbuf = nullptr, boff = nullptr, cbuf = nullptr, coff = nullptr;
  if (kgb_cl_tensor_list_buffers(stream, A, &abuf, &aoff) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, B, &bbuf, &boff) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, C, &cbuf, &coff) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_kernel k = kernel(stream, kSource, "-cl-std=CL1.2", "dgemm_batched");
  if (!k) return KGB_ERR_INVALID;
  Args args{stream, k};
  args.value(cbuf).value(coff).value(abuf).value(aoff).value(bbuf).value(boff).value(batch).value(M).value(N).value(K);
  args.value(ta ? a0->strides[1] : a0->strides[0]).value(ta ? a0->strides[0] : a0->strides[1]);
  args.value(tb ? b0->strides[1] : b0->strides[0]).value(tb ? b0->strides[0] : b0->strides[1]);
  args.value(c0->strides[0]).value(c0->strides[1]).value(alpha).value(beta).value(static_cast<cl_int>(beta != 0.0));
  return args.error == CL_SUCCESS ? launch(stream, k, batch * M * N) : KGB_ERR_INVALID;
}

#ifdef KGB_HAVE_CLBLAST
// Host offsets of every item of a list inside the list's one buffer, or an
// empty vector when the items are not column-major with the first item's ld.
std::vector<size_t> clblast_offsets(kgb_stream stream, const kgb_tensor_list* list, cl_mem storage) {
  std::vector<size_t> offsets;
  const kgb_tensor* first = list->items[0];
  for (int64_t i = 0; i < list->count; ++i) {
    const kgb_tensor* t = list->items[i];
    cl_mem buffer = nullptr;
    cl_long offset = 0;
    if ((t->strides[0] != 1 && t->sizes[0] > 1) || t->strides[1] != first->strides[1] ||
        kgb_cl_tensor_buffer(stream, t, &buffer, &offset) != CL_SUCCESS || buffer != storage)
      return {};
    offsets.push_back(static_cast<size_t>(offset));
  }
  return offsets;
}

int dgemm_batched_clblast(int transa, int transb, double alpha, const kgb_tensor_list* A, const kgb_tensor_list* B,
                          double beta, kgb_tensor_list* C, kgb_stream stream) {
  const size_t batch = static_cast<size_t>(C->count);
  if (batch == 0) return KGB_OK;
  const kgb_tensor* a0 = A->items[0];
  const kgb_tensor* b0 = B->items[0];
  const kgb_tensor* c0 = C->items[0];
  const size_t m = static_cast<size_t>(c0->sizes[0]), n = static_cast<size_t>(c0->sizes[1]);
  const size_t k = static_cast<size_t>(transa ? a0->sizes[0] : a0->sizes[1]);
  if (m == 0 || n == 0) return KGB_OK;
  // CLBlast wants k >= 1, and alpha == 0 must not read A or B: those calls
  // take the plain kernel.
  if (k == 0 || alpha == 0.0) return dgemm_batched_plain(transa, transb, alpha, A, B, beta, C, stream);
  cl_mem abuf = nullptr, bbuf = nullptr, cbuf = nullptr, unused = nullptr;
  if (kgb_cl_tensor_list_buffers(stream, A, &abuf, &unused) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, B, &bbuf, &unused) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, C, &cbuf, &unused) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  const auto ao = clblast_offsets(stream, A, abuf), bo = clblast_offsets(stream, B, bbuf), co = clblast_offsets(stream, C, cbuf);
  if (ao.empty() || bo.empty() || co.empty()) return dgemm_batched_plain(transa, transb, alpha, A, B, beta, C, stream);
  auto ld = [](const kgb_tensor* x) { return static_cast<size_t>(x->sizes[1] <= 1 ? std::max<int64_t>(1, x->sizes[0]) : x->strides[1]); };
  const std::vector<double> alphas(batch, alpha), betas(batch, beta);
  auto op = [](int t) { return t ? clblast::Transpose::kYes : clblast::Transpose::kNo; };
  cl_command_queue queue = kgb_cl_get_queue(stream);
  auto status = clblast::GemmBatched<double>(clblast::Layout::kColMajor, op(transa), op(transb), m, n, k, alphas.data(), abuf,
                                             ao.data(), ld(a0), bbuf, bo.data(), ld(b0), betas.data(), cbuf, co.data(), ld(c0),
                                             batch, &queue, nullptr);
  return status == clblast::StatusCode::kSuccess ? KGB_OK : KGB_ERR_INVALID;
}
KGB_BASELINE(blas_dgemm_batched, "clblast", dgemm_batched_clblast);
#else
KGB_BASELINE(blas_dgemm_batched, kKind, dgemm_batched_plain);
#endif

}  // namespace
}  // namespace kgb::opencl::plain
